/// A protocol error as sent to the client: `ACK [code@0] {command} message`.
public struct ProtocolError: Error, Sendable, Equatable {
    /// Numeric codes, in the spirit of MPD's.
    public enum Code: Int, Sendable {
        case badArguments = 2
        case wrongToken = 3
        case permission = 4
        case unknownCommand = 5
        case notFound = 50
        case busy = 54
        case unavailable = 56
        case system = 52
    }

    public let code: Code
    public let command: String
    public let message: String

    public init(_ code: Code, command: String, _ message: String) {
        self.code = code
        self.command = command
        self.message = message
    }

    /// The answer to a command word the table does not have.
    public static func unknown(command: String) -> ProtocolError {
        ProtocolError(.unknownCommand, command: command, "unknown command \"\(command)\"; send `commands` for the list")
    }

    /// The error line, without its newline.
    public var line: String {
        "ACK [\(code.rawValue)@0] {\(ProtocolText.sanitized(command))} \(ProtocolText.sanitized(message))"
    }
}
