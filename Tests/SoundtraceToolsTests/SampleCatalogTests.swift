import Foundation
import SoundtraceFingerprint
import SoundtraceTestSupport
import Testing

@testable import SoundtraceTools

/// The bundled sample catalog: reproducible, self-consistent, and recognizing its own recordings
/// through noise while refusing silence, noise and recordings that are not in it.
@Suite(.serialized) struct SampleCatalogTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .path
    static let manifestPath = root + "/catalog/manifest.json"
    static let catalogPath = root + "/catalog/soundtrace.catalog"
    /// The committed catalog's content hash (as `catalog build` prints it). It changes only when the
    /// recordings, the manifest, the engine's catalog parameters or the file format change; update
    /// it together with catalog/soundtrace.catalog.
    static let goldenCatalogHash = "9140f3bc14f8fb856cfb28567cdebf7781b1eba809417929f12efd1bdecee30a"

    static let catalog: Catalog = { try! CatalogFile.load(path: catalogPath) }()
    static let rate = 8000

    static func recording(_ id: String) throws -> PCMAudio {
        let reference = try #require(catalog.reference(id: id))
        return try RecordingLoader.load(path: root + "/catalog/" + reference.audio.sourceFile).audio
    }

    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "soundtrace-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func committedCatalogHasTheGoldenHash() throws {
        #expect(Self.catalog.manifest.hash == Self.goldenCatalogHash)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.catalogPath)))
        #expect(SHA256.hex(SHA256.digest(bytes.dropLast(40))) == Self.goldenCatalogHash)
        #expect(Self.catalog.references.count >= 6)
    }

    @Test func rebuildingGivesAByteIdenticalCatalog() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/rebuilt.catalog"
        let run = CLIRun(["catalog", "build", "--manifest", Self.manifestPath, "--out", out])
        #expect(run.status == .success, "\(run.err)")
        #expect(run.out.contains("sha256 \(Self.catalog.manifest.hash)"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data(contentsOf: URL(fileURLWithPath: Self.catalogPath)))
    }

    @Test func verifyProvesEveryRecordingMatchesItself() {
        let run = CLIRun(["catalog", "verify", "--catalog", Self.catalogPath])
        #expect(run.status == .success, "\(run.out)\(run.err)")
        #expect(run.out.components(separatedBy: "\nok   ").count - 1 == Self.catalog.references.count)
        #expect(run.out.hasSuffix("verified: every recording matches itself at the right offset\n"))
    }

    @Test func verifyFailsWhenARecordingIsNotTheOneIndexed() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/audio", withIntermediateDirectories: true)
        for reference in Self.catalog.references {
            try FileManager.default.copyItem(
                atPath: Self.root + "/catalog/" + reference.audio.sourceFile,
                toPath: dir + "/" + reference.audio.sourceFile)
        }
        // Swap two recordings: each file is valid audio, but not the one indexed under its name.
        let a = dir + "/" + Self.catalog.references[0].audio.sourceFile
        let b = dir + "/" + Self.catalog.references[1].audio.sourceFile
        try FileManager.default.moveItem(atPath: a, toPath: dir + "/swap.wav")
        try FileManager.default.moveItem(atPath: b, toPath: a)
        try FileManager.default.moveItem(atPath: dir + "/swap.wav", toPath: b)
        let run = CLIRun(["catalog", "verify", "--catalog", Self.catalogPath, "--audio-root", dir])
        #expect(run.status == .checkFailed)
        #expect(run.out.contains("FAIL \(Self.catalog.references[0].audio.id): "))
        #expect(run.out.contains("SHA-256 differs"))
        #expect(run.err.contains("2 of \(Self.catalog.references.count) recordings failed"))
    }

    /// Every recording in loud pink noise is named at the right offset, or else honestly not named:
    /// the whole-mix bars (EngineParameters, containment) give up a few noisy matches to name no
    /// recording that only shares a layer with a catalog one (docs/BENCHMARKS.md: about 1 % of
    /// noisy queries). Here one of the seven 8 s clips at 0 dB falls to that (tidepool: 0.087 dB
    /// short, signatures 18 % off), so one miss per level is allowed, and never a wrong recording.
    @Test(arguments: [0.0, -5.0])
    func everyRecordingThroughPinkNoiseMatchesAtTheRightOffset(snr: Double) throws {
        var misses: [String] = []
        for (index, reference) in Self.catalog.references.enumerated() {
            let audio = try Self.recording(reference.audio.id)
            let start = audio.samples.count / 3 + 101
            let clip = TestAudio.addPinkNoise(
                TestAudio.excerpt(audio, from: start, count: 8 * Self.rate), snrDB: snr, seed: UInt64(index + 1))
            let verdict = try TestAudio.match(clip, Self.catalog)
            guard verdict.isMatch else {
                misses.append(reference.audio.id)
                continue
            }
            #expect(verdict.candidate == index, "\(reference.audio.id) at \(snr) dB named another recording: \(verdict)")
            let offset = Self.catalog.parameters.seconds(forFrames: verdict.offsetFrames)
            #expect(abs(offset - Double(start) / Double(Self.rate)) <= 0.05, "\(reference.audio.id): \(offset)")
        }
        #expect(misses.count <= 1, "not recognized at \(snr) dB: \(misses)")
    }

    @Test func silenceNoiseAndOutsideRecordingsAreNoMatch() throws {
        var queries: [(String, PCMAudio)] = [
            ("silence", PCMAudio(sampleRate: Self.rate, samples: [Int16](repeating: 0, count: 10 * Self.rate))),
            ("white noise", TestAudio.noise(seed: 5, count: 10 * Self.rate, rms: 2000)),
            ("pink noise", TestAudio.pinkNoise(seed: 6, count: 10 * Self.rate, rms: 3000)),
            ("synthetic music", TestAudio.music(seed: 42, seconds: 10))
        ]
        for name in ["quiet-ferry-piano", "salt-meadow-mallets"] {
            let audio = try RecordingLoader.load(path: Self.root + "/catalog/outside/\(name).wav").audio
            for start in stride(from: 0, to: audio.samples.count - 10 * Self.rate, by: 17 * Self.rate / 10) {
                queries.append(("\(name)@\(start / Self.rate)", TestAudio.excerpt(audio, from: start, count: 10 * Self.rate)))
            }
            queries.append((name, audio))
        }
        for (name, query) in queries {
            let verdict = try TestAudio.match(query, Self.catalog)
            #expect(verdict.outcome == .noMatch, "\(name): \(verdict)")
        }
    }

    /// The outside pieces share instruments, scale and tempo with catalog pieces: in noise, where
    /// landmark hits are few and the signature check decides, they must still not match.
    @Test(arguments: [0.0, -5.0])
    func outsideRecordingsInNoiseAreNoMatch(snr: Double) throws {
        var strongest = -Double.infinity
        var strongestWide = -Double.infinity
        for (n, name) in ["quiet-ferry-piano", "salt-meadow-mallets"].enumerated() {
            let audio = try RecordingLoader.load(path: Self.root + "/catalog/outside/\(name).wav").audio
            for start in stride(from: 0, to: audio.samples.count - 5 * Self.rate, by: 23 * Self.rate / 10) {
                let clip = TestAudio.addPinkNoise(
                    TestAudio.excerpt(audio, from: start, count: 5 * Self.rate), snrDB: snr,
                    seed: UInt64(100 * n + start / Self.rate))
                let verdict = try TestAudio.match(clip, Self.catalog)
                #expect(verdict.outcome == .noMatch, "\(name)@\(start / Self.rate) at \(snr) dB: \(verdict)")
                strongest = max(strongest, verdict.signatureScore ?? -.infinity)
                strongestWide = max(strongestWide, verdict.wideSignatureScore ?? -.infinity)
            }
        }
        // At least a quarter below the first round's bar of 3.0: the strongest is 2.65 (the piano piece
        // 23 s in, at 0 dB, against the strings: 6 hits to 5, by chance) since the signatures reach
        // down to 156 Hz; it was 1.79 before, when this asked for half (docs/BENCHMARKS.md, run 21).
        #expect(strongest * 4096 < Double(Self.catalog.parameters.signatureMinScoreQ12) - 1024, "strongest signature score \(strongest)")
        #expect(
            strongestWide * 4096 < Double(Self.catalog.parameters.signatureWideMinScoreQ12) - 4096,
            "strongest wide signature score \(strongestWide)")
    }

    @Test func aTooShortFileIsSaidToBeTooShortAndALongOneToBeCut() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recording = try RecordingLoader.load(path: Self.root + "/catalog/" + Self.catalog.references[2].audio.sourceFile).audio
        func write(_ audio: PCMAudio, _ name: String) throws -> String {
            try Data(TestAudio.wavFile(audio)).write(to: URL(fileURLWithPath: dir + "/" + name))
            return dir + "/" + name
        }
        // A clean second and a half of a catalog recording: every landmark check passes, but the
        // whole-mix check needs more.
        let short = try write(TestAudio.excerpt(recording, from: 20 * Self.rate, count: 3 * Self.rate / 2), "short.wav")
        let run = CLIRun(["match", "--catalog", Self.catalogPath, short])
        #expect(run.status == .success)
        #expect(run.out.contains("no match (too short to decide: a match needs about 1.7 s of audio or more)"), "\(run.out)")
        // Two seconds are enough.
        let enough = try write(TestAudio.excerpt(recording, from: 20 * Self.rate, count: 2 * Self.rate), "enough.wav")
        #expect(CLIRun(["match", "--catalog", Self.catalogPath, enough]).out.contains(": match \(Self.catalog.references[2].audio.id)"))
        // 31 s of silence, then the recording: the verdict says that only 30 s were looked at.
        let late = try write(
            PCMAudio(
                sampleRate: Self.rate,
                samples: [Int16](repeating: 0, count: 31 * Self.rate) + TestAudio.excerpt(recording, from: 0, count: 10 * Self.rate).samples
            ),
            "late.wav")
        let cut = CLIRun(["match", "--catalog", Self.catalogPath, late])
        #expect(cut.out.contains("no match (silence or too quiet) — only its first 30 s were analysed"), "\(cut.out)")
    }

    @Test func matchPrintsOneJSONObjectPerFile() throws {
        let outside = Self.root + "/catalog/outside/quiet-ferry-piano.wav"
        let inside = Self.root + "/catalog/" + Self.catalog.references[2].audio.sourceFile
        let run = CLIRun(["match", "--catalog", Self.catalogPath, "--json", inside, outside, "/nonexistent.wav"])
        #expect(run.status == .inputError)
        let lines = run.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        let objects = try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects[0]["outcome"] as? String == "match")
        #expect(objects[0]["referenceId"] as? String == Self.catalog.references[2].audio.id)
        #expect(objects[0]["title"] as? String == Self.catalog.references[2].audio.title)
        #expect(objects[0]["creator"] as? String == Self.catalog.references[2].audio.creator)
        #expect((objects[0]["offsetSeconds"] as? Double).map { abs($0) < 0.02 } == true)
        #expect((objects[0]["score"] as? Int).map { $0 > 100 } == true)
        #expect(objects[1]["outcome"] as? String == "noMatch")
        #expect(objects[1]["referenceId"] is NSNull)
        #expect(objects[2]["outcome"] as? String == "failed")
        #expect((objects[2]["error"] as? String)?.contains("/nonexistent.wav") == true)
        for object in objects {
            for key in ["file", "outcome", "referenceId", "title", "creator", "offsetSeconds", "score"] {
                #expect(object[key] != nil, "missing \(key)")
            }
        }
    }

    /// `match` (and `explain`) hashes the catalog on a second thread while it matches the first file, and prints
    /// nothing before that check passed: from a catalog whose bulk is damaged where this match does
    /// not read (the last recording's levels), no verdict, text or JSON, only the load's error
    /// and exit 3, as when it hashed before matching.
    @Test func aMatchIsNotPrintedFromACatalogThatFailsItsContentCheck() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Self.catalogPath))
        bytes[bytes.count - 2000] ^= 0x40
        let damaged = dir + "/damaged.catalog"
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let inside = Self.root + "/catalog/" + Self.catalog.references[2].audio.sourceFile
        for json in [false, true] {
            let run = CLIRun(["match", "--catalog", damaged] + (json ? ["--json"] : []) + [inside, inside])
            #expect(run.status == .inputError)
            #expect(run.out.isEmpty, "\(run.out)")
            let corrupt = "is corrupt: its content does not match its SHA-256; copy it again or rebuild it with: soundtrace catalog build"
            #expect(run.err == "soundtrace match: catalog \(damaged) \(corrupt)\n", "\(run.err)")
        }
        // `explain` checks the same way: no picture and no verdict from the damaged catalog.
        let picture = dir + "/why.svg"
        let explained = CLIRun(["explain", "--catalog", damaged, inside, "--svg", picture])
        #expect(explained.status == .inputError && explained.out.isEmpty, "\(explained.out)")
        #expect(explained.err.hasPrefix("soundtrace explain: catalog \(damaged) is corrupt"), "\(explained.err)")
        #expect(!FileManager.default.fileExists(atPath: picture))
        // The same file undamaged: the match is printed, and explained.
        let sound = dir + "/sound.catalog"
        try Data(contentsOf: URL(fileURLWithPath: Self.catalogPath)).write(to: URL(fileURLWithPath: sound))
        let run = CLIRun(["match", "--catalog", sound, inside])
        #expect(run.status == .success && run.out.contains(": match \(Self.catalog.references[2].audio.id)"), "\(run.out)")
        let shown = CLIRun(["explain", "--catalog", sound, inside, "--svg", picture])
        #expect(shown.status == .success && shown.out.contains("picture: \(picture)"), "\(shown.out)")
        #expect(FileManager.default.fileExists(atPath: picture))
    }

    @Test func listAndShowBrowseTheCatalog() {
        let list = CLIRun(["catalog", "list", "--catalog", Self.catalogPath])
        #expect(list.status == .success)
        for reference in Self.catalog.references {
            #expect(list.out.contains("\(reference.audio.id)  "))
        }
        let id = Self.catalog.references[0].audio.id
        let show = CLIRun(["catalog", "show", "--catalog", Self.catalogPath, id])
        #expect(show.status == .success)
        #expect(show.out.hasPrefix("id: \(id)\ntitle: \(Self.catalog.references[0].audio.title)\n"))
        #expect(show.out.contains("license: CC0-1.0\n"))
        let missing = CLIRun(["catalog", "show", "--catalog", Self.catalogPath, "no-such-id"])
        #expect(missing.status == .inputError)
        #expect(missing.err.contains("no recording 'no-such-id'"))
    }

    @Test func listAndShowReadTheStructureAndSayWhatChecksTheRest() throws {
        // One byte of the index entries changed: the structure is intact, the content hash is not.
        let folder = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.catalogPath)))
        bytes[bytes.count / 2] ^= 0x10
        let damaged = folder + "/damaged.catalog"
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let list = CLIRun(["catalog", "list", "--catalog", damaged])
        #expect(list.status == .success)
        #expect(
            list.out.contains("sha256 \(Self.goldenCatalogHash) (as the file states it; `soundtrace catalog verify` checks the contents)"))
        let id = Self.catalog.references[0].audio.id
        let show = CLIRun(["catalog", "show", "--catalog", damaged, id])
        #expect(show.status == .success)
        #expect(
            show.out.hasSuffix(
                "catalog: version 1, sha256 \(Self.goldenCatalogHash) (as the file states it; `soundtrace catalog verify` checks the contents)\n"
            ))
        let verify = CLIRun(["catalog", "verify", "--catalog", damaged])
        #expect(verify.status != .success)
        let match = CLIRun(["match", "--catalog", damaged, Self.root + "/catalog/" + Self.catalog.references[0].audio.sourceFile])
        #expect(match.status == .inputError)
        #expect(match.err.contains("damaged.catalog"))
    }
}
