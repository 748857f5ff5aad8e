/// The signatures of a query's frames, and how reliable each bit is, kept as the query is heard so
/// that any alignment can be checked against a reference's signatures at verdict time.
struct QuerySignatures {
    /// The query's bits, and per reliability level a mask per frame: mask `level` holds the bits
    /// whose band difference moved at least as much as the share `signatureWeightSharesQ8[level]`
    /// of all bits did. A bit's weight is the number of masks that hold it.
    struct Reliable {
        let bits: [UInt16]
        /// `levels` masks per frame, frame after frame.
        let masks: [UInt16]
        let levels: Int
        /// Running totals over the frames before each frame (one more entry than frames): the bits
        /// with any weight, the sum of weights and the sum of squared weights. The same for every
        /// alignment, so an alignment's totals are two subtractions over the frames it covers.
        let bitsBefore: [Int]
        let weightBefore: [Int]
        let weightSquaresBefore: [Int]
        let firstFrame: Int
        /// The bits and masks again, four frames to a word (frame 4w in the low 16 bits of word
        /// w, `levels` mask words per word), so that four frames compare in one step where the
        /// reference's frames are consecutive (the recorded speed).
        let packedBits: [UInt64]
        let packedMasks: [UInt64]
    }

    private let parameters: EngineParameters
    private let extractor: SignatureExtractor
    private var bits: [UInt16] = []
    private var magnitudes: [UInt16] = []  // `bitsPerFrame` per frame
    private var scratch = [UInt16](repeating: 0, count: SignatureExtractor.bitsPerFrame)
    /// Movements this large or larger all count as equally reliable: it bounds the histogram.
    private static let magnitudeCeiling = 1024

    init(parameters: EngineParameters) {
        self.parameters = parameters
        extractor = SignatureExtractor(parameters: parameters)
    }

    var frames: Int { bits.count }

    mutating func append(power: [UInt64]) {
        bits.append(extractor.push(power: power, magnitudes: &scratch))
        magnitudes.append(contentsOf: scratch)
    }

    /// The masks of every reliability level, over the frames heard after the warm-up frames.
    func reliable() -> Reliable {
        let first = SignatureExtractor.warmUpFrames(parameters)
        let perFrame = SignatureExtractor.bitsPerFrame
        let shares = parameters.signatureWeightSharesQ8
        let levels = shares.count
        var masks = [UInt16](repeating: 0, count: bits.count * levels)
        var bitsBefore = [Int](repeating: 0, count: bits.count + 1)
        var weightBefore = [Int](repeating: 0, count: bits.count + 1)
        var weightSquaresBefore = [Int](repeating: 0, count: bits.count + 1)
        if bits.count > first {
            var histogram = [Int](repeating: 0, count: Self.magnitudeCeiling + 1)
            for m in magnitudes[(first * perFrame)...] { histogram[min(Int(m), Self.magnitudeCeiling)] += 1 }
            let total = (bits.count - first) * perFrame
            let thresholds = shares.map { share in Self.threshold(histogram, atLeast: max(1, total * share / 256)) }
            for frame in first..<bits.count {
                var frameBits = 0
                var frameWeight = 0
                var frameWeightSquares = 0
                for (level, threshold) in thresholds.enumerated() {
                    var mask: UInt16 = 0
                    for b in 0..<perFrame where min(Int(magnitudes[frame * perFrame + b]), Self.magnitudeCeiling) >= threshold {
                        mask |= 1 << UInt16(b)
                    }
                    masks[frame * levels + level] = mask
                    // The masks nest, so a bit of weight w is in the first w of them; w² grows by 2k + 1 at level k.
                    let count = mask.nonzeroBitCount
                    if level == 0 { frameBits = count }
                    frameWeight += count
                    frameWeightSquares += (2 * level + 1) * count
                }
                bitsBefore[frame + 1] = frameBits
                weightBefore[frame + 1] = frameWeight
                weightSquaresBefore[frame + 1] = frameWeightSquares
            }
            for frame in 0..<bits.count {
                bitsBefore[frame + 1] += bitsBefore[frame]
                weightBefore[frame + 1] += weightBefore[frame]
                weightSquaresBefore[frame + 1] += weightSquaresBefore[frame]
            }
        }
        var packedBits = [UInt64](repeating: 0, count: (bits.count + 3) / 4)
        var packedMasks = [UInt64](repeating: 0, count: packedBits.count * levels)
        for frame in bits.indices {
            let word = frame / 4
            let shift = UInt64(16 * (frame % 4))
            packedBits[word] |= UInt64(bits[frame]) << shift
            for level in 0..<levels {
                packedMasks[word * levels + level] |= UInt64(masks[frame * levels + level]) << shift
            }
        }
        return Reliable(
            bits: bits, masks: masks, levels: levels, bitsBefore: bitsBefore, weightBefore: weightBefore,
            weightSquaresBefore: weightSquaresBefore, firstFrame: first, packedBits: packedBits,
            packedMasks: packedMasks)
    }

    /// The largest magnitude that at least `wanted` values reach (ties all count).
    private static func threshold(_ histogram: [Int], atLeast wanted: Int) -> Int {
        var threshold = magnitudeCeiling
        var atOrAbove = histogram[threshold]
        while threshold > 1 && atOrAbove < wanted {
            threshold -= 1
            atOrAbove += histogram[threshold]
        }
        return threshold
    }
}
