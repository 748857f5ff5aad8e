import Foundation
import SoundtraceFingerprint
import SoundtraceTestSupport
import Testing

@testable import SoundtraceTools

/// `catalog add` and `catalog remove` on a scratch copy of two sample recordings.
@Suite(.serialized) struct CatalogEditTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .path

    /// A folder with a one-reference manifest and its built catalog.
    struct Scratch {
        let dir: String
        var manifest: String { dir + "/cat/manifest.json" }
        var catalog: String { dir + "/cat/c.catalog" }
        func audio(_ name: String) -> String { CatalogEditTests.root + "/catalog/audio/\(name).wav" }

        init() throws {
            dir = NSTemporaryDirectory() + "catalog-edit-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: dir + "/cat/audio", withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: CatalogEditTests.root + "/catalog/audio/harbor-lights-piano.wav",
                toPath: dir + "/cat/audio/harbor-lights-piano.wav")
            let text = ManifestWriter.text(
                version: 1,
                references: [
                    ReferenceAudio(
                        id: "harbor-lights-piano", title: "Harbor Lights", creator: "S", license: "CC0-1.0",
                        sourceFile: "audio/harbor-lights-piano.wav", metadata: [])
                ])
            try text.write(toFile: dir + "/cat/manifest.json", atomically: true, encoding: .utf8)
            let built = CLIRun(["catalog", "build", "--manifest", dir + "/cat/manifest.json", "--out", dir + "/cat/c.catalog"])
            try #require(built.status == .success, "\(built.err)")
        }

        func add(_ file: String, _ extra: [String]) -> CLIRun {
            CLIRun(["catalog", "add", file] + extra + ["--manifest", manifest, "--catalog", catalog])
        }
        func manifestText() throws -> String { try String(contentsOfFile: manifest, encoding: .utf8) }
    }

    static func write(_ samples: [Int16], rate: Int, to path: String) throws {
        let data = samples.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
        try Data(TestAudio.wav(rate: UInt32(rate), data: data)).write(to: URL(fileURLWithPath: path))
    }

    @Test func addingARecordingCopiesItWritesTheManifestAndSaysWhatIsNext() throws {
        let s = try Scratch()
        defer { try? FileManager.default.removeItem(atPath: s.dir) }
        let run = s.add(
            s.audio("summit-banners-brass"),
            [
                "--id", "summit-brass", "--title", "Summit Banners", "--creator", "Soundtrace project",
                "--license", "CC-BY-4.0", "--meta", "era=modern", "--meta=key=D major"
            ])
        #expect(run.status == .success, "\(run.err)")
        #expect(run.out.contains("added summit-brass") && run.out.contains("catalog build --manifest \(s.manifest)"))
        let manifest = try Manifest.load(path: s.manifest)
        #expect(manifest.references.map(\.id) == ["harbor-lights-piano", "summit-brass"])
        let added = try #require(manifest.references.last)
        #expect(added.sourceFile == "audio/summit-brass.wav" && added.license == "CC-BY-4.0")
        #expect(added.metadata == [.init(key: "era", value: "modern"), .init(key: "key", value: "D major")])
        #expect(FileManager.default.contentsEqual(atPath: s.dir + "/cat/audio/summit-brass.wav", andPath: s.audio("summit-banners-brass")))
        // And the result builds: the edit made a manifest `catalog build` takes.
        #expect(CLIRun(["catalog", "build", "--manifest", s.manifest, "--out", s.catalog]).status == .success)
        #expect(try CatalogFile.load(path: s.catalog).references.count == 2)
    }

    @Test func aRecordingAlreadyInTheCatalogIsRefusedAsTheSameFileOrTheSameSound() throws {
        let s = try Scratch()
        defer { try? FileManager.default.removeItem(atPath: s.dir) }
        let before = try s.manifestText()
        let same = s.add(s.audio("harbor-lights-piano"), ["--id", "again", "--title", "T", "--creator", "C", "--license", "CC0-1.0"])
        #expect(same.status == .inputError && same.err.contains("is the same file as catalog recording 'harbor-lights-piano'"))
        // Another file of the same music (a cut of it, re-encoded by a different writer).
        let recording = try RecordingLoader.load(path: s.audio("harbor-lights-piano")).audio
        let cut = s.dir + "/cut.wav"
        try Self.write(
            Array(recording.samples[(5 * recording.sampleRate)..<(45 * recording.sampleRate)]), rate: recording.sampleRate, to: cut)
        let sound = s.add(cut, ["--id", "again", "--title", "T", "--creator", "C", "--license", "CC0-1.0"])
        #expect(sound.status == .inputError && sound.err.contains("sounds like catalog recording 'harbor-lights-piano'"), "\(sound.err)")
        #expect(try s.manifestText() == before)
        #expect(!FileManager.default.fileExists(atPath: s.dir + "/cat/audio/again.wav"))
    }

    @Test func aRecordingAddedTwiceBeforeABuildIsRefusedTheSecondTime() throws {
        let s = try Scratch()
        defer { try? FileManager.default.removeItem(atPath: s.dir) }
        let fields = ["--title", "T", "--creator", "C", "--license", "CC0-1.0"]
        let first = s.add(s.audio("summit-banners-brass"), ["--id", "brass-one"] + fields)
        #expect(first.status == .success, "\(first.err)")
        let before = try s.manifestText()
        // The catalog file does not hold it yet; the manifest does.
        let second = s.add(s.audio("summit-banners-brass"), ["--id", "brass-two"] + fields)
        #expect(second.status == .inputError)
        #expect(second.err.contains("is the same file as the manifest's recording 'brass-one'"), "\(second.err)")
        #expect(try s.manifestText() == before)
        #expect(!FileManager.default.fileExists(atPath: s.dir + "/cat/audio/brass-two.wav"))
        // Had it been written by hand, the build refuses the pair.
        try ManifestWriter.text(
            version: 1,
            references: try Manifest.load(path: s.manifest).references + [
                ReferenceAudio(
                    id: "brass-two", title: "T", creator: "C", license: "CC0-1.0", sourceFile: "audio/brass-one.wav", metadata: [])
            ]
        ).write(toFile: s.manifest, atomically: true, encoding: .utf8)
        let build = CLIRun(["catalog", "build", "--manifest", s.manifest, "--out", s.catalog])
        #expect(build.status == .inputError)
        #expect(build.err.contains("references 'brass-one' and 'brass-two' have the same recording"), "\(build.err)")
    }

    @Test(arguments: [
        (["--license", "CC-BY"], "needs a version"),
        (["--license", "cc-by-4.0"], "is written 'CC-BY-4.0'"),
        (["--license", "MyOwnTerms"], "LicenseRef-"),
        (["--license", "CC-BY-4.0 AND"], "ends where a licence identifier"),
        (["--id", "Bad_Id"], "--id 'Bad_Id': an id is 3–64 characters"),
        (["--id", "harbor-lights-piano"], "already has a reference 'harbor-lights-piano'"),
        // Text the manifest would refuse, said in the options' terms.
        (["--title", "Harbor\nLights"], "--title contains control characters"),
        (["--title", String(repeating: "a", count: 201)], "--title is 201 characters; at most 200"),
        (["--creator", "   "], "--creator needs a value, not only spaces"),
        (["--creator", "A\u{202E}B"], "--creator contains U+202E, which reorders"),
        (["--meta", "key=a\u{7}b"], "--meta #1 contains control characters"),
        (["--meta", String(repeating: "k", count: 65) + "=v"], "--meta #1: a key is 1–64 characters, this one 65")
    ])
    func badFieldsAreRefusedBeforeAnythingIsWritten(change: [String], message: String) throws {
        let s = try Scratch()
        defer { try? FileManager.default.removeItem(atPath: s.dir) }
        var fields = ["--id": "brass", "--title": "T", "--creator": "C", "--license": "CC0-1.0"]
        fields[change[0]] = change[1]
        let before = try s.manifestText()
        let run = s.add(s.audio("summit-banners-brass"), fields.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] })
        #expect(run.status == .inputError && run.err.contains(message), "\(run.err)")
        #expect(try s.manifestText() == before)
        // Found before the recording is read: a missing file is not what is reported.
        let missing = s.add(s.dir + "/missing.wav", fields.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] })
        #expect(missing.status == .inputError && missing.err.contains(message), "\(missing.err)")
    }

    @Test func tooShortOrSilentFilesAreRefused() throws {
        let s = try Scratch()
        defer { try? FileManager.default.removeItem(atPath: s.dir) }
        let short = s.dir + "/short.wav"
        try Self.write(TestAudio.music(seed: 3, seconds: 3).samples, rate: 8000, to: short)
        #expect(
            s.add(short, ["--id", "short", "--title", "T", "--creator", "C", "--license", "CC0-1.0"]).err.contains("must last at least 6 s")
        )
        let silent = s.dir + "/silent.wav"
        try Self.write([Int16](repeating: 0, count: 20 * 8000), rate: 8000, to: silent)
        #expect(
            s.add(silent, ["--id", "silent", "--title", "T", "--creator", "C", "--license", "CC0-1.0"]).err.contains("is nearly silent"))
    }

    /// With only --manifest, the catalog is the one beside it: add checks it for duplicates, and the
    /// printed steps build, verify and install that file.
    @Test func withOnlyAManifestTheCatalogBesideItIsCheckedAndBuilt() throws {
        let s = try Scratch()
        defer { try? FileManager.default.removeItem(atPath: s.dir) }
        let beside = s.dir + "/cat/soundtrace.catalog"
        try FileManager.default.copyItem(atPath: s.catalog, toPath: beside)
        let same = CLIRun([
            "catalog", "add", s.audio("harbor-lights-piano"), "--id", "again", "--title", "T", "--creator", "C",
            "--license", "CC0-1.0", "--manifest", s.manifest
        ])
        #expect(same.status == .inputError && same.err.contains("as catalog recording 'harbor-lights-piano'"), "\(same.err)")
        let added = CLIRun([
            "catalog", "add", s.audio("summit-banners-brass"), "--id", "brass", "--title", "T", "--creator", "C",
            "--license", "CC0-1.0", "--manifest", s.manifest, "--json"
        ])
        #expect(added.status == .success, "\(added.err)")
        #expect(added.out.contains("catalog build --manifest \(s.manifest) --out \(beside)"))
        #expect(added.out.contains("catalog verify --catalog \(beside)\""))
        let built = CLIRun(["catalog", "build", "--manifest", s.manifest])
        #expect(built.status == .success, "\(built.err)")
        #expect(try CatalogFile.load(path: beside).references.map(\.audio.id).sorted() == ["brass", "harbor-lights-piano"])
        // A catalog elsewhere is verified against the manifest's recordings.
        let elsewhere = CLIRun(["catalog", "remove", "brass", "--manifest", s.manifest, "--catalog", s.dir + "/out.catalog"])
        #expect(elsewhere.out.contains("catalog verify --catalog \(s.dir)/out.catalog --audio-root \(s.dir)/cat"), "\(elsewhere.out)")
    }

    @Test func removingKeepsTheFileAndRefusesTheLastReference() throws {
        let s = try Scratch()
        defer { try? FileManager.default.removeItem(atPath: s.dir) }
        try #require(
            s.add(s.audio("summit-banners-brass"), ["--id", "brass", "--title", "T", "--creator", "C", "--license", "CC0-1.0"]).status
                == .success)
        let unknown = CLIRun(["catalog", "remove", "nope", "--manifest", s.manifest])
        #expect(unknown.status == .inputError && unknown.err.contains("has no reference 'nope'; it has brass, harbor-lights-piano"))
        let run = CLIRun(["catalog", "remove", "brass", "--manifest", s.manifest, "--json"])
        #expect(run.status == .success, "\(run.err)")
        #expect(run.out.contains("\"removed\": \"brass\"") && run.out.contains("\"references\": 1"))
        #expect(try Manifest.load(path: s.manifest).references.map(\.id) == ["harbor-lights-piano"])
        #expect(FileManager.default.fileExists(atPath: s.dir + "/cat/audio/brass.wav"))
        let last = CLIRun(["catalog", "remove", "harbor-lights-piano", "--manifest", s.manifest])
        #expect(last.status == .inputError && last.err.contains("only reference"))
    }
}
