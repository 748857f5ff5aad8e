/// Streaming per-frame signature: one bit per pair of neighbouring bands, set when the difference
/// of their (smoothed) log energies grew since `lag` frames ago. A dense, whole-spectrum summary of
/// how the music moves, independent of the landmark peaks: where noise has erased most peaks, the
/// coarse band motion usually survives, so it can confirm a weak landmark alignment (see
/// `SignatureCheck`). Integer arithmetic only, so references and queries agree on every machine.
final class SignatureExtractor {
    /// Bits per frame: one fewer than the bands.
    static let bitsPerFrame = 16

    private let edges: [Int]
    private let bands: Int
    private let smoothing: Int
    private let lag: Int
    // Rings, flat: the last `smoothing` frames' band energies and the last `lag` frames' band differences.
    @exclusivity(unchecked) private var bandHistory: [UInt64]
    @exclusivity(unchecked) private var bandSums: [UInt64]
    @exclusivity(unchecked) private var differenceHistory: [Int32]
    @exclusivity(unchecked) private var logEnergy: [Int32]
    private var frame = 0

    init(parameters: EngineParameters) {
        edges = parameters.signatureBandEdges
        smoothing = parameters.signatureSmoothingFrames
        lag = parameters.signatureLagFrames
        precondition(edges.count == Self.bitsPerFrame + 2, "signature needs \(Self.bitsPerFrame + 1) bands")
        bands = edges.count - 1
        bandHistory = [UInt64](repeating: 0, count: bands * smoothing)
        bandSums = [UInt64](repeating: 0, count: bands)
        differenceHistory = [Int32](repeating: 0, count: (bands - 1) * lag)
        logEnergy = [Int32](repeating: 0, count: bands)
    }

    /// Frames at the start of a stream whose signature covers fewer frames than usual.
    static func warmUpFrames(_ parameters: EngineParameters) -> Int {
        parameters.signatureSmoothingFrames - 1 + parameters.signatureLagFrames
    }

    /// Takes the next frame's power spectrum; returns its signature bits and, per bit, how far the
    /// difference moved (log2 Q8 units): the larger, the less likely noise flipped the bit.
    func push(power: [UInt64], magnitudes: inout [UInt16]) -> UInt16 {
        let history = (frame % smoothing) * bands
        power.withUnsafeBufferPointer { power in
            for b in 0..<bands {
                var energy: UInt64 = 0
                // Shifted so that a band of full-scale bins summed over the smoothing window cannot overflow.
                for bin in edges[b]..<edges[b + 1] { energy &+= power[bin] >> 8 }
                bandSums[b] = bandSums[b] &- bandHistory[history + b] &+ energy
                bandHistory[history + b] = energy
                logEnergy[b] = FixedLog.log2Q8(bandSums[b])
            }
        }
        let differences = (frame % lag) * (bands - 1)
        var bits: UInt16 = 0
        for b in 0..<(bands - 1) {
            let difference = logEnergy[b] - logEnergy[b + 1]
            let motion = difference - differenceHistory[differences + b]
            differenceHistory[differences + b] = difference
            if motion > 0 { bits |= 1 << UInt16(b) }
            magnitudes[b] = UInt16(min(Int(motion.magnitude), Int(UInt16.max)))
        }
        frame += 1
        return bits
    }
}
