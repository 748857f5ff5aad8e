import Dispatch
import SoundtraceCore
import SoundtraceRecognition
import SoundtraceTestSupport
import Testing

@testable import SoundtraceFingerprint

@Suite struct FingerprintRecognizerTests {
    static let references: [(id: String, audio: PCMAudio)] = (1...3).map { piece in
        ("piece-\(piece)", TestAudio.layeredMusic(layers: (1...4).map { UInt64(100 * piece + 20 + $0) }, seconds: 30))
    }
    static let built = { try! TestAudio.catalog(references) }()
    static let catalog: Catalog = built.0

    /// Snapshots after every 250 ms of audio, as a session asks for them.
    func snapshots(of audio: PCMAudio) throws -> [RecognizerSnapshot] {
        snapshots(of: audio, by: try FingerprintRecognizer(catalog: Self.catalog, inputRate: 8000))
    }

    func snapshots(of audio: PCMAudio, by recognizer: FingerprintRecognizer, from first: Int = 0) -> [RecognizerSnapshot] {
        var result: [RecognizerSnapshot] = []
        var start = first
        while start < audio.samples.count {
            let end = min(audio.samples.count, start + 2000)
            recognizer.push(Array(audio.samples[start..<end]), atFrame: start)
            result.append(recognizer.snapshot(final: false))
            start = end
        }
        return result
    }

    @Test func twoAgreeingSignatureChecksHalfASecondApartConfirmAMatch() throws {
        let clip = TestAudio.excerpt(Self.references[1].audio, from: 8 * 8000, count: 6 * 8000)
        let all = try snapshots(of: TestAudio.addNoise(clip, snrDB: 0, seed: 3))
        let confirmed = try #require(all.first { $0.confirmedTwice })
        #expect(confirmed.isMatch && confirmed.reference?.id == "piece-2")
        // The first sample comes at 1.5 s of audio, the second half a second later.
        #expect(confirmed.heardMilliseconds >= 2000)
        #expect(all.filter { $0.heardMilliseconds < 2000 }.allSatisfy { !$0.confirmedTwice })
    }

    @Test func unrelatedMusicAndNoiseAreNeverConfirmed() throws {
        for audio in [TestAudio.music(seed: 77, seconds: 8), TestAudio.noise(seed: 4, count: 8 * 8000, rms: 3000)] {
            #expect(try snapshots(of: audio).allSatisfy { !$0.confirmedTwice && !$0.isMatch })
        }
    }

    /// Deep in noise (`Verdict.isDeepInNoise`: this excerpt, 12 dB under pink noise, is heard with
    /// its signatures 0.34 apart or more) a few seconds cannot tell the recording from a piece that
    /// keeps only its loudest part, so a match there waits for the window; heard clearly, it does not.
    @Test func aMatchDeepInNoiseWaitsForTheWindow() throws {
        let clip = TestAudio.excerpt(Self.references[1].audio, from: 12 * 8000, count: 8 * 8000)
        let deep = try snapshots(of: TestAudio.addPinkNoise(clip, snrDB: -12, seed: 6)).filter(\.isMatch)
        #expect(!deep.isEmpty && deep.allSatisfy { $0.reference?.id == "piece-2" && $0.waitsForWindow })
        let clear = try snapshots(of: clip).filter(\.isMatch)
        #expect(!clear.isEmpty && clear.allSatisfy { !$0.waitsForWindow })
    }

    /// soundtraced serves a catalog whose content hash is still being checked in the background.
    /// A match heard meanwhile awaits that check and the snapshots keep coming without waiting for
    /// it (a session that stopped reading its device would lose audio and fail with a gap); once
    /// it passed, the same match is named.
    @Test func aMatchHeardWhileTheCatalogCheckRunsAwaitsItWithoutHoldingUpTheListening() throws {
        let folder = try TemporaryFolder("soundtrace-recognizer-tests")
        let path = folder.path + "/unchecked.catalog"
        try FileBytes.writeAtomically(Self.built.1, to: path)
        let catalog = try CatalogFile.load(path: path, check: .structure)
        let checking = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let checked = DispatchSemaphore(value: 0)
        // The background check, held under way until released (or for 10 s at most).
        DispatchQueue.global().async {
            try? catalog.verification.confirm { () throws(CatalogError) in
                checking.signal()
                _ = release.wait(timeout: .now() + 10)
            }
            checked.signal()
        }
        checking.wait()
        let clip = TestAudio.excerpt(Self.references[1].audio, from: 8 * 8000, count: 8 * 8000)
        let recognizer = try FingerprintRecognizer(catalog: catalog, inputRate: 8000)
        let during = snapshots(of: PCMAudio(sampleRate: 8000, samples: Array(clip.samples[..<(4 * 8000)])), by: recognizer)
        let stillChecking = checked.wait(timeout: .now()) == .timedOut
        #expect(stillChecking, "a snapshot waited for the check")
        let matches = during.filter(\.isMatch)
        #expect(!matches.isEmpty && matches.allSatisfy { $0.reference?.id == "piece-2" && $0.awaitsCatalogCheck && $0.fault == nil })
        #expect(during.filter { !$0.isMatch }.allSatisfy { !$0.awaitsCatalogCheck })
        release.signal()
        if stillChecking { checked.wait() }
        let after = snapshots(of: clip, by: recognizer, from: 4 * 8000)
        #expect(after.contains(where: \.isMatch) && after.allSatisfy { !$0.awaitsCatalogCheck && $0.fault == nil })
    }
}
