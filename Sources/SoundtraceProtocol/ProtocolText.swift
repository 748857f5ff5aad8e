/// The reply side of the line protocol: `key: value` lines ending in `OK`, and the greeting; and
/// which control characters a line may carry (ProtocolText+Controls.swift).
public enum ProtocolText {
    /// The protocol's name and version, sent as the greeting.
    public static let version = 1
    public static let greeting = "OK SOUNDTRACE \(version)"

    /// `text` on one line: newlines and other control characters (`isControl`, C1 included) become
    /// spaces, so a value can never forge a reply line. C1 controls count too: a request line may
    /// carry them (an argument echoed in an error), and the CLI refuses a reply line holding one.
    public static func sanitized(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { isControl($0) ? " " : $0 }))
    }

    /// A reply: the pairs as `key: value` lines, then `OK`. Keys are fixed words of the protocol.
    public static func reply(_ pairs: [(String, String)]) -> String {
        pairs.map { "\($0.0): \(sanitized($0.1))\n" }.joined() + "OK\n"
    }

    /// An error reply line with its newline.
    public static func reply(_ error: ProtocolError) -> String { error.line + "\n" }
}
