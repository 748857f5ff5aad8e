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

    /// The render 4 % faster: the speed hypotheses take half of it, and over 3 s the mix stays
    /// close enough to the recording's for the whole-mix checks.
    static let fourPercentFaster = TestAudio.layeredMusic(layers: layers, seconds: 30 / 1.04, tempo: 1.04)

    /// A catalog of `references` whose tempo-drift bar cannot be reached: what the other checks
    /// alone would name.
    static func withoutDriftCheck(_ references: [(id: String, audio: PCMAudio)], _ base: EngineParameters) throws -> Catalog {
        var parameters = base
        parameters.minDriftRatioQ8 = Int.max / 512
        return try TestAudio.catalog(references, parameters: parameters).0
    }

    /// The final verdict on `seconds` of `audio` from `start` s, the query ended.
    static func finalVerdict(of audio: PCMAudio, from start: Double, seconds: Double, catalog: Catalog) throws -> Verdict {
        let matcher = try QueryMatcher(catalog: catalog)
        matcher.push(TestAudio.excerpt(audio, from: Int(start * Double(rate)), count: Int(seconds * Double(rate))).samples)
        matcher.finish()
        return matcher.verdict()
    }

    @Test func theSignatureRescueIsHeldToOneOffsetToo() throws {
        // Landmarks that can never clear the runner-up: only the signature rescue can name a match.
        var parameters = EngineParameters()
        parameters.minRatioOverRunnerUpQ8 = 1 << 24
        let rescueOnly = try TestAudio.catalog(Self.references, parameters: parameters).0
        let steady = try Self.finalVerdict(of: Self.references[0].audio, from: 10, seconds: 3, catalog: rescueOnly)
        #expect(steady.isMatch && steady.candidate == 0 && steady.signaturePassed)
        let named = try Self.finalVerdict(
            of: Self.fourPercentFaster, from: 10 / 1.04, seconds: 3, catalog: Self.withoutDriftCheck(Self.references, parameters))
        #expect(named.isMatch && named.candidate == 0 && named.signaturePassed)
        let verdict = try Self.finalVerdict(of: Self.fourPercentFaster, from: 10 / 1.04, seconds: 3, catalog: rescueOnly)
        #expect(!verdict.isMatch)
        #expect(verdict.tempoDrift.map { $0.drifts(rescueOnly.parameters) } == true)
    }

    @Test func theAlignmentApartIsHeldToOneOffsetToo() throws {
        // The tune played twice: the render's best alignment is one copy and its best apart the
        // other. Without the drift check the copy apart is what gets named (the best one falls
        // just short of the whole-mix bars here), so only its own drift check can refuse it.
        let tune = Self.references[0].audio
        let twice = [(id: "tune", audio: PCMAudio(sampleRate: Self.rate, samples: tune.samples + tune.samples)), Self.references[1]]
        let unchecked = try Self.withoutDriftCheck(twice, EngineParameters())
        let named = try Self.verdict(of: Self.fourPercentFaster, from: 10 / 1.04, seconds: 3, catalog: unchecked)
        #expect(named.isMatch && named.candidate == 0)
        let catalog = try TestAudio.catalog(twice).0
        let matcher = try QueryMatcher(catalog: catalog)
        matcher.push(TestAudio.excerpt(Self.fourPercentFaster, from: Int(10 / 1.04 * Double(Self.rate)), count: 3 * Self.rate).samples)
        let verdict = matcher.verdict()
        #expect(!verdict.isMatch)
        let apart = try #require(matcher.alignmentApart(0))
        let framesPerCopy = 30 * Self.rate / catalog.parameters.hopSize
        #expect(apart.votes >= catalog.parameters.minAlignedHits)
        #expect(abs(abs(apart.offset - matcher.bestOffsetOf(0)) - framesPerCopy) <= catalog.parameters.distinctAlignmentFrames)
        #expect(abs(named.offsetFrames - apart.offset) <= 2)
    }

    @Test func aRenderFourPercentFasterPassesTheWholeMixChecksAndOnlyTheDriftRefusesIt() throws {
        let unchecked = try Self.withoutDriftCheck(Self.references, EngineParameters())
        let named = try Self.verdict(of: Self.fourPercentFaster, from: 10 / 1.04, seconds: 3, catalog: unchecked)
        #expect(named.isMatch && named.candidate == 0 && named.containmentPassed == true)
        let verdict = try Self.verdict(of: Self.fourPercentFaster, from: 10 / 1.04, seconds: 3)
        #expect(!verdict.isMatch)
        #expect(verdict.tempoDrift.map { $0.drifts(Self.catalog.parameters) } == true)
    }
}
