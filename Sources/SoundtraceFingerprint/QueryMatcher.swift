/// Incremental matching of one query against a catalog: feed contiguous audio at the engine's rate
/// as it arrives, ask for a verdict at any time. Landmark hits vote for (reference, speed, offset);
/// a match is an alignment that stands well clear of every other reference and of chance.
public final class QueryMatcher {
    public let catalog: Catalog
    private let parameters: EngineParameters
    private let spectrogram: Spectrogram
    private let picker: PeakPicker
    private let pairer: PeakPairer
    private let maxFrames: Int

    private var votes: [Int64: UInt16] = [:]
    private var bestScore: [Int]
    private var bestOffset: [Int]
    private var bestStep: [Int]
    private var hits = 0
    private var peaks = 0
    private var landmarks = 0
    private var finished = false
    /// True once audio beyond `maxQuerySeconds` was offered and ignored.
    public private(set) var truncated = false

    public enum Failure: Error, Equatable { case fftUnavailable }

    public init(catalog: Catalog) throws(Failure) {
        self.catalog = catalog
        let p = catalog.parameters
        parameters = p
        guard let spectrogram = Spectrogram(parameters: p) else { throw .fftUnavailable }
        self.spectrogram = spectrogram
        picker = PeakPicker(parameters: p, peaksPerBlock: p.queryPeaksPerBlock)
        // The zone is a little wider than the reference's, so that pairs of sped-up or slowed-down
        // audio still form; hashes outside the reference's layout are dropped after warping.
        pairer = PeakPairer(minFrames: max(1, p.minPairFrames - 1), maxFrames: p.maxPairFrames + 2,
                            maxBins: p.maxPairBins + 2, fanOut: p.queryFanOut)
        maxFrames = p.maxQuerySeconds * p.sampleRate / p.hopSize
        let count = catalog.references.count
        bestScore = [Int](repeating: 0, count: count)
        bestOffset = [Int](repeating: 0, count: count)
        bestStep = [Int](repeating: 0, count: count)
    }

    /// Frames of audio analysed so far.
    public var framesHeard: Int { spectrogram.framesProduced }

    /// Adds the next contiguous samples of the query (at the engine's sample rate).
    public func push(_ samples: [Int16]) {
        guard !finished else { return }
        let room = (maxFrames - spectrogram.framesProduced) * parameters.hopSize + parameters.fftSize
        var input = samples
        if input.count > room {
            input.removeLast(input.count - max(0, room))
            truncated = true
        }
        spectrogram.push(input) { frame, row in
            guard frame < maxFrames else { return }
            picker.push(frame: frame, logPower: row, emit: self.addPeak)
        }
    }

    /// Ends the query: the last frames are analysed with what look-ahead there is.
    public func finish() {
        guard !finished else { return }
        finished = true
        picker.finish(emit: addPeak)
    }

    private func addPeak(_ peak: Peak) {
        peaks += 1
        pairer.push(peak, emit: addPair)
    }

    private func addPair(_ anchor: Peak, _ target: Peak) {
        landmarks += 1
        let d = parameters.speedDenominator
        let limit = parameters.maxEntriesPerHash
        for step in parameters.speedSteps {
            let n = d + step
            let anchorBin = roundedDivide(anchor.binQ4 * d, n)
            let targetBin = roundedDivide(target.binQ4 * d, n)
            let deltaTime = roundedDivide((target.timeQ4 - anchor.timeQ4) * n, d)
            guard let hash = LandmarkHash.make(anchorBinQ4: anchorBin, targetBinQ4: targetBin, deltaTimeQ4: deltaTime) else { continue }
            let anchorFrame = roundedDivide(anchor.timeQ4 * n, d * 16)
            catalog.index.lookup(hash, limit: limit) { reference, frame in
                vote(reference: reference, step: step, offset: frame - anchorFrame)
            }
        }
    }

    private static let offsetBias = 1 << 24

    private func key(_ reference: Int, _ step: Int, _ offset: Int) -> Int64 {
        Int64(reference) << 40 | Int64(step + 128) << 32 | Int64(offset + Self.offsetBias)
    }

    private func vote(reference: Int, step: Int, offset: Int) {
        hits += 1
        let k = key(reference, step, offset)
        let count = votes[k, default: 0]
        if count < UInt16.max { votes[k] = count + 1 }
        let tolerance = parameters.offsetToleranceFrames
        for centre in (offset - tolerance)...(offset + tolerance) {
            var score = 0
            for o in (centre - tolerance)...(centre + tolerance) {
                score += Int(votes[key(reference, step, o)] ?? 0)
            }
            if score > bestScore[reference] {
                bestScore[reference] = score
                bestOffset[reference] = centre
                bestStep[reference] = step
            }
        }
    }

    /// The vote-weighted centre of the winning alignment window, a steadier offset than its centre bin.
    private func refinedOffset(_ reference: Int) -> Int {
        let centre = bestOffset[reference]
        let tolerance = parameters.offsetToleranceFrames
        var weighted = 0
        var total = 0
        for o in (centre - tolerance)...(centre + tolerance) {
            let count = Int(votes[key(reference, bestStep[reference], o)] ?? 0)
            weighted += count * o
            total += count
        }
        return total > 0 ? roundedDivide(weighted, total) : centre
    }

    /// The verdict on everything heard so far. Cheap enough to ask after every buffer.
    public func verdict() -> Verdict {
        var winner: Int? = nil
        for r in bestScore.indices where bestScore[r] > 0 {
            if winner.map({ bestScore[r] > bestScore[$0] }) ?? true { winner = r }
        }
        var runnerUp = 0
        for r in bestScore.indices where r != winner { runnerUp = max(runnerUp, bestScore[r]) }
        let p = parameters
        let cells = max(1, catalog.totalFrames * p.speedSteps.count)
        let chanceQ8 = hits * (2 * p.offsetToleranceFrames + 1) * 256 / cells
        let score = winner.map { bestScore[$0] } ?? 0
        let isMatch = winner != nil
            && score >= p.minAlignedHits
            && score * 256 >= p.minRatioOverRunnerUpQ8 * max(runnerUp, 1)
            && score * 256 * 256 >= p.minRatioOverChanceQ8 * chanceQ8
        return Verdict(outcome: isMatch ? .match : .noMatch, candidate: winner,
                       offsetFrames: winner.map(refinedOffset) ?? 0, speedStep: winner.map { bestStep[$0] } ?? 0,
                       score: score, runnerUpScore: runnerUp, chanceLevelQ8: chanceQ8, queryPeaks: peaks,
                       queryLandmarks: landmarks, framesHeard: framesHeard)
    }
}
