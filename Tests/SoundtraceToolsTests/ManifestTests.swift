import Foundation
import Testing

@testable import SoundtraceTools

@Suite struct ManifestTests {
    static func reference(_ overrides: [String: String] = [:], drop: String? = nil) -> String {
        var fields = [
            "id": "\"harbor-lights\"", "title": "\"Harbor Lights\"", "creator": "\"Soundtrace project\"",
            "license": "\"CC0-1.0\"", "sourceFile": "\"audio/harbor-lights.wav\"", "metadata": "{\"key\": \"C major\"}"
        ]
        for (k, v) in overrides { fields[k] = v }
        if let drop { fields[drop] = nil }
        return "{" + fields.keys.sorted().map { "\"\($0)\": \(fields[$0] ?? "")" }.joined(separator: ", ") + "}"
    }

    static func manifest(_ references: [String], version: String = "1") -> Data {
        Data("{\"version\": \(version), \"references\": [\(references.joined(separator: ","))]}".utf8)
    }

    @Test func aVersionWrittenAsAWholeRealCounts() throws {
        #expect(try Manifest.parse(Self.manifest([Self.reference()], version: "1.0"), path: "m.json").version == 1)
        #expect(try Manifest.parse(Self.manifest([Self.reference()], version: "2E0"), path: "m.json").version == 2)
    }

    @Test func aByteOrderMarkIsIgnoredAsRFC8259Allows() throws {
        let m = try Manifest.parse([0xEF, 0xBB, 0xBF] + Array(Self.manifest([Self.reference()])), path: "m.json")
        #expect(m.references.map(\.id) == ["harbor-lights"])
    }

    @Test func parsesAValidManifest() throws {
        let m = try Manifest.parse(Self.manifest([Self.reference()]), path: "catalog/manifest.json")
        #expect(m.version == 1)
        #expect(m.references.count == 1)
        let r = m.references[0]
        #expect(r.id == "harbor-lights" && r.title == "Harbor Lights" && r.sourceFile == "audio/harbor-lights.wav")
        #expect(r.metadata.map(\.key) == ["key"])
        #expect(m.folder == "catalog")
    }

    @Test func aHundredHourCatalogsManifestIsReadAndOneTooLongIsRefused() throws {
        func pieces(_ count: Int) -> Data {
            Self.manifest(
                (0..<count).map {
                    Self.reference(["id": "\"piece-\($0)\"", "sourceFile": "\"audio/piece-\($0).wav\""])
                })
        }
        // 1,500 recordings, about 100 hours of three- to five-minute pieces (the limit was 256).
        let big = pieces(1500)
        #expect(big.count < Manifest.maximumBytes)
        #expect(try Manifest.parse(big, path: "m.json").references.count == 1500)
        do {
            _ = try Manifest.parse(pieces(Manifest.maximumReferences + 1), path: "m.json")
            Issue.record("a manifest over the limit was accepted")
        } catch {
            #expect(error.description.contains("has 4097 references; at most 4096 fit one catalog"), "\(error)")
        }
    }

    @Test func aFileTooLargeToBeAManifestIsRefusedWithWhatToCheck() throws {
        // A catalog or a recording passed as --manifest by mistake.
        let path = NSTemporaryDirectory() + "manifest-too-large-\(UUID().uuidString).json"
        try Data(count: Manifest.maximumBytes + 1).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(
            throws: Manifest.Invalid(
                path: path,
                problem:
                    "is larger than a manifest can be (4 MiB; one of 4096 recordings is about 1 MB); check that --manifest names the manifest, not a recording or a catalog"
            )
        ) { try Manifest.load(path: path) }
    }

    /// Built afresh at each use: a `Data` kept alive in a static is reported as leaked by
    /// LeakSanitizer at exit (scripts/sanitizers.sh address), which does not find its storage.
    static var bad: [(String, Data, String)] {
        [
            ("not json", Data("{version: 1".utf8), "is not valid JSON"),
            (
                "a field twice", Data("{\"version\": 1, \"version\": 2, \"references\": []}".utf8),
                "is not valid JSON (line 1, column 24: duplicate object key near '\"version\"'); correct it there"
            ),
            ("version beyond any double", manifest([reference()], version: "1e400"), "is not valid JSON"),
            ("array root", Data("[1, 2]".utf8), "must be a JSON object"),
            ("unknown top field", Data("{\"version\": 1, \"references\": [], \"extra\": 1}".utf8), "unknown top-level field \"extra\""),
            ("missing version", Data("{\"references\": []}".utf8), "missing \"version\""),
            ("fractional version", manifest([reference()], version: "1.5"), "\"version\" must be a positive whole number"),
            ("string version", manifest([reference()], version: "\"1\""), "\"version\" must be a positive whole number"),
            ("bool version", manifest([reference()], version: "true"), "\"version\" must be a positive whole number"),
            ("version over 32 bits", manifest([reference()], version: "4294967296"), "must be a positive whole number, at most 4294967295"),
            ("zero version", manifest([reference()], version: "0"), "\"version\" must be a positive whole number"),
            ("no references", Data("{\"version\": 1, \"references\": []}".utf8), "\"references\" is empty"),
            ("reference not object", manifest(["42"]), "reference #1 must be a JSON object"),
            ("missing id", manifest([reference(drop: "id")]), "reference #1: missing \"id\""),
            ("uppercase id", manifest([reference(["id": "\"Harbor\""])]), "reference #1 ('Harbor'): \"id\" must be 3–64 characters"),
            ("short id", manifest([reference(["id": "\"ab\""])]), "\"id\" must be 3–64 characters"),
            ("duplicate id", manifest([reference(), reference()]), "reference #2 ('harbor-lights'): \"id\" repeats reference #1"),
            ("missing title", manifest([reference(drop: "title")]), "reference #1 ('harbor-lights'): missing \"title\""),
            ("empty creator", manifest([reference(["creator": "\"  \""])]), "\"creator\" must be a non-empty string"),
            ("numeric license", manifest([reference(["license": "3"])]), "\"license\" must be a non-empty string"),
            ("absolute source", manifest([reference(["sourceFile": "\"/etc/passwd\""])]), "\"sourceFile\" must be a path relative"),
            ("escaping source", manifest([reference(["sourceFile": "\"../x.wav\""])]), "\"sourceFile\" must be a path relative"),
            ("typo field", manifest([reference(["titel": "\"x\""])]), "unknown field \"titel\""),
            ("metadata number", manifest([reference(["metadata": "{\"bpm\": 120}"])]), "metadata \"bpm\" must be a string"),
            ("metadata list", manifest([reference(["metadata": "[]"])]), "\"metadata\" must be an object of strings"),
            (
                "long title", manifest([reference(["title": "\"" + String(repeating: "x", count: 201) + "\""])]),
                "\"title\" is 201 characters; at most 200"
            ),
            ("control characters", manifest([reference(["title": "\"a\\u0007b\""])]), "\"title\" contains control characters"),
            (
                "control characters in metadata", manifest([reference(["metadata": "{\"k\": \"a\\u001b[2J\"}"])]),
                "metadata \"k\" contains control characters"
            ),
            (
                "a line break in a metadata key", manifest([reference(["metadata": "{\"k\\nforged: x\": \"v\"}"])]),
                "contains control characters"
            ),
            (
                "a right-to-left override", manifest([reference(["title": "\"Harbor \\u202Egnp.exe\""])]),
                "\"title\" contains U+202E, which reorders how the text around it is shown"
            ),
            (
                "an isolate in metadata", manifest([reference(["metadata": "{\"k\": \"a\\u2067b\"}"])]),
                "metadata \"k\" contains U+2067, which reorders"
            )
        ]
    }

    @Test(arguments: bad.map { $0.0 })
    func refusesBadManifestsNamingTheReferenceAndField(_ name: String) throws {
        let (_, data, expected) = try #require(Self.bad.first { $0.0 == name })
        do {
            _ = try Manifest.parse(data, path: "m.json")
            Issue.record("\(name) was accepted")
        } catch {
            #expect(error.description.hasPrefix("manifest m.json: "))
            #expect(error.description.contains(expected), "\(error.description)")
        }
    }

    @Test func missingManifestSaysWhatToDo() {
        #expect(
            throws: Manifest.Invalid(
                path: "/nonexistent/manifest.json",
                problem: "does not exist; pass --manifest PATH or create it (see docs/CATALOG.md)")
        ) {
            try Manifest.load(path: "/nonexistent/manifest.json")
        }
        #expect(
            throws: Manifest.Invalid(
                path: "/tmp", problem: "is a folder; pass the manifest file itself (e.g. --manifest catalog/manifest.json)")
        ) {
            try Manifest.load(path: "/tmp")
        }
        #expect(
            throws: Manifest.Invalid(
                path: "/etc/hostname/manifest.json",
                problem: "does not exist; pass --manifest PATH or create it (see docs/CATALOG.md)")
        ) {
            try Manifest.load(path: "/etc/hostname/manifest.json")
        }
    }
}
