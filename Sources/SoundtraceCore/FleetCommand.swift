/// A command that arrived on the kiosk's MQTT command topic: the same actions as the button and
/// the protocol's `listen` and `cancel`, plus calm mode, which only the button's hold sets
/// otherwise.
public enum FleetCommand: Sendable, Equatable {
    case listen
    case cancel
    case calm(Bool)

    /// The words a command topic accepts, for refusals and the documentation.
    public static let forms = "listen, cancel, calm on, calm off"

    /// The longest payload read as a command. A longer one is refused whole, never read in part:
    /// the link keeps at most one byte more of a message (`MosquittoClient.Options.messageBytesKept`).
    public static let maximumPayloadBytes = 256

    /// Reads a message's payload: one command, words separated by spaces, case as written. A
    /// refusal says what was received (shortened, controls shown as `?`) and what is accepted.
    public static func parse(_ payload: [UInt8]) -> Result<FleetCommand, Refusal> {
        let text = String(decoding: payload.prefix(maximumPayloadBytes), as: UTF8.self)
        let shown = String(
            String.UnicodeScalarView(
                text.unicodeScalars.prefix(40).map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "?" : $0 }))
        guard payload.count <= maximumPayloadBytes else {
            return .failure(
                Refusal(
                    received: shown,
                    message: "a command is at most \(maximumPayloadBytes) bytes, this one is longer; expected one of: \(forms)"))
        }
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
        switch words.map(String.init) {
        case ["listen"]: return .success(.listen)
        case ["cancel"]: return .success(.cancel)
        case ["calm", "on"]: return .success(.calm(true))
        case ["calm", "off"]: return .success(.calm(false))
        default:
            return .failure(Refusal(received: shown, message: "unknown command \"\(shown)\"; expected one of: \(forms)"))
        }
    }

    /// Why a payload is not a command.
    public struct Refusal: Error, Equatable, Sendable {
        public let received: String
        public let message: String
    }

    /// The command's name in replies.
    public var name: String {
        switch self {
        case .listen: return "listen"
        case .cancel: return "cancel"
        case let .calm(on): return on ? "calm on" : "calm off"
        }
    }
}
