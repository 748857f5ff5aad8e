import SoundtraceTestSupport
import Testing

@testable import SoundtraceFingerprint

/// Digital silence before or after what was heard (a source that started after listening did, or
/// stopped dead) is not heard, and neither is a level that reaches into it
/// (`QueryMatcher.framesOffSilentEdges`): such a level is partly silence, neither the music nor the
/// room, and taken as heard it pulls the noise floor down and looks short of the recording.
@Suite struct DigitalSilenceTests {
    static let rate = 8000

    @Test func aSourceThatStopsDeadIsJudgedOnWhatItPlayed() throws {
        let references = [[1, 2, 3, 4], [11, 12, 13, 14]].enumerated().map {
            (id: "piece-\($0.offset)", audio: TestAudio.layeredMusic(layers: $0.element.map(UInt64.init), seconds: 40))
        }
        let catalog = try TestAudio.catalog(references).0
        let clip = TestAudio.excerpt(references[0].audio, from: 12 * Self.rate, count: 3 * Self.rate)
        let noisy = TestAudio.addPinkNoise(clip, snrDB: 5, seed: 5)
        let heard = try TestAudio.match(noisy, catalog)
        #expect(heard.isMatch && heard.candidate == 0)
        // Before levels next to the silence were left out, a quarter of a second or more of it
        // made this match a no-match.
        for silence in [Self.rate / 4, Self.rate / 2, Self.rate] {
            let stopped = PCMAudio(sampleRate: Self.rate, samples: noisy.samples + [Int16](repeating: 0, count: silence))
            let verdict = try TestAudio.match(stopped, catalog)
            #expect(
                verdict.isMatch && verdict.candidate == 0 && verdict.offsetFrames == heard.offsetFrames, "\(silence) samples of silence")
            let clearance = try #require(verdict.containmentClearanceDecibels)
            #expect(abs(clearance - (heard.containmentClearanceDecibels ?? 0)) < 0.5, "\(silence) samples of silence")
        }
    }

    /// A recording's own silences heard within the audio are in its levels too, so the levels
    /// around them stay as heard: the same as where the gap holds the faintest hiss instead.
    @Test func aRecordingsOwnSilenceWithinWhatWasHeardStaysHeard() throws {
        var gapped = TestAudio.layeredMusic(layers: [1, 2, 3, 4], seconds: 40)
        let gap = (14 * Self.rate)..<(14 * Self.rate + Self.rate / 2)
        for i in gap { gapped.samples[i] = 0 }
        let references = [
            (id: "gapped", audio: gapped), (id: "other", audio: TestAudio.layeredMusic(layers: [11, 12, 13, 14], seconds: 40))
        ]
        let catalog = try TestAudio.catalog(references).0
        let clip = TestAudio.excerpt(gapped, from: 12 * Self.rate, count: 5 * Self.rate)
        var hissing = clip
        for i in (gap.lowerBound - 12 * Self.rate)..<(gap.upperBound - 12 * Self.rate) { hissing.samples[i] = Int16(i % 2) }
        let silent = try TestAudio.match(clip, catalog)
        let hiss = try TestAudio.match(hissing, catalog)
        #expect(silent.isMatch && silent.candidate == 0 && hiss.isMatch && hiss.candidate == 0)
        #expect(silent.containmentCells == hiss.containmentCells)
        #expect(silent.containmentAlignedCells == hiss.containmentAlignedCells)
    }
}
