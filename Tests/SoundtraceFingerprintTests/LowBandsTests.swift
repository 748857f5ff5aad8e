import Foundation
import SoundtraceTestSupport
import Testing

@testable import SoundtraceFingerprint

/// Below 300 Hz the whole-mix checks above are deaf: a piece that keeps every upper part of a
/// reference and plays another bass line passes them all. The low level bands
/// (`EngineParameters.lowLevelBandEdges`) hear it.
@Suite struct LowBandsTests {
    static let rate = 8000
    static let seconds = 40.0
    /// The parts both pieces share, from 82 Hz up.
    static let upper = TestAudio.layeredMusic(layers: [5, 6, 7, 8], seconds: seconds)
    static let reference = mix(upper, subBass(seed: 1))
    static let catalog: Catalog = { try! TestAudio.catalog([(id: "with-its-bass", audio: reference)]).0 }()

    /// A bass line of pure tones between 49 and 92 Hz, a note and a rest in turn: nothing of it
    /// reaches the bands above 300 Hz, nor the landmarks' peaks (from 156 Hz).
    static func subBass(seed: UInt64) -> [Double] {
        TestAudio.toneLine(
            TestAudio.Generator(state: seed &* 0x9E37_79B9_7F4A_7C15 &+ 7), seconds: seconds, rate: rate, notes: 31...42,
            noteSeconds: 0.2, noteSpread: 0.2, decay: 4
        ) { noteFrames, _ in noteFrames }
    }

    static func mix(_ upper: PCMAudio, _ bass: [Double]) -> PCMAudio {
        PCMAudio(
            sampleRate: rate,
            samples: zip(upper.samples, bass).map { Int16(clamping: Int(Double($0) + ($1 * 6000).rounded())) })
    }

    static func excerpt(_ audio: PCMAudio) -> PCMAudio {
        TestAudio.excerpt(audio, from: 14 * rate + 3, count: 5 * rate)
    }

    @Test func theCatalogKeepsTheLowBandsInASecondWord() throws {
        let fingerprint = try ReferenceFingerprinter.fingerprint(of: Self.reference, parameters: Self.catalog.parameters)
        let p = Self.catalog.parameters
        let kept = (fingerprint.frames + p.levelStepFrames - 1) / p.levelStepFrames
        #expect(fingerprint.levels.count == ReferenceLevels.wordsPerFrame * kept)
        // The sub-bass rests half the time: its band (the lowest) is loud in some kept frames and
        // far below in others, while the upper parts' word does not see it.
        let lowest = stride(from: 1, to: fingerprint.levels.count, by: 2).map { ReferenceLevels.step(fingerprint.levels[$0], band: 0) }
        #expect(lowest.min() == 0 && lowest.max()! >= 5)
    }

    @Test func theRecordingItselfPassesBelow300HzToo() throws {
        let verdict = try TestAudio.match(Self.excerpt(Self.reference), Self.catalog)
        #expect(verdict.isMatch)
        let p = Self.catalog.parameters
        #expect(try #require(verdict.containmentLowHeardRangeDecibels) * 256 / 3.0103 >= Double(p.containmentLowMinHeardRangeQ8))
        #expect(verdict.containmentLowBandsMissing(p) == false)
    }

    @Test func anotherBassLineUnderTheSameUpperPartsIsNoMatch() throws {
        let p = Self.catalog.parameters
        let other = Self.excerpt(Self.mix(Self.upper, Self.subBass(seed: 2)))
        // Without the low bands' check, every measure above 300 Hz names the reference ...
        var deaf = p
        deaf.containmentLowMinHeardRangeQ8 = .max
        let unchecked = try TestAudio.match(
            other, try TestAudio.catalog([(id: "with-its-bass", audio: Self.reference)], parameters: deaf).0)
        #expect(unchecked.isMatch)
        // ... but what was heard below 300 Hz is not what the reference plays there.
        let verdict = try TestAudio.match(other, Self.catalog)
        #expect(verdict.outcome == .noMatch)
        #expect(verdict.containmentLowBandsMissing(p) == true)
        // `soundtrace explain` says which refused: everything above 300 Hz was there.
        #expect(verdict.containmentPassed == false && verdict.containmentAbovePassed == true)
    }

    @Test func theRecordingThroughNoiseOrAMicrophoneIsNotRefusedBelow300Hz() throws {
        // Noise and a microphone's low cut hide the low bands; they are then no evidence.
        let clean = Self.excerpt(Self.reference)
        for heard in [TestAudio.addPinkNoise(clean, snrDB: 0, seed: 4), TestAudio.micChain(clean, seed: 5)] {
            let verdict = try TestAudio.match(heard, Self.catalog)
            #expect(verdict.isMatch)
            #expect(verdict.containmentLowBandsMissing(Self.catalog.parameters) != true)
        }
    }

    /// The bars, with the figures they were set on (EngineParameters): right answers heard 20 dB
    /// clearly or more fall at most 0.23 dB short; talked over and heard at 15 dB, one fell 1.12 dB short.
    @Test(arguments: [
        (shortfall: 0.60, range: 25.0, missing: true),  // heard clearly, another bass line
        (shortfall: 0.23, range: 25.0, missing: false),  // heard clearly, the recording
        (shortfall: 1.12, range: 15.0, missing: false)  // not heard clearly: no evidence
    ])
    func theLowBandsDecideOnlyWhereHeardClearly(shortfall: Double, range: Double, missing: Bool) {
        var check = ContainmentCheck(cells: 40, shortfallQ12: 0)
        check.lowShortfallQ12 = Int(shortfall / 3.0103 * 4096)
        check.lowHeardRangeQ8 = Int(range / 3.0103 * 256)
        #expect(check.lowBandsMissing(EngineParameters()) == missing)
    }
}
