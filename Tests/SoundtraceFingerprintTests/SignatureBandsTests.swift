import Foundation
import SoundtraceTestSupport
import Testing

@testable import SoundtraceFingerprint

/// The frame signatures, every match's whole-mix evidence, listen from 156 Hz up: the same range the
/// landmark peaks come from. Much of a mix moves below 300 Hz (bass, low strings, the left hand), and
/// there it stands clearest above pink noise, which has as much energy in each octave as in any other.
/// With bands from 300 Hz, music that lives down there reached the signatures as noise.
@Suite struct SignatureBandsTests {
    static let rate = 8000
    static let seconds = 40.0

    /// A line of pure tones between 165 and 294 Hz (MIDI 52-62), a note and a rest in turn: its
    /// landmarks are found, and nothing of it lies above 300 Hz.
    static let lowLine: PCMAudio = {
        let line = TestAudio.toneLine(
            TestAudio.Generator(state: 0x51C3_A7E5), seconds: seconds, rate: rate, notes: 52...62, noteSeconds: 0.15,
            noteSpread: 0.2, decay: 3
        ) { _, g in Int(Double(rate) * 0.1 * g.unit()) }
        return PCMAudio(sampleRate: rate, samples: line.map { Int16(clamping: Int(($0 * 9000).rounded())) })
    }()

    static func heard(_ snrDB: Double) -> PCMAudio {
        TestAudio.addPinkNoise(TestAudio.excerpt(lowLine, from: 12 * rate + 5, count: 5 * rate), snrDB: snrDB, seed: 9)
    }

    static func verdict(of heard: PCMAudio, bandEdges: [Int]) throws -> Verdict {
        var parameters = EngineParameters()
        parameters.signatureBandEdges = bandEdges
        let catalog = try TestAudio.catalog([(id: "low-line", audio: lowLine)], parameters: parameters).0
        return try TestAudio.match(heard, catalog)
    }

    @Test func theBandsBeginWhereThePeaksDo() {
        let p = EngineParameters()
        #expect(p.signatureBandEdges.first == p.peakBandEdges.first)
        #expect(p.signatureBandEdges.count == SignatureExtractor.bitsPerFrame + 2)
        #expect(zip(p.signatureBandEdges, p.signatureBandEdges.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func musicBelow300HzIsConfirmedByTheSignaturesInNoise() throws {
        let heard = Self.heard(5)
        let verdict = try Self.verdict(of: heard, bandEdges: EngineParameters().signatureBandEdges)
        #expect(verdict.isMatch)
        // 0.34 here (a pure tone in bands one or two bins wide, and its rests, keep it from 0),
        // well inside the whole-mix bar of 0.45.
        let errorRate = try #require(verdict.alignmentErrorRate)
        #expect(errorRate < 0.4)
        // The bands of before, from 300 Hz, hear the same landmark alignment only as noise, as
        // far from the reference as unrelated music (0.47), and refuse the match.
        let before = try Self.verdict(of: heard, bandEdges: [19, 22, 25, 29, 33, 38, 43, 50, 57, 65, 74, 85, 98, 112, 128, 146, 168, 192])
        #expect(before.score == verdict.score)
        #expect(try #require(before.alignmentErrorRate) > 0.45)
        #expect(before.isMatch == false)
    }
}
