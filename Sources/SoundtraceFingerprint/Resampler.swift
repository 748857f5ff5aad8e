/// Converts mono 16-bit audio from any supported rate to the engine's rate with a windowed-sinc
/// polyphase filter whose taps are computed in integer arithmetic. Streaming: feed buffers as they
/// come and call `finish()` once; the output is the same however the input is split.
public struct Resampler: Sendable {
    public let inputRate: Int
    public let outputRate: Int

    /// Fractional input positions are rounded to 1/phases of a sample.
    private static let phases = 64
    /// Zero crossings of the sinc on each side of the centre.
    private static let zeroCrossings = 10
    /// Pass band edge as a share of the lower of the two Nyquist frequencies, in percent.
    private static let cutoffPercent = 90

    private let taps: [[Int32]]  // [phase][tap]; tap 0 is at input offset -halfTaps+1-leadingZeros
    private let halfTaps: Int
    /// Zero taps put in front of every kernel so that it is a whole number of eight-tap vectors:
    /// the same sums without a tap-by-tap tail (16 kHz to 8 kHz has 46 taps, 48 with these).
    private let leadingZeros: Int
    /// Whether every phase's sum of |tap| × the largest |sample| fits an Int32, so that a sum in
    /// 32 bits is exact (true for every rate pair the engine meets, whose kernels sum to about
    /// 1.1-1.3; ResamplerTests compares both sums at every rate a recording or microphone comes in):
    /// half the work of 64-bit sums, and the same output to the bit.
    private let sumsFitInt32: Bool
    /// The taps again as Int16 for the vector path, when every one fits and the sums fit 32 bits
    /// (all of the engine's rate pairs: the largest tap is the centre one, below one in Q15);
    /// otherwise every sum is made in 64 bits. Both factors of every product are 16-bit, which the
    /// vector units multiply and pair-add in one step (x86's pmaddwd, Arm's smlal); 32-bit taps
    /// needed a 32-bit multiply, which baseline x86-64 emulates (pmuludq and shuffles), a fifth of
    /// a catalog build's instructions then (docs/BENCHMARKS.md). One array, phase after phase, each
    /// `kernelLength` taps: the output loop then takes no array out of another for each sample.
    private let taps16: [Int16]?
    private let kernelLength: Int
    private let positions: ResamplerPositions
    private var buffer: [Int16]
    private var bufferStart: Int  // absolute input index of buffer[0]
    private var inputCount = 0
    private var outputIndex = 0
    private var finished = false

    public init(inputRate: Int, outputRate: Int) {
        self.init(inputRate: inputRate, outputRate: outputRate, allow32BitSums: true)
    }

    /// `allow32BitSums: false` always sums in 64 bits: the reference the vector path is tested against.
    init(inputRate: Int, outputRate: Int, allow32BitSums: Bool) {
        precondition(inputRate > 0 && outputRate > 0)
        self.inputRate = inputRate
        self.outputRate = outputRate
        positions = ResamplerPositions(inputRate: inputRate, outputRate: outputRate, phases: Self.phases)
        if inputRate == outputRate {
            taps = []
            halfTaps = 0
            leadingZeros = 0
        } else {
            let filter = ResamplerFilters.shared.filter(inputRate: inputRate, outputRate: outputRate) {
                Self.filter(inputRate: inputRate, outputRate: outputRate)
            }
            halfTaps = filter.halfTaps
            let zeros = (8 - 2 * filter.halfTaps % 8) % 8
            leadingZeros = zeros
            taps = filter.taps.map { [Int32](repeating: 0, count: zeros) + $0 }
        }
        sumsFitInt32 =
            allow32BitSums
            && taps.allSatisfy { kernel in
                kernel.reduce(0) { $0 + Int64(abs($1)) } * 32768 + (1 << 14) <= Int64(Int32.max)
            }
        let fitInt16 = taps.allSatisfy { $0.count % 8 == 0 && $0.allSatisfy { Int32(Int16.min)...Int32(Int16.max) ~= $0 } }
        taps16 = sumsFitInt32 && fitInt16 ? taps.flatMap { $0.map { Int16($0) } } : nil
        kernelLength = taps.first?.count ?? 0
        // The first outputs look back halfTaps samples before the start (and the zero taps a few
        // more): silence.
        buffer = [Int16](repeating: 0, count: halfTaps + leadingZeros)
        bufferStart = -halfTaps - leadingZeros
    }

    /// Whether the vector path multiplies 16-bit taps (`taps16`).
    var usesSixteenBitTaps: Bool { taps16 != nil }

    /// The windowed-sinc filter for a rate pair, computed afresh (`ResamplerFilters` keeps them).
    static func filter(inputRate: Int, outputRate: Int) -> ResamplerFilters.Filter {
        let cutoffHz = min(inputRate, outputRate) * Self.cutoffPercent / 200
        // Half width of the kernel in input samples: zeroCrossings periods of the cutoff.
        let half = (Self.zeroCrossings * inputRate + 2 * cutoffHz - 1) / (2 * cutoffHz)
        return ResamplerFilters.Filter(
            taps: (0..<Self.phases).map { Self.kernel(phase: $0, half: half, cutoffHz: cutoffHz, inputRate: inputRate) },
            halfTaps: half)
    }

    /// Taps for output positions `phase/phases` of a sample after an input sample, Q15, summing to 1.
    private static func kernel(phase: Int, half: Int, cutoffHz: Int, inputRate: Int) -> [Int32] {
        let p = phases
        var raw: [Int128] = []
        // Offsets k from -half+1 ... half relative to the input sample at or before the position.
        for k in (-half + 1)...half {
            let distance = k * p - phase  // t * phases, t in input samples
            let sinc: Int128
            if distance == 0 {
                sinc = (Int128(2 * cutoffHz) << 40) / Int128(inputRate)
            } else {
                // sin(pi * 2 * cutoff * t / rate) / (pi * t), with t = distance / phases.
                let s = Int128(FixedTrig.sin(numerator: cutoffHz * distance, denominator: inputRate * p, scale: 1 << 40))
                sinc = (s * Int128(p) << 61) / (Int128(7_244_019_458_077_122_842) * Int128(distance))
            }
            // Blackman window over |t| <= half.
            let span = 2 * half * p
            let c1 = Int128(FixedTrig.cos(numerator: distance, denominator: span, scale: 1 << 30))
            let c2 = Int128(FixedTrig.cos(numerator: 2 * distance, denominator: span, scale: 1 << 30))
            let window = (42 * (Int128(1) << 30) + 50 * c1 + 8 * c2) / 100
            raw.append((max(0, window) * sinc) >> 30)
        }
        let total = raw.reduce(0, +)
        var q15 = raw.map { Int32((($0 << 15) + total / 2) / total) }
        // Rounding residue goes to the largest tap so that DC gain is exactly one.
        let residue = 32768 - q15.reduce(0, +)
        if let largest = q15.indices.max(by: { q15[$0] < q15[$1] }) { q15[largest] += residue }
        return q15
    }

    /// Resamples `input` (the next samples of the stream) and returns the output it completes.
    public mutating func process(_ input: [Int16]) -> [Int16] {
        precondition(!finished, "Resampler used after finish()")
        if inputRate == outputRate { return input }
        buffer.append(contentsOf: input)
        inputCount += input.count
        return drain(available: inputCount)
    }

    /// Flushes the tail (the filter's look-ahead is filled with silence) and ends the stream.
    public mutating func finish() -> [Int16] {
        if inputRate == outputRate || finished {
            finished = true
            return []
        }
        finished = true
        // Outputs whose position lies within the input, using silence beyond its end.
        buffer.append(contentsOf: [Int16](repeating: 0, count: halfTaps + 1))
        var out: [Int16] = []
        while true {
            let (index, _) = position(of: outputIndex)
            if index >= inputCount { break }
            out.append(sample(at: outputIndex))
            outputIndex += 1
        }
        return out
    }

    /// Input index (the sample at or before) and phase of output sample `n`.
    private func position(of n: Int) -> (Int, Int) {
        positions.position(of: n)
    }

    /// How many samples a whole stream of `inputCount` samples becomes, without resampling it:
    /// outputs are made for every position that lies within the input (see `finish`).
    public static func outputCount(inputCount: Int, inputRate: Int, outputRate: Int) -> Int {
        precondition(inputRate > 0 && outputRate > 0 && inputCount >= 0)
        if inputRate == outputRate { return inputCount }
        // Positions only move forward: find the first output whose input index is past the end.
        var lo = 0
        var hi = inputCount * outputRate / inputRate + 2
        while lo < hi {
            let mid = (lo + hi) / 2
            let index = ResamplerPositions.exactPosition(of: mid, inputRate: inputRate, outputRate: outputRate, phases: Self.phases).index
            if index < inputCount { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    private func sample(at n: Int) -> Int16 {
        let (index, phase) = position(of: n)
        return buffer.withUnsafeBufferPointer { sample(index: index, phase: phase, input: $0) }
    }

    /// The output sample at input position `index` + `phase`/phases, from `input` (the buffer).
    @inline(__always) private func sample(index: Int, phase: Int, input: UnsafeBufferPointer<Int16>) -> Int16 {
        let first = index - halfTaps + 1 - leadingZeros - bufferStart
        if let taps16 {
            return taps16.withUnsafeBufferPointer { kernels in
                Self.vectorSample(input.baseAddress! + first, kernels.baseAddress! + phase * kernelLength, count: kernelLength)
            }
        }
        var acc: Int64 = 0
        taps[phase].withUnsafeBufferPointer { kernel in
            for t in 0..<kernel.count {
                acc += Int64(kernel[t]) * Int64(input[first + t])
            }
        }
        let rounded = (acc + (1 << 14)) >> 15
        return Int16(clamping: rounded)
    }

    /// One output of the vector path: `count` 16-bit taps (whole eight-tap vectors: `leadingZeros`)
    /// times the samples from `samples`, rounded from Q15. Wrapping operators only to drop
    /// overflow checks: `sumsFitInt32` bounds every sum. Neighbouring products are added first,
    /// the shape of x86's pmaddwd (one instruction for eight products) and of Arm's pairwise adds.
    @inline(__always) private static func vectorSample(_ samples: UnsafePointer<Int16>, _ weights: UnsafePointer<Int16>, count: Int)
        -> Int16
    {
        let samples = UnsafeRawPointer(samples)
        let weights = UnsafeRawPointer(weights)
        var lanes = SIMD4<Int32>()
        var t = 0
        while t < count {
            let x = SIMD8<Int32>(truncatingIfNeeded: samples.loadUnaligned(fromByteOffset: 2 &* t, as: SIMD8<Int16>.self))
            let w = SIMD8<Int32>(truncatingIfNeeded: weights.loadUnaligned(fromByteOffset: 2 &* t, as: SIMD8<Int16>.self))
            let products = x &* w
            lanes &+= products.evenHalf &+ products.oddHalf
            t &+= 8
        }
        return Int16(clamping: (lanes.wrappedSum() &+ (1 << 14)) >> 15)
    }

    private mutating func drain(available: Int) -> [Int16] {
        var walk = ResamplerPositions.Walk(positions, from: outputIndex)
        // At most out/in outputs per input sample still to come, and one for the start's rounding:
        // the output is written in place, without a check per sample that it has room.
        let room = max(0, (available - walk.current.index) * outputRate / inputRate + 2)
        let out = [Int16](unsafeUninitializedCapacity: room) { out, made in
            buffer.withUnsafeBufferPointer { input in
                if let taps16 {
                    taps16.withUnsafeBufferPointer { kernels in
                        let lookBack = halfTaps - 1 + leadingZeros + bufferStart
                        while made < room {
                            let (index, phase) = walk.current
                            if index + halfTaps >= available { break }
                            out[made] = Self.vectorSample(
                                input.baseAddress! + (index - lookBack), kernels.baseAddress! + phase * kernelLength, count: kernelLength)
                            made += 1
                            walk.next()
                        }
                    }
                } else {
                    while made < room {
                        let (index, phase) = walk.current
                        if index + halfTaps >= available { break }
                        out[made] = sample(index: index, phase: phase, input: input)
                        made += 1
                        walk.next()
                    }
                }
            }
        }
        outputIndex += out.count
        // Drop input no longer needed, keeping the filter's look-back.
        let (nextIndex, _) = position(of: outputIndex)
        let keepFrom = nextIndex - halfTaps + 1 - leadingZeros
        let drop = keepFrom - bufferStart
        if drop > 4096 {
            buffer.removeFirst(drop)
            bufferStart += drop
        }
        return out
    }

    /// Resamples a whole recording to `rate`.
    public static func convert(_ audio: PCMAudio, to rate: Int) -> PCMAudio {
        if audio.sampleRate == rate { return audio }
        var resampler = Resampler(inputRate: audio.sampleRate, outputRate: rate)
        var out = resampler.process(audio.samples)
        out.append(contentsOf: resampler.finish())
        return PCMAudio(sampleRate: rate, samples: out)
    }
}
