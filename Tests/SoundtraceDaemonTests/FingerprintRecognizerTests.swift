import SoundtraceCore
import SoundtraceFingerprint
import SoundtraceRecognition
import SoundtraceTestSupport
import Testing

@Suite struct FingerprintRecognizerTests {
    static let references: [(id: String, audio: PCMAudio)] = (1...3).map { piece in
        ("piece-\(piece)", TestAudio.layeredMusic(layers: (1...4).map { UInt64(100 * piece + 20 + $0) }, seconds: 30))
    }
    static let catalog: Catalog = { try! TestAudio.catalog(references).0 }()

    /// Snapshots after every 250 ms of audio, as a session asks for them.
    func snapshots(of audio: PCMAudio) throws -> [RecognizerSnapshot] {
        let recognizer = try FingerprintRecognizer(catalog: Self.catalog, inputRate: 8000)
        var result: [RecognizerSnapshot] = []
        var start = 0
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
}
