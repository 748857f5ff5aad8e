import Foundation
import SoundtraceFingerprint
import SoundtraceTestSupport
import Testing

@testable import SoundtraceTools

/// `soundtrace explain`: the picture is rendered by a real SVG renderer, and it says the verdict
/// and the bars.
@Suite(.serialized) struct ExplainCommandTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .path
    static let catalog = root + "/catalog/soundtrace.catalog"
    static let renderer = "/usr/bin/rsvg-convert"

    static func wav(_ audio: PCMAudio, _ path: String) throws {
        let data = audio.samples.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
        try Data(TestAudio.wav(rate: UInt32(audio.sampleRate), data: data)).write(to: URL(fileURLWithPath: path))
    }

    /// Renders `svg` to PNG and returns its width and height (from the IHDR chunk).
    static func render(_ svg: String) throws -> (Int, Int) {
        let png = svg + ".png"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: renderer)
        process.arguments = [svg, "-o", png]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "rsvg-convert could not render \(svg)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: png)))
        try #require(bytes.count > 24 && bytes[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        func u32(_ at: Int) -> Int { bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (u32(16), u32(20))
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: renderer), "needs rsvg-convert (librsvg2-bin; scripts/setup.sh installs it)"))
    func aMatchIsPicturedWithEveryCheckPassing() throws {
        let dir = try SampleCatalogTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recording = try RecordingLoader.load(path: Self.root + "/catalog/audio/harbor-lights-piano.wav").audio
        try Self.wav(TestAudio.excerpt(recording, from: 30 * 8000, count: 6 * 8000), dir + "/q.wav")
        let run = CLIRun(["explain", "--catalog", Self.catalog, dir + "/q.wav", "--svg", dir + "/q.svg"])
        #expect(run.status == .success, "\(run.err)")
        #expect(run.out.hasPrefix("Match: \"Harbor Lights at Dusk\""))
        let svg = try String(contentsOfFile: dir + "/q.svg", encoding: .utf8)
        #expect(svg.contains("Match: &quot;Harbor Lights at Dusk&quot;") && !svg.contains(">FAIL<"))
        #expect(svg.contains("needs at least 10") && svg.contains("needs at most 0.45") && svg.contains("needs at most 0.06 dB"))
        #expect(svg.contains("data:image/png;base64,"))
        let (width, height) = try Self.render(dir + "/q.svg")
        #expect(width == 1000 && height > 800)
        let json = CLIRun(["explain", "--catalog", Self.catalog, dir + "/q.wav", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        #expect(object["outcome"] as? String == "match")
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(checks.count >= 5 && checks.allSatisfy { $0["passed"] as? Bool == true })
        let candidates = try #require(object["candidates"] as? [[String: Any]])
        #expect(candidates.first?["referenceId"] as? String == "harbor-lights-piano")
        // The match was a candidate, so common hashes voted for it too; nothing was forgotten.
        #expect(candidates.first?["countsCommonHashes"] as? Bool == true)
        #expect(object["candidateHits"] is Int && object["forgottenVotes"] as? Int == 0 && object["refusedVotes"] as? Int == 0)
    }

    /// Under white noise 4 dB louder than the music too few landmarks survive (7 aligned hits, 10
    /// needed), and the frame signatures name the recording: the landmark bars were not needed, so
    /// they are shown without a verdict, never as failed checks under a match.
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: renderer), "needs rsvg-convert (librsvg2-bin; scripts/setup.sh installs it)"))
    func aMatchTheSignaturesDecidedShowsNoFailedCheck() throws {
        let dir = try SampleCatalogTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recording = try RecordingLoader.load(path: Self.root + "/catalog/audio/harbor-lights-piano.wav").audio
        let heard = TestAudio.addNoise(TestAudio.excerpt(recording, from: 30 * 8000, count: 6 * 8000), snrDB: -4, seed: 3)
        try Self.wav(heard, dir + "/n.wav")
        let run = CLIRun(["explain", "--catalog", Self.catalog, dir + "/n.wav", "--svg", dir + "/n.svg"])
        #expect(run.status == .success, "\(run.err)")
        #expect(run.out.hasPrefix("Match: \"Harbor Lights at Dusk\""), "\(run.out)")
        #expect(run.out.contains("the landmark hits alone did not decide; the frame signatures did"), "\(run.out)")
        #expect(!run.out.contains("FAIL"), "\(run.out)")
        #expect(run.out.contains("aligned landmark hits: 7 (not needed: the signature score decided) (needs at least 10)"), "\(run.out)")
        let svg = try String(contentsOfFile: dir + "/n.svg", encoding: .utf8)
        #expect(svg.contains("the frame signatures did") && !svg.contains(">FAIL<"))
        let json = CLIRun(["explain", "--catalog", Self.catalog, dir + "/n.wav", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(checks.prefix(3).allSatisfy { $0["passed"] is NSNull }, "the landmark rule: shown, not judged")
        #expect(checks.dropFirst(3).allSatisfy { $0["passed"] as? Bool == true })
        #expect(checks.contains { ($0["name"] as? String)?.hasPrefix("signature score") == true })
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: renderer), "needs rsvg-convert (librsvg2-bin; scripts/setup.sh installs it)"))
    func aNoMatchSaysWhichCheckFailed() throws {
        let dir = try SampleCatalogTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let outside = try RecordingLoader.load(path: Self.root + "/catalog/outside/salt-meadow-mallets.wav").audio
        try Self.wav(TestAudio.excerpt(outside, from: 10 * 8000, count: 8 * 8000), dir + "/o.wav")
        let run = CLIRun(["explain", "--catalog", Self.catalog, dir + "/o.wav", "--svg", dir + "/o.svg"])
        #expect(run.status == .success, "\(run.err)")
        #expect(run.out.hasPrefix("No match:") && run.out.contains("FAIL"), "\(run.out)")
        let svg = try String(contentsOfFile: dir + "/o.svg", encoding: .utf8)
        #expect(svg.contains("No match:") && svg.contains(">FAIL<"))
        #expect(try Self.render(dir + "/o.svg").0 == 1000)
    }

    @Test func thePictureIsNeverWrittenOverARecordingOrACatalog() throws {
        let dir = try SampleCatalogTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recording = try RecordingLoader.load(path: Self.root + "/catalog/audio/harbor-lights-piano.wav").audio
        try Self.wav(TestAudio.excerpt(recording, from: 30 * 8000, count: 4 * 8000), dir + "/q.wav")
        try Self.wav(TestAudio.excerpt(recording, from: 50 * 8000, count: 4 * 8000), dir + "/other.wav")
        try FileManager.default.copyItem(atPath: Self.catalog, toPath: dir + "/c.catalog")
        let before = try [dir + "/q.wav", dir + "/other.wav", dir + "/c.catalog"].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        // Its own input, a swapped argument, the catalog.
        for out in [dir + "/q.wav", dir + "/other.wav", dir + "/c.catalog"] {
            let run = CLIRun(["explain", "--catalog", dir + "/c.catalog", dir + "/q.wav", "--svg", out])
            #expect(run.status == .inputError)
            #expect(run.err.contains("\(out) exists and is not an SVG picture; refusing to replace it"), "\(run.err)")
        }
        let after = try [dir + "/q.wav", dir + "/other.wav", dir + "/c.catalog"].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        #expect(after == before)
        // An earlier picture is replaced.
        #expect(CLIRun(["explain", "--catalog", dir + "/c.catalog", dir + "/q.wav", "--svg", dir + "/q.svg"]).status == .success)
        #expect(CLIRun(["explain", "--catalog", dir + "/c.catalog", dir + "/other.wav", "--svg", dir + "/q.svg"]).status == .success)
    }

    @Test func thePNGInsideIsWellFormed() {
        // The IEND chunk's CRC is fixed by the PNG specification; base64 by RFC 4648's test vectors.
        #expect(PNGEncoder.crc32(Array("IEND".utf8)) == 0xAE42_6082)
        #expect(PNGEncoder.base64(Array("foobar".utf8)) == "Zm9vYmFy" && PNGEncoder.base64(Array("fo".utf8)) == "Zm8=")
        let png = PNGEncoder.grayscale(width: 3, height: 2, pixels: [0, 128, 255, 1, 2, 3])
        #expect(png.suffix(12) == [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])
    }

    /// A bar too long for the picture's width is broken at spaces; nothing is lost or cut.
    @Test func longBarsWrapAtSpaces() {
        #expect(ExplainSVG.wrapped("needs at most 10", columns: 40) == ["needs at most 10"])
        #expect(ExplainSVG.wrapped("aa bb cc dd", columns: 5) == ["aa bb", "cc dd"])
        #expect(ExplainSVG.wrapped("abcdefgh ij", columns: 5) == ["abcdefgh", "ij"])
        let bars = String(repeating: "at most 0.06 dB short, or 0.4 dB with signatures within 0.14 ", count: 4)
        let lines = ExplainSVG.wrapped(bars, columns: ExplainSVG.barColumns)
        #expect(lines.count > 1 && lines.allSatisfy { $0.count <= ExplainSVG.barColumns })
        #expect(lines.joined(separator: " ") == bars)
    }

    @Test func badCommandLinesAreUsageErrors() {
        #expect(CLIRun(["explain"]).status == .usage)
        #expect(CLIRun(["explain", "a.wav", "b.wav"]).status == .usage)
        let missing = CLIRun(["explain", "--catalog", Self.catalog, "/nonexistent.wav"])
        #expect(missing.status == .inputError)
        #expect(missing.err.components(separatedBy: "/nonexistent.wav").count == 2, "the file named once: \(missing.err)")
        // The window is --device's; a file is explained whole, as `match` says too.
        let seconds = CLIRun(["explain", "--catalog", Self.catalog, "--seconds", "5", "a.wav"])
        #expect(seconds.status == .usage && seconds.err.contains("a file's first 30 s are explained"))
        let outside = CLIRun(["explain", "--device", "null", "--seconds", "50"])
        #expect(outside.status == .usage && outside.err.contains("outside 3–30 s"), "\(outside.err)")
    }

    /// What a live explain printed, and its exit status.
    final class LiveExplain: @unchecked Sendable {
        // @unchecked: written by the console on the test's thread only.
        var out = ""
        var err = ""
        var status = ExitCode.success

        init(_ source: PCMAudioSource, catalog: Catalog, svg: String) {
            let console = Console(isInteractive: false, out: { self.out += $0 }, err: { self.err += $0 })
            status = ExplainCommand(console: console).runLive(
                source: source, catalog: catalog, settings: .standard, svg: svg, json: false, installInterruptHandler: false)
        }
    }

    /// `--device`: one live session (a simulated microphone playing a catalog recording), then the
    /// picture of what it heard, ending early on the match.
    @Test func aLiveCaptureIsExplainedAfterItsSession() throws {
        let dir = try SampleCatalogTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let catalog = try CatalogFile.load(path: Self.catalog)
        let source = PCMAudioSource(samples: try LiveSessionTests.clip(), rate: 8000)
        let run = LiveExplain(source, catalog: catalog, svg: dir + "/live.svg")
        #expect(run.status == .success, "\(run.err)")
        #expect(run.out.hasPrefix("Match: \"\(catalog.references[3].audio.title)\""), "\(run.out)")
        let svg = try String(contentsOfFile: dir + "/live.svg", encoding: .utf8)
        #expect(svg.contains("live capture on") && svg.contains("needs at least 10"))
        #expect(!source.isDeviceOpen)
    }

    @Test func aDeviceThatFailsMidwayIsExplainedUpToTheFailureAndExitsAsAFailure() throws {
        let dir = try SampleCatalogTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let catalog = try CatalogFile.load(path: Self.catalog)
        // Unplugged after half a second: too little for an early match, enough to draw.
        let source = PCMAudioSource(
            samples: try LiveSessionTests.clip(), rate: 8000, fault: (at: 4000, fault: .disconnected(device: "simulated")))
        let run = LiveExplain(source, catalog: catalog, svg: dir + "/failed.svg")
        #expect(run.status == .deviceFailed, "\(run.err)")
        #expect(run.err.contains("went away during listening"), "\(run.err)")
        #expect(run.err.contains("showing what was heard until then"), "\(run.err)")
        let svg = try String(contentsOfFile: dir + "/failed.svg", encoding: .utf8)
        #expect(svg.contains("live capture on simulated"))
        #expect(!source.isDeviceOpen)
    }
}
