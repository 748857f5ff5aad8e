import SoundtraceTestSupport
import Testing

@testable import SoundtraceFingerprint

/// The first round of signature checks may name a recording the landmark hits did not decide on,
/// at a lower bar than the wider net: but only a recording no other has more hits than. Any other
/// is one more look among several, and a chance alignment of music that was not heard can pass the
/// lower bar where noise leaves the containment check little to refuse (docs/BENCHMARKS.md, "One
/// look among several").
@Suite struct SignatureRescueTests {
    static let rate = 8000

    @Test func theLowerBarIsForARecordingNoOtherHasMoreHitsThan() {
        let p = EngineParameters()
        #expect(QueryMatcher.narrowBarQ12(score: 7, bestOther: 6, parameters: p) == p.signatureMinScoreQ12)
        #expect(QueryMatcher.narrowBarQ12(score: 6, bestOther: 6, parameters: p) == p.signatureMinScoreQ12)
        #expect(QueryMatcher.narrowBarQ12(score: 5, bestOther: 6, parameters: p) == p.signatureWideMinScoreQ12)
        #expect(p.signatureWideMinScoreQ12 > p.signatureMinScoreQ12)
    }

    @Test func aRescueReportsTheBarItPassed() throws {
        // Song 3 under white noise 12 dB louder: too few landmarks survive to decide, song 3 still
        // has the most, and the first round's check names it with a score between the two bars.
        let clean = TestAudio.excerpt(MatcherTests.references[2].audio, from: 11 * Self.rate, count: 5 * Self.rate)
        let verdict = try TestAudio.match(TestAudio.addNoise(clean, snrDB: -12, seed: 5), MatcherTests.catalog)
        let p = MatcherTests.catalog.parameters
        #expect(verdict.isMatch && verdict.candidate == 2 && verdict.score < p.minAlignedHits)
        #expect(verdict.score >= verdict.runnerUpScore)
        let score = try #require(verdict.signatureScore) * 4096
        #expect(score >= Double(p.signatureMinScoreQ12) && score < Double(p.signatureWideMinScoreQ12))
        #expect(verdict.signatureBar == Double(p.signatureMinScoreQ12) / 4096)
    }
}
