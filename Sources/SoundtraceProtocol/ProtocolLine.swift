/// One request line as the client sends it: the command word and its arguments, quoted per the
/// grammar in docs/PROTOCOL.md so that `ProtocolRequest.parse` on the daemon reads them back
/// exactly.
public struct ProtocolLine: Sendable, Equatable {
    /// Why a request cannot be sent; these are caught before connecting wherever the arguments come
    /// from the command line.
    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        case controlCharacter
        case tooLong(Int)
        case tooManyArguments

        public var description: String {
            switch self {
            case .controlCharacter:
                return "an argument holds a control character (newline, tab…), which the protocol cannot carry"
            case let .tooLong(bytes):
                return "the request would be \(bytes) bytes, longer than the protocol's \(ProtocolRequest.maxLineBytes)-byte line limit"
            case .tooManyArguments:
                return "more than \(ProtocolRequest.maxArguments) arguments"
            }
        }
    }

    /// The line's text without its newline.
    public let text: String

    public init(_ command: String, _ arguments: [String] = []) throws(Refusal) {
        guard arguments.count <= ProtocolRequest.maxArguments else { throw .tooManyArguments }
        var words = [command]
        for argument in arguments {
            // A control character would end or corrupt the line; the daemon closes the connection
            // on one, so refuse here with a reason instead.
            guard !argument.unicodeScalars.contains(where: ProtocolText.isRequestControl) else {
                throw .controlCharacter
            }
            words.append(Self.quoted(argument))
        }
        let text = words.joined(separator: " ")
        // The limit counts the line without its newline, as the daemon's reader does.
        guard text.utf8.count <= ProtocolRequest.maxLineBytes else { throw .tooLong(text.utf8.count) }
        self.text = text
    }

    /// `argument` as one word: bare when it is plain, otherwise in double quotes with `"` and `\`
    /// escaped. An empty argument needs quotes too, or it would vanish. Decided and escaped by Unicode
    /// scalar, as `ProtocolRequest.parse` reads: a space or a quote that a combining mark follows is
    /// one Character to Swift but still a separator or a quote to the daemon.
    public static func quoted(_ argument: String) -> String {
        let special: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\"" || $0 == "\\" }
        let needsQuotes = argument.isEmpty || argument.unicodeScalars.contains(where: special)
        guard needsQuotes else { return argument }
        var out = String.UnicodeScalarView()
        out.append("\"")
        for scalar in argument.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { out.append("\\") }
            out.append(scalar)
        }
        out.append("\"")
        return String(out)
    }

    /// The bytes to write, newline included.
    public var bytes: [UInt8] { Array((text + "\n").utf8) }
}
