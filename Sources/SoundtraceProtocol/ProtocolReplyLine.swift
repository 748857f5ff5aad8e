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
