import SoundtraceTestSupport
import Testing

@testable import SoundtraceFingerprint

/// A recording that plays one layer of a passage again later, over other voices (a loop, a riff, a
/// bass line). When that repeat gathers the most landmark hits, as it can when noise hides the
/// passage's other layers, it fails the whole-mix check; the passage itself is then still found as
/// the reference's best alignment apart from its best.
@Suite struct RepeatedLayerTests {
    static let rate = 8000
    static let passageStart = 5 * rate
    /// 0–20 s four layers; 20–40 s the first half's high layer again, over three new voices.
    static let reference = PCMAudio(
        sampleRate: rate,
        samples: TestAudio.layeredMusic(layers: [1, 2, 3, 4], seconds: 20).samples
            + TestAudio.layeredMusic(layers: [41, 42, 3, 44], seconds: 20).samples)
    static let catalog: Catalog = {
        try! TestAudio.catalog([
            (id: "looped", audio: reference), (id: "other", audio: TestAudio.layeredMusic(layers: [11, 12, 13, 14], seconds: 40))
        ]).0
    }()

    static let passageFrame = passageStart / catalog.parameters.hopSize
    static let repeatFrame = (passageStart + 20 * rate) / catalog.parameters.hopSize

    /// A matcher that heard 5 s of the passage, and then as many more hits on its repeat as the
    /// passage has, and more: the repeat becomes the landmark winner.
    static func matcherWhoseBestIsTheRepeat() throws -> QueryMatcher {
        let matcher = try QueryMatcher(catalog: catalog)
        let query = TestAudio.excerpt(reference, from: passageStart, count: 5 * rate)
        var start = 0
        while start < query.samples.count {
            matcher.push(Array(query.samples[start..<min(start + 1000, query.samples.count)]))
            start += 1000
        }
        let nominal = try #require(matcher.nominalStep)
        for _ in 0..<(matcher.bestScoreOf(0) + 5) {
            matcher.vote(reference: 0, stepIndex: nominal, offset: repeatFrame, chance: false)
        }
        return matcher
    }

    @Test func theBestAlignmentElsewhereIsKept() throws {
        let matcher = try Self.matcherWhoseBestIsTheRepeat()
        #expect(abs(matcher.bestOffsetOf(0) - Self.repeatFrame) <= 1)
        let apart = try #require(matcher.alignmentApart(0))
        #expect(abs(apart.offset - Self.passageFrame) <= 1)
        #expect(apart.votes >= Self.catalog.parameters.minAlignedHits && apart.votes < matcher.bestScoreOf(0))
    }

    @Test func aRepeatThatFailsTheWholeMixDoesNotHideThePassage() throws {
        let matcher = try Self.matcherWhoseBestIsTheRepeat()
        // Asked before the query ends, as a live session asks: the wider signature checks of a
        // final verdict would find the passage anyway.
        let verdict = matcher.verdict()
        #expect(verdict.isMatch && verdict.candidate == 0)
        #expect(abs(verdict.offsetFrames - Self.passageFrame) <= 2)
        #expect(verdict.containmentPassed == true)
        #expect(verdict.score == matcher.alignmentApart(0)?.votes)
    }

    @Test func theRepeatItselfIsFoundWhereItIs() throws {
        // The repeat's own 5 s are part of the recording too: every layer lines up there, and only
        // the high one at the passage.
        let heard = TestAudio.excerpt(Self.reference, from: Self.passageStart + 20 * Self.rate, count: 5 * Self.rate)
        let verdict = try TestAudio.match(heard, Self.catalog)
        #expect(verdict.isMatch && verdict.candidate == 0 && abs(verdict.offsetFrames - Self.repeatFrame) <= 2)
    }
}
