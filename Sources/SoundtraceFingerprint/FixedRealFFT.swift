import CKissFFT

/// A Q31 fixed-point real FFT (KissFFT, FIXED_POINT=32) with twiddles from `FixedTrig`.
/// KissFFT's fixed-point forward transform scales its output by 1/N.
final class FixedRealFFT {
    let size: Int
    private let config: kiss_fftr_cfg
    private var output: [kiss_fft_cpx]

    /// Returns nil when KissFFT cannot allocate (a size that is not a multiple of 4, or no memory).
    init?(size: Int) {
        let table = (0..<size).map { Int32(FixedTrig.cos(numerator: $0, denominator: size, scale: Int64(Int32.max))) }
        guard let cfg = table.withUnsafeBufferPointer({ soundtrace_fftr_alloc(Int32(size), $0.baseAddress) }) else { return nil }
        self.size = size
        config = cfg
        output = [kiss_fft_cpx](repeating: kiss_fft_cpx(r: 0, i: 0), count: size / 2 + 1)
    }

    deinit { soundtrace_fftr_free(config) }

    /// Power (re² + im²) of each of the size/2 + 1 bins of `input` (size Q31 samples).
    func power(of input: [Int32], into power: inout [UInt64]) {
        precondition(input.count == size && power.count == size / 2 + 1)
        input.withUnsafeBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                kiss_fftr(config, inBuffer.baseAddress, outBuffer.baseAddress)
            }
        }
        for i in 0..<output.count {
            let re = Int64(output[i].r)
            let im = Int64(output[i].i)
            power[i] = UInt64(re * re) &+ UInt64(im * im)
        }
    }
}
