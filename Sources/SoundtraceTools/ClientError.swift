import SoundtraceProtocol

/// Why a conversation with soundtraced failed, each with the message a person reads and the exit
/// status scripts see.
enum ClientError: Error, Equatable, CustomStringConvertible {
    /// No TCP connection: refused, timed out, unknown host.
    case unreachable(endpoint: String, reason: String)
    /// Something answered, but it is not soundtraced speaking protocol 1.
    case notSoundtrace(endpoint: String, detail: String)
    /// The daemon broke the protocol mid-conversation: closed, went silent, sent junk or too much.
    case broken(endpoint: String, detail: String)
    /// The daemon answered with an error line; its message is for people and says what to do.
    case refused(ProtocolAck)
    /// A request that cannot be sent (caught before connecting for command-line input).
    case badRequest(ProtocolLine.Refusal)

    var description: String {
        switch self {
        case let .unreachable(endpoint, reason):
            return "cannot reach soundtraced at \(endpoint): \(reason)"
        case let .notSoundtrace(endpoint, detail):
            return "\(endpoint) is not a soundtraced speaking protocol 1: \(detail); check --host and --port (default port 6680)"
        case let .broken(endpoint, detail):
            return "soundtraced at \(endpoint) \(detail)"
        case let .refused(ack):
            return ack.message
        case let .badRequest(refusal):
            return "cannot send this request: \(refusal)"
        }
    }

    var exitCode: ExitCode {
        switch self {
        case .unreachable, .notSoundtrace, .broken: return .unreachable
        case .refused: return .refused
        case .badRequest: return .usage
        }
    }
}
