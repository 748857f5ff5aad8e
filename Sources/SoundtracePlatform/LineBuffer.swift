/// The bytes read from one client, cut into lines. A line ends in "\n" or "\r\n"; the length
/// limit applies to the line without that terminator, so a client that ends its lines in "\r\n"
/// may send lines exactly as long as one that ends them in "\n".
struct LineBuffer {
    /// What the buffer holds next.
    enum Next: Equatable {
        /// A complete line without its "\n" (a "\r" before the "\n" is left for the parser to drop).
        case line([UInt8])
        /// The next line is longer than the limit (complete or not): the client is not speaking the protocol.
        case tooLong
    }

    let maxLineBytes: Int
    private var bytes: [UInt8] = []
    /// Where the unread part of `bytes` starts; consumed lines are removed in one go by `append`,
    /// not one by one, so reading many short lines costs no repeated shifting.
    private var start = 0

    init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    /// Whether a complete line is waiting (the server holds lines back while a client's replies pile up).
    var hasLine: Bool { bytes[start...].contains(UInt8(ascii: "\n")) }

    /// The bytes held that are not yet handed out as lines.
    var count: Int { bytes.count - start }

    mutating func append(_ chunk: ArraySlice<UInt8>) {
        bytes.removeFirst(start)
        start = 0
        bytes += chunk
    }

    /// The next line, `.tooLong`, or nil when the next line is incomplete and may still be valid.
    mutating func next() -> Next? {
        let unread = bytes[start...]
        if let newline = unread.firstIndex(of: UInt8(ascii: "\n")) {
            let line = bytes[start..<newline]
            guard Self.contentLength(line) <= maxLineBytes else { return .tooLong }
            start = newline + 1
            return .line(Array(line))
        }
        // Incomplete: too long already, unless the one byte over is the "\r" of a "\r\n" to come.
        return Self.contentLength(unread) > maxLineBytes ? .tooLong : nil
    }

    /// Forgets everything held (a connection on its way out reads nothing more).
    mutating func removeAll() {
        bytes.removeAll()
        start = 0
    }

    /// A line's length without the "\r" of a "\r\n" terminator.
    private static func contentLength(_ line: ArraySlice<UInt8>) -> Int {
        line.last == UInt8(ascii: "\r") ? line.count - 1 : line.count
    }
}
