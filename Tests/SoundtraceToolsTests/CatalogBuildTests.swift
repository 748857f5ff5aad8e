import Foundation
import SoundtraceFingerprint
import SoundtraceTestSupport
import Testing

@testable import SoundtraceTools

/// `catalog build` on several threads and incrementally: the same bytes whatever the number of
/// jobs and whatever the old catalog holds.
@Suite(.serialized) struct CatalogBuildTests {
    static let root = SampleCatalogTests.root
    static let sample = root + "/catalog/soundtrace.catalog"

    /// A scratch folder with copies of the sample recordings named `ids` and a manifest of them.
    struct Scratch {
        let dir: String
        var manifest: String { dir + "/manifest.json" }

        init() throws {
            dir = NSTemporaryDirectory() + "catalog-build-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: dir + "/audio", withIntermediateDirectories: true)
        }

        func copy(_ id: String, as name: String? = nil) throws {
            try FileManager.default.copyItem(atPath: root + "/catalog/audio/\(id).wav", toPath: dir + "/audio/\(name ?? id).wav")
        }

        func writeManifest(_ ids: [String]) throws {
            let references = ids.map {
                ReferenceAudio(id: $0, title: $0, creator: "S", license: "CC0-1.0", sourceFile: "audio/\($0).wav", metadata: [])
            }
            try ManifestWriter.text(version: 1, references: references).write(toFile: manifest, atomically: true, encoding: .utf8)
        }

        func build(_ out: String, _ extra: [String] = []) -> CLIRun {
            CLIRun(["catalog", "build", "--manifest", manifest, "--out", dir + "/" + out] + extra)
        }

        func bytes(_ out: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: dir + "/" + out)) }

        func remove() { try? FileManager.default.removeItem(atPath: dir) }
    }

    @Test func everyNumberOfJobsGivesTheSampleCatalogToTheByte() throws {
        let dir = try SampleCatalogTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for jobs in ["1", "2", "4"] {
            let out = dir + "/jobs-\(jobs).catalog"
            let run = CLIRun(
                ["catalog", "build", "--manifest", SampleCatalogTests.manifestPath, "--out", out, "--jobs", jobs], interactive: true)
            #expect(run.status == .success, "\(run.err)")
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: out)) == Data(contentsOf: URL(fileURLWithPath: Self.sample)), "--jobs \(jobs)")
            // On a terminal the progress line ends with every reference done.
            #expect(run.err.contains("[7/7] references, "), "\(run.err)")
            #expect(!run.out.contains("reused"))
        }
    }

    @Test func aRebuildReusesUnchangedRecordingsAndGivesTheSameBytesAsAFullBuild() throws {
        let s = try Scratch()
        defer { s.remove() }
        for id in ["harbor-lights-piano", "northern-glass-strings", "summit-banners-brass"] { try s.copy(id) }
        try s.writeManifest(["harbor-lights-piano", "northern-glass-strings", "summit-banners-brass"])
        let first = s.build("c.catalog", ["--jobs", "2"])
        try #require(first.status == .success, "\(first.err)")
        #expect(!first.out.contains("reused"))

        // One recording replaced by another sound under the same name, one added.
        try FileManager.default.removeItem(atPath: s.dir + "/audio/northern-glass-strings.wav")
        try s.copy("lamplight-organ-trio", as: "northern-glass-strings")
        try s.copy("orchard-lantern-waltz")
        try s.writeManifest(["harbor-lights-piano", "northern-glass-strings", "orchard-lantern-waltz", "summit-banners-brass"])
        let again = s.build("c.catalog", ["--jobs", "2"])
        #expect(again.status == .success, "\(again.err)")
        #expect(again.out.contains("reused 2 of 4 fingerprints from the previous catalog"), "\(again.out)")

        let full = s.build("full.catalog", ["--jobs", "1"])
        #expect(full.status == .success, "\(full.err)")
        #expect(try s.bytes("c.catalog") == s.bytes("full.catalog"))
        // The same summary: reused recordings count their full length and landmarks.
        let summary = { (run: CLIRun) in run.out.split(separator: "\n").first?.split(separator: ":").last }
        #expect(summary(full) == summary(again) && summary(full) != nil, "\(full.out)\(again.out)")

        // --full over an existing catalog analyses everything and reports no reuse.
        let forced = s.build("c.catalog", ["--full"])
        #expect(forced.status == .success && !forced.out.contains("reused"), "\(forced.out)")
        #expect(try s.bytes("c.catalog") == s.bytes("full.catalog"))
    }

    @Test(arguments: [
        ([UInt8]("garbage".utf8), "it is not a Soundtrace catalog"),
        (Array(CatalogFile.magic) + [9, 0, 0, 0], "it has format version 9, this soundtrace writes version \(CatalogFile.formatVersion)")
    ])
    func anUnusableOldCatalogMeansAFullBuildNotAnError(old: [UInt8], reason: String) throws {
        let s = try Scratch()
        defer { s.remove() }
        try s.copy("harbor-lights-piano")
        try s.writeManifest(["harbor-lights-piano"])
        try #require(s.build("good.catalog").status == .success)
        try Data(old).write(to: URL(fileURLWithPath: s.dir + "/c.catalog"))
        let run = s.build("c.catalog")
        #expect(run.status == .success, "\(run.err)")
        #expect(run.out.hasPrefix("not reusing \(s.dir)/c.catalog: \(reason); analysing every recording\n"), "\(run.out)")
        #expect(try s.bytes("c.catalog") == s.bytes("good.catalog"))
    }

    @Test func aDamagedOldCatalogIsRebuiltInFull() throws {
        let s = try Scratch()
        defer { s.remove() }
        try s.copy("harbor-lights-piano")
        try s.writeManifest(["harbor-lights-piano"])
        try #require(s.build("good.catalog").status == .success)
        var damaged = [UInt8](try s.bytes("good.catalog"))
        damaged[damaged.count / 2] ^= 0xFF
        try Data(damaged).write(to: URL(fileURLWithPath: s.dir + "/c.catalog"))
        let run = s.build("c.catalog")
        #expect(run.status == .success && run.out.contains(": it is damaged; analysing every recording"), "\(run.out)")
        #expect(try s.bytes("c.catalog") == s.bytes("good.catalog"))
    }

    @Test func theCatalogIsNeverWrittenOverARecordingOrTheManifest() throws {
        let s = try Scratch()
        defer { s.remove() }
        try s.copy("harbor-lights-piano")
        try s.writeManifest(["harbor-lights-piano"])
        let recording = try s.bytes("audio/harbor-lights-piano.wav")
        let manifest = try s.bytes("manifest.json")
        try FileManager.default.copyItem(atPath: s.dir + "/manifest.json", toPath: s.dir + "/other.json")
        for out in ["audio/harbor-lights-piano.wav", "manifest.json", "other.json", "audio/../manifest.json"] {
            for extra in [[], ["--full"]] {
                let run = s.build(out, extra)
                #expect(run.status == .inputError)
                #expect(run.err.contains("\(s.dir)/\(out) exists and is "), "\(run.err)")
                #expect(run.err.contains("; refusing to replace it"), "\(run.err)")
            }
        }
        #expect(try s.bytes("audio/harbor-lights-piano.wav") == recording)
        #expect(try s.bytes("manifest.json") == manifest)
        // An empty file, or its own earlier output, is replaced.
        #expect(FileManager.default.createFile(atPath: s.dir + "/empty.catalog", contents: Data()))
        #expect(s.build("empty.catalog").status == .success)
        #expect(s.build("empty.catalog", ["--full"]).status == .success)
    }

    @Test func aSilentRecordingIsRefusedNotIndexedAsNothing() throws {
        let s = try Scratch()
        defer { s.remove() }
        try s.copy("harbor-lights-piano")
        let silence = PCMAudio(sampleRate: 16000, samples: [Int16](repeating: 0, count: 8 * 16000))
        try Data(TestAudio.wavFile(silence)).write(to: URL(fileURLWithPath: s.dir + "/audio/quiet-room.wav"))
        try s.writeManifest(["harbor-lights-piano", "quiet-room"])
        let run = s.build("c.catalog")
        #expect(run.status == .inputError)
        #expect(run.err.contains("reference 'quiet-room': \(s.dir)/audio/quiet-room.wav gives no landmarks"), "\(run.err)")
        #expect(!FileManager.default.fileExists(atPath: s.dir + "/c.catalog"))
    }

    @Test func theFirstFailingReferenceInManifestOrderIsReportedWhateverTheJobs() throws {
        let s = try Scratch()
        defer { s.remove() }
        try s.copy("harbor-lights-piano")
        let short = TestAudio.wavFile(TestAudio.music(seed: 3, seconds: 2))
        try Data(short).write(to: URL(fileURLWithPath: s.dir + "/audio/short.wav"))
        // The third is missing: a worker may reach it first, but the second fails first in order.
        try s.writeManifest(["harbor-lights-piano", "short", "missing"])
        var errors: [String] = []
        for jobs in ["1", "2", "3"] {
            let run = s.build("c.catalog", ["--jobs", jobs])
            #expect(run.status == .inputError)
            errors.append(run.err)
        }
        #expect(
            errors[0].hasPrefix("soundtrace catalog build: reference 'short': \(s.dir)/audio/short.wav lasts 2.000 s; "), "\(errors[0])")
        #expect(errors.allSatisfy { $0 == errors[0] }, "\(errors)")
        #expect(!FileManager.default.fileExists(atPath: s.dir + "/c.catalog"))
    }

    @Test(arguments: ["0", "x", "65", "-1", "2.5"])
    func jobsOutsideOneToSixtyFourAreUsageErrors(jobs: String) {
        let run = CLIRun(["catalog", "build", "--jobs", jobs, "--out", "/nonexistent/never.catalog"])
        #expect(run.status == .usage)
        #expect(run.err.hasPrefix("soundtrace catalog build: --jobs takes a whole number from 1 to 64, not '\(jobs)'\n"), "\(run.err)")
        #expect(run.out.isEmpty)
    }
}

@Suite struct CatalogBuildProgressTests {
    @Test func theLineCountsReferencesAndAudioAndEstimatesOnlyOnceThePaceIsKnown() {
        var progress = CatalogBuildProgress(references: 4, totalSeconds: 400)
        #expect(progress.line(elapsedSeconds: 0) == "[0/4] references, 0/400 s of audio")
        progress.finished(seconds: 100, reused: true)
        // Reused work says nothing about the pace.
        #expect(progress.line(elapsedSeconds: 5) == "[1/4] references, 100/400 s of audio, 1 reused")
        progress.finished(seconds: 100, reused: false)
        // 100 s analysed in 4 s: 200 s left at that pace take 8 s.
        #expect(progress.secondsLeft(elapsedSeconds: 4) == 8)
        #expect(progress.line(elapsedSeconds: 4) == "[2/4] references, 200/400 s of audio, 1 reused, about 8 s left")
        // Too early to judge: under 2 s of work.
        #expect(progress.secondsLeft(elapsedSeconds: 1) == nil)
    }

    @Test func aTinyShareDoneGivesNoEstimate() {
        var progress = CatalogBuildProgress(references: 100, totalSeconds: 10_000)
        progress.finished(seconds: 100, reused: false)
        #expect(progress.secondsLeft(elapsedSeconds: 10) == nil)
    }

    @Test(
        arguments: [(0.4, "0 s"), (59.4, "59 s"), (61.0, "1 min 1 s"), (3599.0, "59 min 59 s"), (3725.0, "1 h 2 min")] as [(Double, String)]
    )
    func durationsReadAsPeopleSayThem(seconds: Double, text: String) {
        #expect(CatalogBuildProgress.duration(seconds) == text)
    }
}
