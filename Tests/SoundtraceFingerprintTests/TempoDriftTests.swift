import SoundtraceTestSupport
import Testing

@testable import SoundtraceFingerprint

/// Another render of a recording's arrangement at another tempo and the same pitch: its landmarks
/// keep their frequencies and nearly their spans, so they gather on the recording, along a line
/// whose offset moves with the time heard. The recording itself stays at one offset.
@Suite struct TempoDriftTests {
    static let rate = 8000
    static let layers: [UInt64] = [61, 62, 63, 64]
    /// The same notes 7 % faster, as a game's "last lap" render of its tune.
    static let fastTempo = 1.07
    static let references = [
        (id: "tune", audio: TestAudio.layeredMusic(layers: layers, seconds: 30)),
        (id: "other", audio: TestAudio.layeredMusic(layers: [71, 72, 73, 74], seconds: 30))
    ]
    static let catalog: Catalog = { try! TestAudio.catalog(references).0 }()
    static let fastRender = TestAudio.layeredMusic(layers: layers, seconds: 30 / fastTempo, tempo: fastTempo)

    /// An interim verdict, as a live session asks after each look, on `seconds` of `audio` from `start` s.
    static func verdict(of audio: PCMAudio, from start: Double, seconds: Double, catalog: Catalog = catalog) throws -> Verdict {
        let matcher = try QueryMatcher(catalog: catalog)
        let excerpt = TestAudio.excerpt(audio, from: Int(start * Double(rate)), count: Int(seconds * Double(rate)))
        matcher.push(excerpt.samples)
        return matcher.verdict()
    }

    @Test func theFasterRendersHitsLieAlongItsTempo() throws {
        let matcher = try QueryMatcher(catalog: Self.catalog)
        matcher.push(TestAudio.excerpt(Self.fastRender, from: Int(16 / Self.fastTempo * Double(Self.rate)), count: 3 * Self.rate).samples)
        #expect(!matcher.verdict().isMatch)
        let drift = matcher.tempoDrift(reference: 0, stepIndex: matcher.bestStepIndex(0), offset: matcher.bestOffsetOf(0))
        #expect(drift.drifts(Self.catalog.parameters))
        #expect(drift.driftingHits >= 3 * drift.steadyHits)
        // The render is 70 frames of offset per 1,000 frames heard ahead; the speed hypotheses
        // take up to 20 of them (their 2 % at a pitch 2 % off, which the hashes' bins hide).
        #expect((40...80).contains(drift.slopePerMille))
    }

    @Test func theRecordingItselfHoldsOneOffset() throws {
        for start in [4.0, 12.5, 21.0] {
            let verdict = try Self.verdict(of: Self.references[0].audio, from: start, seconds: 3)
            let drift = try #require(verdict.tempoDrift)
            #expect(verdict.isMatch && verdict.candidate == 0)
            #expect(!drift.drifts(Self.catalog.parameters))
            #expect(drift.steadyHits > drift.driftingHits)
        }
    }

    @Test func aTempoChangeInsideTheSpeedSearchIsNotADrift() throws {
        // 1 % faster at 1 % higher pitch is the recording played fast: the speed hypotheses align it.
        let excerpt = TestAudio.excerpt(Self.references[0].audio, from: 10 * Self.rate, count: 4 * Self.rate)
        let claimed = PCMAudio(sampleRate: Self.rate * 101 / 100, samples: excerpt.samples)
        let fast = Resampler.convert(claimed, to: Self.rate)
        let verdict = try Self.verdict(of: fast, from: 0, seconds: 3)
        #expect(verdict.isMatch && verdict.candidate == 0)
        #expect(verdict.tempoDrift.map { !$0.drifts(Self.catalog.parameters) } == true)
    }

    @Test func aRenderFourPercentFasterPassesTheWholeMixChecksAndOnlyTheDriftRefusesIt() throws {
        // 4 % faster: the speed hypotheses take half of it and the mix stays close enough for 3 s.
        let render = TestAudio.layeredMusic(layers: Self.layers, seconds: 30 / 1.04, tempo: 1.04)
        var parameters = EngineParameters()
        parameters.minDriftRatioQ8 = Int.max / 512
        let unchecked = try TestAudio.catalog(Self.references, parameters: parameters).0
        let named = try Self.verdict(of: render, from: 10 / 1.04, seconds: 3, catalog: unchecked)
        #expect(named.isMatch && named.candidate == 0 && named.containmentPassed == true)
        let verdict = try Self.verdict(of: render, from: 10 / 1.04, seconds: 3)
        #expect(!verdict.isMatch)
        #expect(verdict.tempoDrift.map { $0.drifts(Self.catalog.parameters) } == true)
    }
}
