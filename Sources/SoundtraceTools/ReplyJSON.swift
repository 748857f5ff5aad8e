import SoundtraceProtocol

/// Protocol records as JSON objects for `--json`: keys in the CLI's camelCase with the names
/// `match` already uses (referenceId, offsetSeconds…), values typed (numbers, booleans), `meta:`
/// lines gathered into one `metadata` object. Keys this client does not know pass through as
/// strings, so a newer daemon's additions are not lost.
enum ReplyJSON {
    /// Protocol keys that `match --json` already names differently.
    private static let renamed: [String: String] = [
        "reference": "referenceId", "offset": "offsetSeconds", "heard": "heardSeconds",
        "duration": "durationSeconds", "session": "sessionId", "event": "eventId"
    ]
    private static let integers: Set<String> = ["id", "event", "score", "catalog_version", "catalog_references", "window", "deleted"]
    private static let decimals: Set<String> = ["offset", "heard", "duration"]
    private static let booleans: Set<String> = ["favorite", "calm", "changed"]

    /// One record as a JSON object.
    static func object(_ record: ProtocolReply) -> String {
        var pairs: [(String, String)] = []
        var metadata: [(String, String)] = []
        for pair in record.pairs {
            if pair.key == "meta" {
                // `meta: KEY=VALUE`; a value without "=" is kept whole under an empty key rather than lost.
                let parts = pair.value.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                metadata.append(parts.count == 2 ? (String(parts[0]), Text.json(String(parts[1]))) : ("", Text.json(pair.value)))
                continue
            }
            pairs.append((key(pair.key), value(pair.value, key: pair.key)))
        }
        if !metadata.isEmpty { pairs.append(("metadata", Text.jsonObject(metadata))) }
        return Text.jsonObject(pairs)
    }

    /// `{"NAME": [record, …]}` for a list reply.
    static func list(_ name: String, _ records: [ProtocolReply]) -> String {
        "{\(Text.json(name)): [" + records.map(object).joined(separator: ", ") + "]}"
    }

    /// `snake_case` protocol keys as `camelCase`, with the renames above.
    static func key(_ protocolKey: String) -> String {
        if let name = renamed[protocolKey] { return name }
        let words = protocolKey.split(separator: "_")
        guard let first = words.first else { return protocolKey }
        return String(first) + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// A value typed by its key; a value that does not fit its type is kept as a string.
    static func value(_ text: String, key: String) -> String {
        if integers.contains(key), let number = Int(text) { return String(number) }
        if decimals.contains(key), isDecimal(text) { return text }
        if booleans.contains(key), text == "yes" || text == "no" { return text == "yes" ? "true" : "false" }
        return Text.json(text)
    }

    /// `-12.345`, `0.5`, `7`: the protocol's number form, which is also valid JSON. Digits are ASCII
    /// bytes, not Characters: "1" followed by a combining mark is one Character that sorts between
    /// "0" and "9". At most 15 digits before the point and 9 after: JSON readers hold numbers as
    /// doubles, and a longer one loses digits or overflows (Foundation refuses it outright).
    static func isDecimal(_ text: String) -> Bool {
        var rest = Substring(text).utf8[...]
        if rest.first == UInt8(ascii: "-") { rest = rest.dropFirst() }
        let parts = rest.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        let digits: (Substring.UTF8View.SubSequence, Int) -> Bool = { part, most in
            !part.isEmpty && part.count <= most && part.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        }
        guard let whole = parts.first, digits(whole, 15), whole.count == 1 || whole.first != UInt8(ascii: "0") else { return false }
        return parts.count == 1 || digits(parts[1], 9)
    }
}
