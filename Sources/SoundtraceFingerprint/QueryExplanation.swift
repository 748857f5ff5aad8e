/// Everything behind one verdict, for people asking "why no match here?" and "how sure was it?"
/// (`soundtrace explain`): what was heard (spectrogram and peaks), how the landmark hits of the
/// best candidates spread over offsets against chance, how the frame signatures agreed over time at
/// the deciding alignment, and every measure with the bar it had to pass. Reporting only: floating
/// point appears here and nowhere in a decision.
public struct QueryExplanation: Sendable {
    /// Frames per second of every time axis below.
    public let framesPerSecond: Double
    /// Log power per frame and bin (bins 0...`topBin`), 4 steps per octave of power, 0...255.
    public let spectrogram: [[UInt8]]
    public let topBin: Int
    /// Hertz per bin.
    public let hertzPerBin: Double
    /// The peaks the landmarks were made of: frame and bin.
    public let peaks: [(frame: Int, bin: Int)]

    /// A reference's aligned hits over its offsets at its best speed: `hits[i]` is the window sum
    /// of the offset `firstOffset + i * offsetsPerBar` ... (the largest in that bar).
    public struct Candidate: Sendable {
        public let referenceId: String
        public let score: Int
        public let offsetFrames: Int
        public let speedStep: Int
        public let firstOffset: Int
        public let offsetsPerBar: Int
        public let hits: [Int]
        /// Whether hashes too common to vote for every reference voted for this one too
        /// (`QueryMatcher+Candidates`): its score then counts every hit, not only the rarer hashes'.
        public let countsCommonHashes: Bool
    }
    public let candidates: [Candidate]
    /// Hits chance alone gives one alignment.
    public let chanceLevel: Double
    /// Hits through common hashes, which only candidates get (not part of `chanceLevel`).
    public let candidateHits: Int
    /// Votes the bounded vote table forgot (single votes, to make room) or refused (`SparseCounters`):
    /// either can only lower a score.
    public let forgottenVotes: Int
    public let refusedVotes: Int

    /// At the deciding alignment, per query frame: the weighted disagreement of its signature bits
    /// with the reference's, and the weight compared (0: the frame is outside the reference or its
    /// bits too unsure to count).
    public struct Agreement: Sendable {
        public let referenceId: String
        public let offsetFrames: Int
        public let errors: [Int]
        public let weights: [Int]
    }
    public let agreement: Agreement?

    public let verdict: Verdict
    public let parameters: EngineParameters
}

extension QueryMatcher {
    /// How many bars an offset histogram has at most (longer references are pooled).
    static let explanationBars = 1200

    /// The explanation of the verdict on everything heard so far. Needs `recordsForExplanation`
    /// set before any audio was pushed (the spectrogram and peaks are kept only then).
    public func explanation() -> QueryExplanation {
        let verdict = verdict()
        let p = catalog.parameters
        var candidates: [QueryExplanation.Candidate] = []
        for r in explanationReferences() {
            let stepIndex = bestStepIndex(r)
            let length = catalog.references[r].durationFrames
            let first = -min(framesHeard, votes.padding)
            let count = length - first
            let perBar = max(1, (count + Self.explanationBars - 1) / Self.explanationBars)
            var hits: [Int] = []
            var offset = first
            while offset < length {
                var best = 0
                for o in offset..<min(length, offset + perBar) {
                    if let cell = votes.cell(reference: r, step: stepIndex, offset: o) {
                        best = max(best, votes.window(cell, radius: p.offsetToleranceFrames))
                    }
                }
                hits.append(best)
                offset += perBar
            }
            candidates.append(
                .init(
                    referenceId: catalog.references[r].audio.id, score: bestScoreOf(r),
                    offsetFrames: bestOffsetOf(r), speedStep: p.speedSteps[stepIndex],
                    firstOffset: first, offsetsPerBar: perBar, hits: hits, countsCommonHashes: isCandidate[r]))
        }
        var agreement: QueryExplanation.Agreement? = nil
        if let check = verdict.signature ?? verdict.alignmentCheck, let query = reliableSignatures() {
            let (errors, weights) = SignatureCheck.perFrame(
                query: query, catalog: catalog, reference: check.reference,
                offsetFrames: check.offsetFrames, speedStep: check.speedStep)
            agreement = .init(
                referenceId: catalog.references[check.reference].audio.id, offsetFrames: check.offsetFrames,
                errors: errors, weights: weights)
        }
        let cells = max(1, catalog.totalFrames * p.speedSteps.count)
        return QueryExplanation(
            framesPerSecond: Double(p.sampleRate) / Double(p.hopSize), spectrogram: recordedSpectrogram, topBin: p.maxPeakBin,
            hertzPerBin: Double(p.sampleRate) / Double(p.fftSize), peaks: recordedPeaks.map { ($0.frame, $0.bin) },
            candidates: candidates, chanceLevel: Double(totalHits * (2 * p.offsetToleranceFrames + 1)) / Double(cells),
            candidateHits: candidateHits, forgottenVotes: votes.counts.forgotten, refusedVotes: votes.counts.dropped,
            agreement: agreement, verdict: verdict, parameters: p)
    }
}

extension SignatureCheck {
    /// Per query frame, the weighted disagreements and the weight, at one alignment (reporting).
    static func perFrame(
        query: QuerySignatures.Reliable, catalog: Catalog, reference: Int, offsetFrames: Int,
        speedStep: Int
    ) -> ([Int], [Int]) {
        let p = catalog.parameters
        let start = catalog.signatureStart[reference]
        let length = catalog.references[reference].durationFrames
        let frames = query.bits.count
        var errors = [Int](repeating: 0, count: frames)
        var weights = [Int](repeating: 0, count: frames)
        for frame in query.firstFrame..<max(query.firstFrame, frames) {
            let referenceFrame = offsetFrames + roundedDivide(frame * (p.speedDenominator + speedStep), p.speedDenominator)
            guard referenceFrame >= 0, referenceFrame < length else { continue }
            let disagreements = query.bits[frame] ^ catalog.signatures[start + referenceFrame]
            for level in 0..<query.levels {
                let mask = query.masks[frame * query.levels + level]
                errors[frame] += (disagreements & mask).nonzeroBitCount
                weights[frame] += mask.nonzeroBitCount
            }
        }
        return (errors, weights)
    }
}
