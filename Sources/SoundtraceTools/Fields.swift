import SoundtraceProtocol

/// One protocol record as aligned `label: value` lines for people, metadata last and indented.
enum Fields {
    /// Labels for the keys people read; other keys keep their protocol name.
    private static let labels: [String: String] = [
        "id": "recognition", "reference": "reference", "session": "session", "matched_at": "matched at",
        "offset": "offset", "score": "score", "favorite": "favorite", "source_file": "source file",
        "catalog_hash": "catalog sha256", "favorited_at": "favorited at", "duration": "duration"
    ]
    /// Keys whose values are seconds.
    private static let seconds: Set<String> = ["offset", "duration", "heard"]

    static func text(_ record: ProtocolReply, style: TextStyle) -> String {
        var lines: [String] = []
        var metadata: [String] = []
        for pair in record.pairs {
            if pair.key == "meta" {
                let parts = pair.value.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                metadata.append(parts.count == 2 ? "  \(parts[0]): \(parts[1])" : "  \(pair.value)")
                continue
            }
            var value = pair.value
            if pair.key.hasSuffix("_at") { value = TimeText.readable(value) }
            if seconds.contains(pair.key) { value += " s" }
            if pair.key == "title" { value = style.bold(value) }
            let label = labels[pair.key] ?? pair.key.replacingUnderscores()
            lines.append((label + ":").padding(16) + value)
        }
        if !metadata.isEmpty {
            lines.append("metadata:")
            lines += metadata
        }
        return lines.joined(separator: "\n")
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String { String(map { $0 == "_" ? " " : $0 }) }
}
