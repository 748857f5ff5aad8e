/// The checks every input passes before it reaches SQL; each failure names the field and the rule.
enum InputValidation {
    static func recognition(_ match: NewRecognition) throws(HistoryError) {
        try sessionId(match.sessionId)
        try referenceId(match.referenceId)
        guard HistoryLimits.matchedAt.contains(match.matchedAt) else {
            throw .invalidInput(field: "matchedAt", problem: "\(match.matchedAt) is not a unix time in milliseconds between 1970 and 9999")
        }
        guard HistoryLimits.offsetMilliseconds.contains(match.offsetMilliseconds) else {
            throw .invalidInput(
                field: "offsetMilliseconds",
                problem:
                    "\(match.offsetMilliseconds) ms is longer than any catalog recording (limit ±\(HistoryLimits.offsetMilliseconds.upperBound) ms)"
            )
        }
        guard HistoryLimits.score.contains(match.score) else {
            throw .invalidInput(
                field: "score", problem: "\(match.score) is outside \(HistoryLimits.score.lowerBound)…\(HistoryLimits.score.upperBound)")
        }
        try snapshot(match.snapshot)
    }

    static func snapshot(_ snapshot: ReferenceSnapshot) throws(HistoryError) {
        try text("title", snapshot.title, length: HistoryLimits.titleLength)
        try text("creator", snapshot.creator, length: HistoryLimits.titleLength)
        try text("license", snapshot.license, length: HistoryLimits.licenseLength)
        try text("sourceFile", snapshot.sourceFile, length: HistoryLimits.sourceFileLength)
        guard snapshot.metadata.count <= HistoryLimits.maximumMetadataEntries else {
            throw .invalidInput(
                field: "metadata", problem: "\(snapshot.metadata.count) entries; at most \(HistoryLimits.maximumMetadataEntries)")
        }
        for entry in snapshot.metadata {
            try text("metadata key", entry.key, length: HistoryLimits.metadataKeyLength)
            try text("metadata value of \"\(entry.key)\"", entry.value, length: 0...HistoryLimits.maximumMetadataValueLength)
        }
        try catalogHash(snapshot.catalogHash)
    }

    static func sessionId(_ id: String) throws(HistoryError) {
        let scalars = id.unicodeScalars
        guard HistoryLimits.sessionIdLength.contains(scalars.count),
            scalars.allSatisfy({ isASCIILetterOrDigit($0) || $0 == "-" || $0 == "_" || $0 == "." })
        else {
            throw .invalidInput(
                field: "sessionId", problem: "\(quoted(id)) must be 1–64 characters of ASCII letters, digits, '-', '_' and '.'")
        }
    }

    static func referenceId(_ id: String) throws(HistoryError) {
        let scalars = id.unicodeScalars
        guard HistoryLimits.referenceIdLength.contains(scalars.count), scalars.first != "-",
            scalars.allSatisfy({ isLowercaseLetterOrDigit($0) || $0 == "-" })
        else {
            throw .invalidInput(
                field: "referenceId", problem: "\(quoted(id)) must be 3–64 characters of a–z, 0–9 and '-', not starting with '-'")
        }
    }

    static func catalogHash(_ hash: String) throws(HistoryError) {
        let scalars = hash.unicodeScalars
        guard scalars.count == HistoryLimits.catalogHashLength,
            scalars.allSatisfy({ ("0"..."9").contains($0) || ("a"..."f").contains($0) })
        else {
            throw .invalidInput(field: "catalogHash", problem: "\(quoted(hash)) must be 64 lowercase hex digits (a SHA-256)")
        }
    }

    static func settingKey(_ key: String) throws(HistoryError) {
        let scalars = key.unicodeScalars
        guard HistoryLimits.settingKeyLength.contains(scalars.count), let first = scalars.first, ("a"..."z").contains(first),
            scalars.allSatisfy({ isLowercaseLetterOrDigit($0) || $0 == "-" || $0 == "." })
        else {
            throw .invalidInput(
                field: "setting key", problem: "\(quoted(key)) must be 1–64 characters of a–z, 0–9, '-' and '.', starting with a letter")
        }
    }

    static func settingValue(_ key: SettingKey, _ value: String) throws(HistoryError) {
        try text("value of setting \(key.name)", value, length: 0...HistoryLimits.maximumSettingValueLength)
    }

    /// Counts characters as the catalog manifest does, so the store accepts whatever a catalog holds.
    static func text(_ field: String, _ value: String, length: ClosedRange<Int>) throws(HistoryError) {
        let count = value.count
        guard length.contains(count) else {
            let rule = length.lowerBound == 0 ? "at most \(length.upperBound)" : "\(length.lowerBound)–\(length.upperBound)"
            throw .invalidInput(field: field, problem: "is \(count) characters; must be \(rule)")
        }
        // Control characters (including NUL) would corrupt the line protocol and terminals downstream.
        guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidInput(field: field, problem: "contains control characters")
        }
    }

    private static func isASCIILetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        isLowercaseLetterOrDigit(scalar) || ("A"..."Z").contains(scalar)
    }

    private static func isLowercaseLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    /// Quotes input for an error message, shortened so that a huge value cannot flood a log.
    private static func quoted(_ value: String) -> String {
        let shown = value.unicodeScalars.count > 80 ? String(value.unicodeScalars.prefix(80)) + "…" : value
        let escaped = shown.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : String($0) }.joined()
        return "\"\(escaped)\""
    }
}
