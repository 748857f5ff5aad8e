/// Streaming front end: 16-bit samples at the engine rate in, one row of log2-power per hop out.
/// Frame k covers samples [k*hop, k*hop + fftSize) of the stream.
final class Spectrogram {
    let parameters: EngineParameters
    private let fft: FixedRealFFT
    private let window: [Int32]  // periodic Hann, Q15
    @exclusivity(unchecked) private var pending: [Int16] = []
    @exclusivity(unchecked) private var frameInput: [Int32]
    @exclusivity(unchecked) private var power: [UInt64]
    private(set) var framesProduced = 0
    /// The power spectrum of the frame most recently passed to `push`'s row callback.
    var lastPower: [UInt64] { power }

    init?(parameters: EngineParameters) {
        guard let fft = FixedRealFFT(size: parameters.fftSize) else { return nil }
        self.parameters = parameters
        self.fft = fft
        let n = parameters.fftSize
        window = (0..<n).map { i in
            // 0.5 - 0.5 cos(2 pi i / n), in Q15.
            Int32((32767 - FixedTrig.cos(numerator: i, denominator: n, scale: 32767) + 1) / 2)
        }
        frameInput = [Int32](repeating: 0, count: n)
        power = [UInt64](repeating: 0, count: n / 2 + 1)
    }

    /// Appends samples and calls `row` with each completed frame's index and log2-power (Q8) per bin.
    func push(_ samples: [Int16], row: (Int, [Int32]) -> Void) {
        pending.append(contentsOf: samples)
        let n = parameters.fftSize
        let hop = parameters.hopSize
        var start = 0
        var logPower = [Int32](repeating: 0, count: n / 2 + 1)
        while pending.count - start >= n {
            pending.withUnsafeBufferPointer { samples in
                window.withUnsafeBufferPointer { window in
                    frameInput.withUnsafeMutableBufferPointer { input in
                        for i in 0..<n {
                            // Q15 sample × Q15 window = Q30 (two 16-bit factors: no overflow); one
                            // more bit makes full-scale Q31 input.
                            input[i] = (Int32(samples[start &+ i]) &* window[i]) << 1
                        }
                    }
                }
            }
            fft.power(of: frameInput, into: &power)
            power.withUnsafeBufferPointer { power in
                logPower.withUnsafeMutableBufferPointer { FixedLog.log2Q8(power, into: $0) }
            }
            row(framesProduced, logPower)
            framesProduced += 1
            start += hop
        }
        if start > 0 { pending.removeFirst(start) }
    }
}
