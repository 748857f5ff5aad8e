/// Streaming band levels: per frame, the power of each level band summed over the last
/// `signatureSmoothingFrames` frames (the same window as the signatures), as linear integers,
/// for one or more band layouts at once (a query keeps one per playback speed hypothesis, with
/// the band edges moved by that speed: music played faster has every partial that much higher,
/// so a strong partial near an edge would otherwise cross into the neighbouring band and look
/// like a missing layer). The catalog keeps the levels coarsely (see `ReferenceLevels`), the
/// query exactly; together they show whether everything the reference has at an alignment is
/// also in what was heard (`ContainmentCheck`). Integer arithmetic only.
final class BandLevelExtractor {
    let bands: Int
    let layouts: Int
    /// The distinct bands of all layouts, each `(lowest bin, bin past the highest)`, in the order
    /// they first appear. Moved by ±2 %, most band edges round to the same bin (44 of the default
    /// 99 bands are distinct), and a band with the same bins has the same level whatever layout it
    /// belongs to: each is summed and kept once (`HeardLevels` holds every frame of them).
    let distinctBands: [(low: Int, high: Int)]
    /// For band `band` of layout `layout`, the index of its distinct band: `column[layout * bands + band]`.
    let column: [Int]
    private let lowestBin: Int
    private let smoothing: Int
    @exclusivity(unchecked) private var prefix: [UInt64]
    @exclusivity(unchecked) private var history: [UInt64]
    /// The smoothed powers of the latest frame's distinct bands.
    @exclusivity(unchecked) private(set) var distinctSums: [UInt64]
    private var frame = 0

    /// Bits dropped from each bin's power before summing: a band of up to 64 full-scale bins over
    /// the smoothing window stays far from overflowing 64 bits.
    static let powerShift: UInt64 = 10

    /// One layout per speed numerator in `speedNumerators` (over `speedDenominator`), each of the
    /// low level bands and then the level bands (`allEdges`).
    init(parameters: EngineParameters, speedNumerators: [Int] = [1], speedDenominator: Int = 1) {
        let base = Self.allEdges(parameters)
        bands = base.count - 1
        layouts = speedNumerators.count
        let top = parameters.fftSize / 2
        let edges = speedNumerators.flatMap { n in base.map { min(top, roundedDivide($0 * n, speedDenominator)) } }
        var distinct: [(low: Int, high: Int)] = []
        var column: [Int] = []
        for layout in 0..<layouts {
            for band in 0..<bands {
                let e = layout * (bands + 1) + band
                let bins = (low: edges[e], high: edges[e + 1])
                if let known = distinct.firstIndex(where: { $0 == bins }) {
                    column.append(known)
                } else {
                    column.append(distinct.count)
                    distinct.append(bins)
                }
            }
        }
        distinctBands = distinct
        self.column = column
        lowestBin = edges.min() ?? 0
        smoothing = parameters.signatureSmoothingFrames
        prefix = [UInt64](repeating: 0, count: (edges.max() ?? 0) - lowestBin + 1)
        history = [UInt64](repeating: 0, count: distinct.count * smoothing)
        distinctSums = [UInt64](repeating: 0, count: distinct.count)
    }

    /// The smoothed band powers of the latest frame, `bands` per layout, layout after layout.
    var sums: [UInt64] { column.map { distinctSums[$0] } }

    /// The low level bands' edges, then the level bands' (the low bands end where those begin).
    static func allEdges(_ p: EngineParameters) -> [Int] {
        precondition(p.lowLevelBandEdges.last == p.levelBandEdges.first, "the low level bands end where the level bands begin")
        return p.lowLevelBandEdges.dropLast() + p.levelBandEdges
    }

    /// Takes the next frame's power spectrum; `distinctSums` (and `sums`) then hold the smoothed band powers.
    func push(power: [UInt64]) {
        // Running sums over the bins once, so that every band is one subtraction.
        power.withUnsafeBufferPointer { power in
            var running: UInt64 = 0
            prefix[0] = 0
            for i in 1..<prefix.count {
                running &+= power[lowestBin + i - 1] >> Self.powerShift
                prefix[i] = running
            }
        }
        let slot = (frame % smoothing) * distinctBands.count
        for (k, bins) in distinctBands.enumerated() {
            let energy = prefix[bins.high - lowestBin] &- prefix[bins.low - lowestBin]
            distinctSums[k] = distinctSums[k] &- history[slot + k] &+ energy
            history[slot + k] = energy
        }
        frame += 1
    }
}

/// A reference's band levels as the catalog stores them: every `levelStepFrames` frames (frame 0,
/// 8, 16, …), per band the number of 3 dB steps below that band's loudest stored level, 0…15,
/// four bits a band, up to eight bands to a 32-bit word: first the word of the level bands, then
/// the word of the low level bands. A step of 3 dB is a factor of two in power, so a stored level
/// turns back into relative power with a shift.
enum ReferenceLevels {
    static let bitsPerBand = 4
    static let maxStep = (1 << bitsPerBand) - 1
    /// Words per kept frame: the level bands', then the low level bands'.
    static let wordsPerFrame = 2

    /// Collects the smoothed band powers of the frames the catalog keeps.
    struct Collector {
        private let parameters: EngineParameters
        private let extractor: BandLevelExtractor
        private var logLevels: [Int32] = []  // bands per kept frame, log2 Q8
        private var frame = 0

        init(parameters: EngineParameters) {
            precondition(
                parameters.levelBandEdges.count - 1 == 32 / ReferenceLevels.bitsPerBand
                    && parameters.lowLevelBandEdges.count - 1 <= 32 / ReferenceLevels.bitsPerBand,
                "one 32-bit word per band layout and kept frame")
            self.parameters = parameters
            extractor = BandLevelExtractor(parameters: parameters)
        }

        mutating func push(power: [UInt64]) {
            extractor.push(power: power)
            if frame % parameters.levelStepFrames == 0 {
                for c in extractor.column { logLevels.append(FixedLog.log2Q8(extractor.distinctSums[c])) }
            }
            frame += 1
        }

        /// The packed words, `wordsPerFrame` per kept frame.
        func words() -> [UInt32] {
            let bands = extractor.bands
            let lowBands = parameters.lowLevelBandEdges.count - 1
            let kept = logLevels.count / max(1, bands)
            var loudest = [Int32](repeating: 0, count: bands)
            for k in 0..<kept {
                for b in 0..<bands { loudest[b] = max(loudest[b], logLevels[k * bands + b]) }
            }
            let step = Int32(1 << FixedLog.fractionBits)  // 3 dB
            func word(_ k: Int, _ range: Range<Int>) -> UInt32 {
                var word: UInt32 = 0
                for b in range {
                    let below = (loudest[b] - logLevels[k * bands + b] + step / 2) / step
                    word |=
                        UInt32(min(Int32(ReferenceLevels.maxStep), below)) << UInt32((b - range.lowerBound) * ReferenceLevels.bitsPerBand)
                }
                return word
            }
            return (0..<kept).flatMap { k in [word(k, lowBands..<bands), word(k, 0..<lowBands)] }
        }
    }

    /// Level words of a reference of `frames` frames.
    static func count(frames: Int, parameters: EngineParameters) -> Int {
        wordsPerFrame * ((frames + parameters.levelStepFrames - 1) / parameters.levelStepFrames)
    }

    /// Steps below the band's loudest level of band `band` in `word`.
    @inline(__always)
    static func step(_ word: UInt32, band: Int) -> Int {
        Int((word >> UInt32(band * bitsPerBand)) & UInt32(maxStep))
    }
}
