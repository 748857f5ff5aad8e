import Testing
@testable import SoundtraceFingerprint
import SoundtraceTestSupport

/// A match must mean the heard recording *is* the reference, not that it shares a layer with it.
@Suite struct WholeMixTests {
    static let rate = 8000
    /// Four-layer pieces (bass, middle, high, top); piece 0's bass line reappears in the derivative below.
    static let pieces: [[UInt64]] = [[1, 2, 3, 4], [11, 12, 13, 14], [21, 22, 23, 24]]
    static let references = pieces.enumerated().map { ("piece-\($0.offset)", TestAudio.layeredMusic(layers: $0.element, seconds: 40)) }
    static let catalog: Catalog = { try! TestAudio.catalog(references.map { (id: $0.0, audio: $0.1) }).0 }()

    @Test func theRecordingItselfIsConfirmedByItsWholeMix() throws {
        let query = TestAudio.excerpt(Self.references[0].1, from: 12 * Self.rate + 5, count: 5 * Self.rate)
        let verdict = try TestAudio.match(query, Self.catalog)
        #expect(verdict.isMatch && verdict.candidate == 0 && verdict.isConfirmedBySignature)
        #expect(try #require(verdict.alignmentErrorRate) < 0.1)
    }

    @Test(arguments: [0.0, -5.0])
    func theRecordingInNoiseIsNotShortOfAnything(snr: Double) throws {
        // Noise adds sound; it cannot take away what the recording plays.
        let clean = TestAudio.excerpt(Self.references[1].1, from: 20 * Self.rate, count: 5 * Self.rate)
        let verdict = try TestAudio.match(TestAudio.addPinkNoise(clean, snrDB: snr, seed: 3), Self.catalog)
        #expect(verdict.isMatch && verdict.candidate == 1)
        #expect(try #require(verdict.containmentShortfallDecibels) * 4096 / 3.0103
                    <= Double(Self.catalog.parameters.containmentMaxShortfallQ12))
    }

    /// A derivative of piece 0: layer `kept` verbatim, the other three replaced by new voices.
    static func derivative(keeping kept: Int) -> PCMAudio {
        var layers: [UInt64] = [31, 32, 33, 34]
        layers[kept] = pieces[0][kept]
        return TestAudio.excerpt(TestAudio.layeredMusic(layers: layers, seconds: 40), from: 12 * rate + 5, count: 5 * rate)
    }

    @Test(arguments: [2, 3])
    func aSharedLayerThatTheLandmarksAloneWouldNameIsNoMatch(kept: Int) throws {
        let verdict = try TestAudio.match(Self.derivative(keeping: kept), Self.catalog)
        // The landmarks line up with piece 0 far beyond anything else (the failure this guards
        // against: they alone used to decide) ...
        let p = Self.catalog.parameters
        #expect(verdict.candidate == 0 && verdict.score >= p.minAlignedHits
                    && verdict.score * 256 >= p.minRatioOverRunnerUpQ8 * max(1, verdict.runnerUpScore))
        // ... but the reference's other layers are missing from what was heard.
        #expect(verdict.outcome == .noMatch)
        #expect(try #require(verdict.containmentShortfallDecibels) * 4096 / 3.0103 > Double(p.containmentMaxShortfallQ12))
    }

    @Test(arguments: [0, 1])
    func aSharedLowLayerIsNoMatchEither(kept: Int) throws {
        #expect(try TestAudio.match(Self.derivative(keeping: kept), Self.catalog).outcome == .noMatch)
    }
}
