import SoundtraceTestSupport
import Testing

@testable import SoundtraceFingerprint

/// People talking over a recording add sound in bursts. The containment check must not take the
/// cells between their words for a missing layer, nor let talking supply a layer that is missing.
@Suite struct TalkOverMusicTests {
    /// `audio` with bursts of noise (0.3 s in every 0.9 s, like words and the pauses between them)
    /// whose RMS over the whole excerpt is `louderBy` times the music's.
    static func withTalk(_ audio: PCMAudio, louderBy: Double) -> PCMAudio {
        let rate = audio.sampleRate
        var talk = TestAudio.noise(seed: 9, count: audio.samples.count, rms: 1000, rate: rate)
        for i in talk.samples.indices where (i / (rate * 3 / 10)) % 3 != 0 { talk.samples[i] = 0 }
        let scale = TestAudio.rms(audio.samples[...]) * louderBy / TestAudio.rms(talk.samples[...])
        return PCMAudio(
            sampleRate: rate,
            samples: zip(audio.samples, talk.samples).map { Int16(clamping: Int($0) + Int((Double($1) * scale).rounded())) })
    }

    /// Loud talking (3 dB above the music over the excerpt) raises each band's median gain, and the
    /// cells between words then fall short of it; the gain of the steadiest half of cells does not.
    @Test func talkingOverTheRecordingDoesNotMakeItShort() throws {
        let rate = WholeMixTests.rate
        let clean = TestAudio.excerpt(WholeMixTests.references[1].1, from: 20 * rate, count: 5 * rate)
        let verdict = try TestAudio.match(Self.withTalk(clean, louderBy: 1.41), WholeMixTests.catalog)
        let p = WholeMixTests.catalog.parameters
        let containment = try #require(verdict.containment)
        // The median gain alone would have refused it (the failure this guards against) ...
        #expect(containment.shortfallQ12 > p.containmentMaxShortfallQ12)
        #expect(containment.surplusQ12 >= p.containmentTalkSurplusQ12)
        // ... the steadier gain finds nothing missing.
        #expect(try #require(containment.steadiestGainShortfallQ12) <= p.containmentMaxShortfallQ12)
        #expect(verdict.isMatch && verdict.candidate == 1 && verdict.containmentPassed == true)
    }

    /// A derivative of piece 0 that the landmarks line up with: talking over it leaves the other
    /// layers just as missing, whichever gain measures them.
    @Test(arguments: [2, 3])
    func talkingOverASharedLayerDoesNotSupplyWhatIsMissing(kept: Int) throws {
        let verdict = try TestAudio.match(
            Self.withTalk(WholeMixTests.derivative(keeping: kept), louderBy: 1.41), WholeMixTests.catalog)
        let p = WholeMixTests.catalog.parameters
        #expect(verdict.candidate == 0 && verdict.score >= p.minAlignedHits)
        #expect(verdict.outcome == .noMatch)
        let containment = try #require(verdict.containment)
        #expect(try #require(containment.steadiestGainShortfallQ12) > 10 * p.containmentMaxShortfallQ12)
    }

    /// Over less than `containmentTalkMinCells` level frames the steadier gain is not tried: a short
    /// stretch of a piece that keeps one layer can find a steadiest half that hides what it lacks.
    @Test func aShortStretchIsNotMeasuredAgain() throws {
        let rate = WholeMixTests.rate
        let p = WholeMixTests.catalog.parameters
        let clean = TestAudio.excerpt(WholeMixTests.references[1].1, from: 20 * rate, count: 3 * rate)
        let verdict = try TestAudio.match(Self.withTalk(clean, louderBy: 1.41), WholeMixTests.catalog)
        let containment = try #require(verdict.containment)
        #expect(containment.cells < p.containmentTalkMinCells)
        #expect(containment.surplusQ12 >= p.containmentTalkSurplusQ12)
        #expect(containment.steadiestGainShortfallQ12 == nil)
    }

    /// Heard through noise, a short stretch with nothing missing passes only while little else was
    /// heard (the blind set's kept-melody take named at 2.5 s of a live session in pink noise at
    /// +5 dB: 0.05 dB short, 0.31 dB above, 10 dB clear of the floor, 22 frames). The same surplus
    /// passes over `containmentTalkMinCells` frames (the steadier gain's look decides there), or
    /// where the recording was heard clearly (whatever another piece lacks then falls short).
    @Test func aShortStretchThatHeardMuchElseThroughNoiseWaits() {
        let p = EngineParameters()
        let signature = WholeMixTests.signature(disagreeing: 0.17)
        func check(cells: Int, surplusDecibels: Double, clearanceDecibels: Double = 10) -> ContainmentCheck {
            ContainmentCheck(
                cells: cells, shortfallQ12: WholeMixTests.q12(0.05), clearanceQ8: Int(clearanceDecibels / 3.0103 * 256),
                surplusQ12: WholeMixTests.q12(surplusDecibels))
        }
        #expect(check(cells: 22, surplusDecibels: 0.2).tier(p, signature: signature) == .nothingMissing)
        #expect(check(cells: 22, surplusDecibels: 0.31).tier(p, signature: signature) == nil)
        #expect(!check(cells: 22, surplusDecibels: 0.31).passes(p, signature: signature))
        #expect(check(cells: p.containmentTalkMinCells - 1, surplusDecibels: 0.31).somethingElseHeardTooBriefly(p))
        #expect(check(cells: p.containmentTalkMinCells, surplusDecibels: 0.31).tier(p, signature: signature) == .nothingMissing)
        #expect(check(cells: 22, surplusDecibels: 0.31, clearanceDecibels: 17).tier(p, signature: signature) == .nothingMissing)
    }

    /// The steadiest half is the run of half the values (rounded up) with the least spread in log
    /// units; its median is the gain.
    @Test func theSteadiestHalfIsTheTightestGroup() {
        #expect(ContainmentCheck.steadiestHalf(of: [10, 11, 12, 13, 100, 400, 1600]) == 11)
        #expect(ContainmentCheck.steadiestHalf(of: [1, 4, 16, 100, 101, 102, 103]) == 101)
        #expect(ContainmentCheck.steadiestHalf(of: [7]) == 7)
        // Equal spreads: the first (lowest) group.
        #expect(ContainmentCheck.steadiestHalf(of: [1, 2, 4, 8]) == 1)
    }
}
