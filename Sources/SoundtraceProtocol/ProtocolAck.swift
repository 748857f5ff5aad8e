/// An error reply as the client reads it, `ACK [code@0] {command} message` (the daemon writes it
/// from a `ProtocolError`).
public struct ProtocolAck: Sendable, Equatable {
    public let code: Int
    public let command: String
    public let message: String

    public init(code: Int, command: String, message: String) {
        self.code = code
        self.command = command
        self.message = message
    }

    /// Parses an ACK line, or returns nil when `line` is not one.
    public init?(line: String) {
        guard line.hasPrefix("ACK [") else { return nil }
        let rest = line.dropFirst(5)
        guard let at = rest.firstIndex(of: "@"), let code = Int(rest[..<at]),
            let close = rest[at...].firstIndex(of: "]")
        else { return nil }
        var after = rest[rest.index(after: close)...]
        guard after.hasPrefix(" {"), let brace = after.firstIndex(of: "}") else { return nil }
        command = String(after[after.index(after.startIndex, offsetBy: 2)..<brace])
        after = after[after.index(after: brace)...]
        self.code = code
        message = after.hasPrefix(" ") ? String(after.dropFirst()) : String(after)
    }
}
