import Foundation
import SoundtraceFingerprint

/// The catalog manifest (`catalog/manifest.json`): which recordings form the catalog and how they
/// are described. Every field is checked, and an error names the reference and the field.
public struct Manifest: Sendable, Equatable {
    public let path: String
    public let version: Int
    public let references: [ReferenceAudio]

    /// Folder that `sourceFile` paths are relative to.
    public var folder: String { (path as NSString).deletingLastPathComponent }

    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let path: String
        public let problem: String
        public var description: String { "manifest \(path): \(problem)" }
    }

    public static let maximumBytes = 1 << 20
    static let limits: [String: Int] = ["title": 200, "creator": 200, "license": 100, "sourceFile": 255]

    public static func load(path: String) throws(Invalid) -> Manifest {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            let exists = FileManager.default.fileExists(atPath: path)
            throw Invalid(path: path, problem: exists ? "cannot be read (check its permissions)"
                                                      : "does not exist; pass --manifest PATH or create it (see docs/CATALOG.md)")
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maximumBytes + 1)) ?? Data()
        guard data.count <= maximumBytes else { throw Invalid(path: path, problem: "is larger than \(maximumBytes) bytes") }
        return try parse(data, path: path)
    }

    public static func parse(_ data: Data, path: String) throws(Invalid) -> Manifest {
        func fail(_ problem: String) -> Invalid { Invalid(path: path, problem: problem) }
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw fail("is not valid JSON (\(jsonProblem(error))); check it with: python3 -m json.tool \(path)")
        }
        guard let object = root as? [String: Any] else { throw fail("must be a JSON object with \"version\" and \"references\"") }
        for key in object.keys.sorted() where !["version", "references"].contains(key) {
            throw fail("unknown top-level field \"\(key)\" (expected \"version\" and \"references\")")
        }
        guard let versionValue = object["version"] else { throw fail("missing \"version\" (a positive whole number)") }
        guard let version = wholeNumber(versionValue), version >= 1, version <= Int(UInt32.max) else {
            throw fail("\"version\" must be a positive whole number")
        }
        guard let list = object["references"] as? [Any] else { throw fail("missing \"references\" (a list of recordings)") }
        guard !list.isEmpty else { throw fail("\"references\" is empty; a catalog needs at least one recording") }
        guard list.count <= 256 else { throw fail("has \(list.count) references; at most 256 fit one catalog") }

        var references: [ReferenceAudio] = []
        var seen: [String: Int] = [:]
        for (position, item) in list.enumerated() {
            let number = position + 1
            guard let entry = item as? [String: Any] else { throw fail("reference #\(number) must be a JSON object") }
            let rawID = entry["id"] as? String
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
                guard let s = value as? String, !s.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                    throw fail("\(label): \"\(field)\" must be a non-empty string")
                }
                if let limit = limits[field], s.count > limit {
                    throw fail("\(label): \"\(field)\" is \(s.count) characters; at most \(limit)")
                }
                guard !s.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                    throw fail("\(label): \"\(field)\" contains control characters")
                }
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
                guard let dictionary = raw as? [String: Any] else { throw fail("\(label): \"metadata\" must be an object of strings") }
                guard dictionary.count <= 32 else { throw fail("\(label): \"metadata\" has \(dictionary.count) entries; at most 32") }
                for key in dictionary.keys.sorted() {
                    guard !key.isEmpty, key.count <= 64 else { throw fail("\(label): metadata key \"\(key)\" must be 1–64 characters") }
                    guard let value = dictionary[key] as? String else {
                        throw fail("\(label): metadata \"\(key)\" must be a string (quote numbers)")
                    }
                    guard value.count <= 500 else { throw fail("\(label): metadata \"\(key)\" is longer than 500 characters") }
                    metadata.append(.init(key: key, value: value))
                }
            }
            references.append(ReferenceAudio(id: id, title: title, creator: creator, license: license,
                                             sourceFile: source, metadata: metadata))
        }
        return Manifest(path: path, version: version, references: references)
    }

    private static func wholeNumber(_ value: Any) -> Int? {
        if value is String { return nil }
        guard let number = value as? NSNumber else { return nil }
        // JSON true/false also arrive as NSNumber; only accept integral numbers.
        let type = String(cString: number.objCType)
        guard type != "c", type != "B" else { return nil }
        let double = number.doubleValue
        guard double == double.rounded(), abs(double) < 1e15 else { return nil }
        return number.intValue
    }

    private static func jsonProblem(_ error: Error) -> String {
        let text = "\(error)"
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }
}
