import SoundtraceTestSupport
import Testing

@testable import SoundtraceFingerprint

@Suite struct MatcherTests {
    /// Four-layer pieces (bass to top voice), different for every song: dense enough to behave
    /// like music under the containment check, which sparse two-voice plucks do not.
    static let references: [(id: String, audio: PCMAudio)] = (1...4).map { song in
        ("song-\(song)", TestAudio.layeredMusic(layers: (1...4).map { UInt64(100 * song + $0) }, seconds: 40))
    }
    static let catalog: Catalog = { try! TestAudio.catalog(references).0 }()
    static let rate = 8000

    @Test(arguments: [(0, 3.0), (1, 17.5), (2, 30.25), (3, 8.0)])
    func findsTheReferenceAndWhereTheQueryStarts(reference: Int, start: Double) throws {
        let from = Int(start * Double(Self.rate)) + 37  // off the frame grid
        let query = TestAudio.excerpt(Self.references[reference].audio, from: from, count: 5 * Self.rate)
        let verdict = try TestAudio.match(query, Self.catalog)
        #expect(verdict.outcome == .match)
        #expect(verdict.candidate == reference)
        let offset = Self.catalog.parameters.seconds(forFrames: verdict.offsetFrames)
        #expect(abs(offset - Double(from) / Double(Self.rate)) <= 0.032)
        #expect(verdict.speedStep == 0)
    }

    @Test func aQueryStartingBeforeTheReferenceHasANegativeOffset() throws {
        let lead = PCMAudio(sampleRate: Self.rate, samples: [Int16](repeating: 0, count: Self.rate))
        let query = PCMAudio(sampleRate: Self.rate, samples: lead.samples + Self.references[1].audio.samples.prefix(5 * Self.rate))
        let verdict = try TestAudio.match(query, Self.catalog)
        #expect(verdict.isMatch && verdict.candidate == 1)
        #expect(abs(Self.catalog.parameters.seconds(forFrames: verdict.offsetFrames) + 1) <= 0.032)
    }

    @Test(arguments: [10.0, 0.0])
    func survivesNoise(snr: Double) throws {
        let clean = TestAudio.excerpt(Self.references[2].audio, from: 12 * Self.rate, count: 8 * Self.rate)
        let verdict = try TestAudio.match(TestAudio.addNoise(clean, snrDB: snr, seed: 77), Self.catalog)
        #expect(verdict.isMatch && verdict.candidate == 2)
        #expect(abs(Self.catalog.parameters.seconds(forFrames: verdict.offsetFrames) - 12) <= 0.032)
    }

    @Test func weakLandmarkEvidenceIsConfirmedBySignatures() throws {
        // So much noise that too few landmarks survive to decide on their own.
        let clean = TestAudio.excerpt(Self.references[1].audio, from: 11 * Self.rate, count: 5 * Self.rate)
        let query = TestAudio.addNoise(clean, snrDB: -12, seed: 5)
        var landmarksOnly = EngineParameters()
        landmarksOnly.signatureCandidates = 0
        landmarksOnly.signatureWideCandidates = 0
        let bare = try TestAudio.catalog(Self.references, parameters: landmarksOnly).0
        #expect(try TestAudio.match(query, bare).outcome == .noMatch)

        // Interim verdicts rely on landmark hits alone; the final one checks signatures.
        let matcher = try QueryMatcher(catalog: Self.catalog)
        matcher.push(query.samples)
        #expect(matcher.verdict().outcome == .noMatch && matcher.verdict().signatureBits == nil)
        matcher.finish()
        let verdict = matcher.verdict()
        #expect(verdict.isMatch && verdict.candidate == 1)
        #expect(verdict.score < Self.catalog.parameters.minAlignedHits)
        #expect(abs(Self.catalog.parameters.seconds(forFrames: verdict.offsetFrames) - 11) <= 0.05)
        let bits = try #require(verdict.signatureBits)
        let score = try #require(verdict.signatureScore)
        #expect(bits >= Self.catalog.parameters.signatureMinReliableBits)
        #expect(score * 4096 >= Double(Self.catalog.parameters.signatureMinScoreQ12))
    }

    @Test func everyMatchIsConfirmedByTheWholeMixButOnlyTheFinalVerdictRescues() throws {
        // A clean excerpt: the landmarks match, and every verdict checks that alignment's signatures.
        let clean = TestAudio.excerpt(Self.references[2].audio, from: 9 * Self.rate, count: 5 * Self.rate)
        let strong = try QueryMatcher(catalog: Self.catalog)
        strong.push(clean.samples)
        #expect(strong.verdict().isMatch && strong.verdict().isConfirmedBySignature)
        // Too little audio for the whole-mix check: the landmarks alone never name a recording.
        let short = try QueryMatcher(catalog: Self.catalog)
        short.push(Array(clean.samples.prefix(Self.rate * 14 / 10)))
        let early = short.verdict()
        #expect(early.outcome == .noMatch && early.candidate == 2 && early.score >= Self.catalog.parameters.minAlignedHits)
        #expect(try #require(early.containmentCells) < Self.catalog.parameters.containmentMinCells)
        // Landmarks too weak to decide: before the end, no verdict rescues it.
        let noisy = TestAudio.addNoise(
            TestAudio.excerpt(Self.references[1].audio, from: 11 * Self.rate, count: 5 * Self.rate),
            snrDB: -12, seed: 5)
        let weak = try QueryMatcher(catalog: Self.catalog)
        weak.push(noisy.samples)
        #expect(weak.verdict().outcome == .noMatch)
        weak.finish()
        #expect(weak.verdict().isMatch && weak.verdict().isConfirmedBySignature)
    }

    @Test func aWiderNetFindsAlignmentsTheFirstChecksDoNotCover() throws {
        // With no references in the first round (as when chance alignments elsewhere have more
        // hits than the true one), the second round over every well-voted alignment finds it.
        // (-11 dB: at -10 dB the landmarks, which reach down into the bass, already decide.)
        let clean = TestAudio.excerpt(Self.references[1].audio, from: 11 * Self.rate, count: 5 * Self.rate)
        let query = TestAudio.addNoise(clean, snrDB: -11, seed: 5)
        var wideOnly = EngineParameters()
        wideOnly.signatureCandidates = 0
        let verdict = try TestAudio.match(query, TestAudio.catalog(Self.references, parameters: wideOnly).0)
        #expect(verdict.isMatch && verdict.candidate == 1 && verdict.isConfirmedBySignature)
        #expect(abs(Self.catalog.parameters.seconds(forFrames: verdict.offsetFrames) - 11) <= 0.05)
        #expect(try #require(verdict.wideSignatureScore) * 4096 >= Double(wideOnly.signatureWideMinScoreQ12))
        var neither = wideOnly
        neither.signatureWideCandidates = 0
        #expect(try TestAudio.match(query, TestAudio.catalog(Self.references, parameters: neither).0).outcome == .noMatch)
    }

    @Test func theWiderNetNeedsTheHigherScore() throws {
        // An alignment whose score passes the first round's bar but not the wider net's: 4.1 here
        // (at 12 dB it has scored 6.1 since the signatures reach down to 156 Hz).
        let clean = TestAudio.excerpt(Self.references[2].audio, from: 11 * Self.rate, count: 5 * Self.rate)
        let query = TestAudio.addNoise(clean, snrDB: -14, seed: 5)
        let first = try TestAudio.match(query, Self.catalog)
        #expect(first.isMatch && first.candidate == 2 && first.isConfirmedBySignature && first.wideSignatureScore == nil)
        var wideOnly = EngineParameters()
        wideOnly.signatureCandidates = 0
        let verdict = try TestAudio.match(query, TestAudio.catalog(Self.references, parameters: wideOnly).0)
        let wide = try #require(verdict.wideSignatureScore) * 4096
        #expect(wide >= Double(wideOnly.signatureMinScoreQ12) && wide < Double(wideOnly.signatureWideMinScoreQ12))
        #expect(verdict.outcome == .noMatch)
    }

    // Pieces whose best alignment somewhere in the catalog has enough hits for the check to run
    // (seed 11 at -3 dB no longer reaches four hits anywhere, so it says nothing here).
    @Test(arguments: [(14, -3.0), (12, -6.0), (13, 100.0)] as [(UInt64, Double)])
    func unrelatedMusicFailsTheSignatureCheck(seed: UInt64, snr: Double) throws {
        let query = TestAudio.addNoise(TestAudio.music(seed: seed, seconds: 10), snrDB: snr, seed: 9)
        let verdict = try TestAudio.match(query, Self.catalog)
        #expect(verdict.outcome == .noMatch)
        // The check did run, and unrelated music stays well below the score a match needs.
        let score = try #require(verdict.signatureScore)
        #expect(score * 4096 < Double(Self.catalog.parameters.signatureMinScoreQ12) - 4096)
        let wide = try #require(verdict.wideSignatureScore)
        #expect(wide * 4096 < Double(Self.catalog.parameters.signatureWideMinScoreQ12) - 4096)
    }

    @Test func signaturesAreNotCheckedBeforeEnoughAudio() throws {
        let clean = TestAudio.excerpt(Self.references[1].audio, from: 11 * Self.rate, count: 2 * Self.rate)
        let verdict = try TestAudio.match(TestAudio.addNoise(clean, snrDB: -12, seed: 5), Self.catalog)
        #expect(verdict.outcome == .noMatch)
        #expect((verdict.signatureBits ?? 0) < Self.catalog.parameters.signatureMinReliableBits)
    }

    @Test(arguments: [-2, -1, 1, 2])
    func toleratesPlaybackSpeedChanges(percent: Int) throws {
        // Claiming the audio was recorded at a different rate and converting it back changes its speed.
        let excerpt = TestAudio.excerpt(Self.references[0].audio, from: 10 * Self.rate, count: 8 * Self.rate)
        let claimed = PCMAudio(sampleRate: Self.rate * (100 + percent) / 100, samples: excerpt.samples)
        let query = Resampler.convert(claimed, to: Self.rate)
        let verdict = try TestAudio.match(query, Self.catalog)
        #expect(verdict.isMatch && verdict.candidate == 0)
        #expect(abs(Self.catalog.parameters.seconds(forFrames: verdict.offsetFrames) - 10) <= 0.1)
        // The speed estimate is as fine as the hypotheses: within one 0.5 % step.
        #expect(abs(verdict.speedStep * 100 - percent * Self.catalog.parameters.speedDenominator) <= 100)
    }

    @Test func silenceIsNoMatchWithNothingHeard() throws {
        let verdict = try TestAudio.match(
            PCMAudio(sampleRate: Self.rate, samples: [Int16](repeating: 0, count: 10 * Self.rate)), Self.catalog)
        #expect(verdict.outcome == .noMatch)
        #expect(verdict.queryPeaks == 0)
        let dither = TestAudio.noise(seed: 3, count: 10 * Self.rate, rms: 1)
        #expect(try TestAudio.match(dither, Self.catalog).queryPeaks == 0)
    }

    @Test(arguments: [100.0, 3000.0])
    func noiseIsNoMatch(rms: Double) throws {
        let verdict = try TestAudio.match(TestAudio.noise(seed: 11, count: 10 * Self.rate, rms: rms), Self.catalog)
        #expect(verdict.outcome == .noMatch)
        #expect(verdict.queryPeaks > 0)
    }

    @Test(arguments: [101, 102, 103])
    func unrelatedMusicIsNoMatch(seed: UInt64) throws {
        let verdict = try TestAudio.match(TestAudio.music(seed: seed, seconds: 10), Self.catalog)
        #expect(verdict.outcome == .noMatch)
    }

    @Test func verdictDoesNotDependOnBufferSizes() throws {
        let query = TestAudio.excerpt(Self.references[3].audio, from: 5 * Self.rate, count: 5 * Self.rate)
        let a = try TestAudio.match(query, Self.catalog, buffer: 160)
        let b = try TestAudio.match(query, Self.catalog, buffer: 4096)
        #expect(a == b)
    }

    @Test func verdictIsAvailableAtAnyTimeAndGrowsWithEvidence() throws {
        let matcher = try QueryMatcher(catalog: Self.catalog)
        #expect(matcher.verdict().outcome == .noMatch)
        let audio = Self.references[1].audio.samples
        var scores: [Int] = []
        for second in 20..<26 {
            matcher.push(Array(audio[(second * Self.rate)..<((second + 1) * Self.rate)]))
            scores.append(matcher.verdict().score)
        }
        #expect(scores == scores.sorted())
        #expect(matcher.verdict().isMatch && matcher.verdict().candidate == 1)
    }

    @Test func queriesBeyondTheLimitAreTruncatedNotUnbounded() throws {
        var p = EngineParameters()
        p.maxQuerySeconds = 3
        let (catalog, _) = try TestAudio.catalog([("song-1", Self.references[0].audio)], parameters: p)
        let matcher = try QueryMatcher(catalog: catalog)
        matcher.push(Array(Self.references[0].audio.samples.prefix(10 * Self.rate)))
        #expect(matcher.truncated)
        #expect(matcher.framesHeard <= 3 * Self.rate / p.hopSize + 1)
    }
}
