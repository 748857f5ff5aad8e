/// A successful reply: the `key: value` lines that came before `OK`, in order. Lists are records
/// that each start with the same key.
public struct ProtocolReply: Sendable, Equatable {
    public struct Pair: Sendable, Equatable {
        public let key: String
        public let value: String

        public init(key: String, value: String) {
            self.key = key
            self.value = value
        }
    }

    public let pairs: [Pair]

    public init(pairs: [Pair]) {
        self.pairs = pairs
    }

    /// The first value of `key`, if the reply has one.
    public func value(_ key: String) -> String? { pairs.first { $0.key == key }?.value }

    /// Every value of `key`, in order (e.g. `command:` or `line:` lists).
    public func values(_ key: String) -> [String] { pairs.filter { $0.key == key }.map(\.value) }

    /// The reply cut into records, each starting at a `first` key. Pairs before the first record
    /// are dropped: a later protocol version may put a header there, and clients ignore what they
    /// do not know.
    public func records(startingWith first: String) -> [ProtocolReply] {
        var records: [[Pair]] = []
        for pair in pairs {
            if pair.key == first {
                records.append([pair])
            } else if !records.isEmpty {
                records[records.count - 1].append(pair)
            }
        }
        return records.map(ProtocolReply.init)
    }
}

/// An error reply as the client reads it, `ACK [code@0] {command} message` (the daemon writes it
/// from a `ProtocolError`).
public struct ProtocolAck: Sendable, Equatable {
    public let code: Int
    public let command: String
    public let message: String

    /// Parses an ACK line, or returns nil when `line` is not one.
    public init?(line: String) {
        guard line.hasPrefix("ACK [") else { return nil }
        let rest = line.dropFirst(5)
        guard let at = rest.firstIndex(of: "@"), let code = Int(rest[..<at]),
              let close = rest[at...].firstIndex(of: "]") else { return nil }
        var after = rest[rest.index(after: close)...]
        guard after.hasPrefix(" {"), let brace = after.firstIndex(of: "}") else { return nil }
        command = String(after[after.index(after.startIndex, offsetBy: 2)..<brace])
        after = after[after.index(after: brace)...]
        self.code = code
        message = after.hasPrefix(" ") ? String(after.dropFirst()) : String(after)
    }
}

/// What one line of a reply is.
public enum ProtocolReplyLine: Sendable, Equatable {
    case pair(ProtocolReply.Pair)
    case ok
    case ack(ProtocolAck)

    /// Why the bytes of a reply line are not text that protocol 1 sends.
    public enum Fault: Error, Sendable, Equatable {
        case notUTF8
        case controlCharacter
    }

    /// The text of one line as read, without its newline (a `\r` before it is dropped). The daemon
    /// sends control characters as spaces, so one here means a peer that is not soundtraced, and
    /// it would reach the terminal, where escape sequences can rewrite what a person sees.
    public static func text(_ bytes: ArraySlice<UInt8>) -> Result<String, Fault> {
        var line = bytes
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        guard let text = String(validating: line, as: UTF8.self) else { return .failure(.notUTF8) }
        guard !text.unicodeScalars.contains(where: ProtocolText.isControl) else { return .failure(.controlCharacter) }
        return .success(text)
    }

    /// Classifies `line` strictly: `OK`, an ACK, or `key: value` with a key of lower-case letters,
    /// digits and underscores. Anything else (nil) means the peer broke the protocol.
    public static func parse(_ line: String) -> ProtocolReplyLine? {
        if line == "OK" { return .ok }
        if let ack = ProtocolAck(line: line) { return .ack(ack) }
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let key = line[..<colon]
        guard !key.isEmpty, key.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }) else {
            return nil
        }
        let rest = line[line.index(after: colon)...]
        // "key: value"; a bare "key:" is read as an empty value rather than refused, since the
        // daemon only ever leaves keys out and an empty title is still a title.
        guard rest.isEmpty || rest.hasPrefix(" ") else { return nil }
        return .pair(.init(key: String(key), value: String(rest.dropFirst())))
    }
}
