import Glibc
import SoundtraceFingerprint

/// The catalog manifest (`catalog/manifest.json`): which recordings form the catalog and how they
/// are described. Every field is checked, and an error names the reference and the field.
public struct Manifest: Sendable, Equatable {
    /// Bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): a title
    /// holding one can make a terminal, a log or the history show other text than it holds.
    static func reordersText(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    public let path: String
    public let version: Int
    public let references: [ReferenceAudio]

    /// Folder that `sourceFile` paths are relative to.
    public var folder: String { FileSystem.directory(of: path) }

    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let path: String
        public let problem: String
        public var description: String { "manifest \(path): \(problem)" }
    }

    /// A manifest of the most recordings one catalog takes is about 1 MB; room for long metadata.
    public static let maximumBytes = 4 << 20
    /// Recordings one manifest may list: 100 hours of three- to five-minute pieces is 1,200–2,000.
    /// The index holds more (`CatalogIndex.build`: the reference and frame bits share 31), but a
    /// bound keeps a mistaken manifest from building for hours.
    public static let maximumReferences = 4096
    static let limits: [String: Int] = ["title": 200, "creator": 200, "license": 100, "sourceFile": 255]

    public static func load(path: String) throws(Invalid) -> Manifest {
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path: path, limit: maximumBytes)
        } catch {
            switch error {
            case .tooLarge:
                throw Invalid(
                    path: path,
                    problem:
                        "is larger than a manifest can be (\(maximumBytes >> 20) MiB; one of \(maximumReferences) recordings is about 1 MB); check that --manifest names the manifest, not a recording or a catalog"
                )
            case .system(code: ENOENT, _), .system(code: ENOTDIR, _):
                throw Invalid(path: path, problem: "does not exist; pass --manifest PATH or create it (see docs/CATALOG.md)")
            case .system(code: EISDIR, _):
                throw Invalid(path: path, problem: "is a folder; pass the manifest file itself (e.g. --manifest catalog/manifest.json)")
            case let .system(code, reason) where code == EACCES || code == EPERM:
                throw Invalid(path: path, problem: "cannot be read (\(reason); check its permissions)")
            case let .system(_, reason): throw Invalid(path: path, problem: "cannot be read (\(reason))")
            }
        }
        return try parse(bytes, path: path)
    }

    public static func parse<Bytes: Collection>(_ data: Bytes, path: String) throws(Invalid) -> Manifest where Bytes.Element == UInt8 {
        func fail(_ problem: String) -> Invalid { Invalid(path: path, problem: problem) }
        let root: JSONValue
        do {
            // A byte order mark, which some editors write, is not JSON; RFC 8259 lets a parser ignore it.
            root = try data.starts(with: [0xEF, 0xBB, 0xBF]) ? JSONValue.parse(data.dropFirst(3)) : JSONValue.parse(data)
        } catch {
            // No outside checker is suggested: common ones accept the duplicate keys and NUL escapes refused here.
            throw fail("is not valid JSON (\(jsonProblem(error))); correct it there (docs/CATALOG.md shows the format)")
        }
        guard case let .object(object) = root else { throw fail("must be a JSON object with \"version\" and \"references\"") }
        for key in object.keys.sorted() where !["version", "references"].contains(key) {
            throw fail("unknown top-level field \"\(key)\" (expected \"version\" and \"references\")")
        }
        guard let versionValue = object["version"] else { throw fail("missing \"version\" (a positive whole number)") }
        guard let version = wholeNumber(versionValue), version >= 1, version <= Int(UInt32.max) else {
            throw fail("\"version\" must be a positive whole number, at most \(UInt32.max)")
        }
        guard case let .array(list)? = object["references"] else { throw fail("missing \"references\" (a list of recordings)") }
        guard !list.isEmpty else { throw fail("\"references\" is empty; a catalog needs at least one recording") }
        guard list.count <= Self.maximumReferences else {
            throw fail("has \(list.count) references; at most \(Self.maximumReferences) fit one catalog (split it between kiosks)")
        }

        var references: [ReferenceAudio] = []
        var seen: [String: Int] = [:]
        for (position, item) in list.enumerated() {
            let number = position + 1
            guard case let .object(entry) = item else { throw fail("reference #\(number) must be a JSON object") }
            let rawID: String? = if case let .string(id)? = entry["id"] { id } else { nil }
            let label = rawID.map { "reference #\(number) ('\($0)')" } ?? "reference #\(number)"
            for key in entry.keys.sorted() where !["id", "title", "creator", "license", "sourceFile", "metadata"].contains(key) {
                throw fail("\(label): unknown field \"\(key)\"")
            }
            guard let id = rawID else { throw fail("\(label): missing \"id\" (lowercase letters, digits and hyphens)") }
            guard ReferenceAudio.isValidID(id) else {
                throw fail("\(label): \"id\" must be 3–64 characters of lowercase a–z, 0–9 and '-', not starting with '-'")
            }
            if let earlier = seen[id] { throw fail("\(label): \"id\" repeats reference #\(earlier); ids must be unique") }
            seen[id] = number
            func text(_ field: String) throws(Invalid) -> String {
                guard let value = entry[field] else { throw fail("\(label): missing \"\(field)\"") }
                guard case let .string(s) = value, !s.unicodeScalars.allSatisfy(\.properties.isWhitespace) else {
                    throw fail("\(label): \"\(field)\" must be a non-empty string")
                }
                if let problem = textProblem(s, field: field) { throw fail("\(label): \"\(field)\" \(problem)") }
                return s
            }
            let title = try text("title")
            let creator = try text("creator")
            let license = try text("license")
            let source = try text("sourceFile")
            guard !source.hasPrefix("/"), !source.split(separator: "/").contains("..") else {
                throw fail("\(label): \"sourceFile\" must be a path relative to the manifest's folder, without '..'")
            }
            var metadata: [ReferenceAudio.MetadataEntry] = []
            if let raw = entry["metadata"] {
                guard case let .object(dictionary) = raw else { throw fail("\(label): \"metadata\" must be an object of strings") }
                guard dictionary.count <= 32 else { throw fail("\(label): \"metadata\" has \(dictionary.count) entries; at most 32") }
                for key in dictionary.keys.sorted() {
                    guard !key.isEmpty, key.count <= 64 else { throw fail("\(label): metadata key \"\(key)\" must be 1–64 characters") }
                    guard case let .string(value)? = dictionary[key] else {
                        throw fail("\(label): metadata \"\(key)\" must be a string (quote numbers)")
                    }
                    if let problem = metadataProblem(key: key, value: value) { throw fail("\(label): metadata \"\(key)\" \(problem)") }
                    metadata.append(.init(key: key, value: value))
                }
            }
            references.append(
                ReferenceAudio(
                    id: id, title: title, creator: creator, license: license,
                    sourceFile: source, metadata: metadata))
        }
        return Manifest(path: path, version: version, references: references)
    }

    /// What is wrong with a non-empty text field's value (too long, a control character, a
    /// character that reorders text), said after the field's name; nil when it may be kept.
    /// `catalog add` asks the same of its options before it does anything.
    static func textProblem(_ value: String, field: String) -> String? {
        if let limit = limits[field], value.count > limit { return "is \(value.count) characters; at most \(limit)" }
        return characterProblem(value)
    }

    /// The same for one metadata entry (its key is 1–64 characters, checked apart).
    static func metadataProblem(key: String, value: String) -> String? {
        guard value.count <= 500 else { return "is longer than 500 characters" }
        return characterProblem(key + value)
    }

    private static func characterProblem(_ text: String) -> String? {
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { return "contains control characters" }
        if let override = text.unicodeScalars.first(where: reordersText) {
            return "contains \(codePoint(override)), which reorders how the text around it is shown"
        }
        return nil
    }

    /// An integral number (`1` or `1.0`), not a string or a boolean.
    private static func wholeNumber(_ value: JSONValue) -> Int? {
        switch value {
        // A range, not abs(): abs(Int64.min) traps, and jansson reads "-9223372036854775808" as that.
        case let .integer(number): return (-999_999_999_999_999...999_999_999_999_999).contains(number) ? Int(number) : nil
        case let .real(number): return number == number.rounded() && abs(number) < 1e15 ? Int(number) : nil
        default: return nil
        }
    }

    private static func jsonProblem(_ error: JSONValue.ParseError) -> String {
        let text = error.description
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }
}
