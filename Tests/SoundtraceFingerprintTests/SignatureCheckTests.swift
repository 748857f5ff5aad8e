import SoundtraceTestSupport
import Testing

@testable import SoundtraceFingerprint

@Suite struct SignatureCheckTests {
    /// The reliable signature bits of a noisy excerpt of the matcher tests' second recording.
    static func reliableQuery() throws -> QuerySignatures.Reliable {
        let parameters = MatcherTests.catalog.parameters
        let clean = TestAudio.excerpt(MatcherTests.references[1].audio, from: 11 * MatcherTests.rate, count: 5 * MatcherTests.rate)
        let query = TestAudio.addNoise(clean, snrDB: -6, seed: 21)
        let spectrogram = try #require(Spectrogram(parameters: parameters))
        var signatures = QuerySignatures(parameters: parameters)
        spectrogram.push(query.samples) { _, _ in signatures.append(power: spectrogram.lastPower) }
        return signatures.reliable()
    }

    /// Four frames per step at the recorded speed must count exactly what one frame at a time
    /// does, wherever the query overlaps the reference: inside, across its start, across its end.
    @Test func packedComparisonAgreesFrameForFrame() throws {
        let query = try Self.reliableQuery()
        let catalog = MatcherTests.catalog
        let reference = 1
        let start = catalog.signatureStart[reference]
        let length = catalog.references[reference].durationFrames
        let frames = query.bits.count
        for offset in [
            -frames - 3, -frames + 20, -7, -1, 0, 1, 2, 3, 687, length - frames - 1, length - frames + 2,
            length - 13, length - 1, length, length + 9
        ] {
            let (expected, inside) = SignatureCheck.stretchedErrors(
                query: query, signatures: catalog.signatures, start: start, length: length, offsetFrames: offset,
                numerator: catalog.parameters.speedDenominator, denominator: catalog.parameters.speedDenominator)
            let first = min(frames, max(query.firstFrame, -offset))
            #expect(inside == first..<max(first, min(frames, length - offset)), "offset \(offset)")
            let packed = SignatureCheck.nominalErrors(
                query: query, signatures: catalog.signatures, from: start + offset,
                frames: inside)
            #expect(packed == expected, "offset \(offset)")
        }
    }

    /// At the true alignment (within the shifts a check tries; the excerpt starts between two
    /// frames) the score clears even the wider net's bar, and 300 frames away not even the first.
    @Test func theTrueAlignmentDisagreesLeast() throws {
        let query = try Self.reliableQuery()
        let catalog = MatcherTests.catalog
        let trueOffset = 11 * MatcherTests.rate / catalog.parameters.hopSize
        let best = try #require(SignatureCheck.best(query: query, catalog: catalog, reference: 1, offsetFrames: trueOffset, speedStep: 0))
        let elsewhere = try #require(
            SignatureCheck.best(query: query, catalog: catalog, reference: 1, offsetFrames: trueOffset + 300, speedStep: 0))
        #expect(abs(best.offsetFrames - trueOffset) <= catalog.parameters.signatureShiftFrames)
        #expect(best.scoreQ12 > catalog.parameters.signatureWideMinScoreQ12 && elsewhere.scoreQ12 < catalog.parameters.signatureMinScoreQ12)
    }
}
