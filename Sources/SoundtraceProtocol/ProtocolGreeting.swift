/// What a server's first line says it is, as the client reads it.
public enum ProtocolGreeting: Sendable, Equatable {
    /// `OK SOUNDTRACE 1`: a soundtraced of this protocol version.
    case current
    /// An ACK instead of the greeting: the daemon had no slot for the connection.
    case refused(ProtocolAck)
    /// A Soundtrace greeting of another version; the text after `OK SOUNDTRACE `, unsanitized.
    case otherVersion(String)
    /// Not a Soundtrace greeting at all.
    case other

    public init(line: String) {
        if line == ProtocolText.greeting {
            self = .current
        } else if let ack = ProtocolAck(line: line) {
            self = .refused(ack)
        } else if line.hasPrefix("OK SOUNDTRACE ") {
            self = .otherVersion(String(line.dropFirst(14)))
        } else {
            self = .other
        }
    }
}
