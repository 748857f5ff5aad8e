import Glibc

/// The loudness of a stretch of 16-bit audio relative to full scale (dBFS): RMS for how loud it
/// is overall, peak for the loudest sample. Digital silence is -infinity.
struct AudioLevel: Equatable {
    let rmsDecibels: Double
    let peakDecibels: Double
    let sampleCount: Int

    init(_ samples: [Int16]) {
        var sumOfSquares = 0.0
        var peak = 0
        for sample in samples {
            let value = Int(sample)
            sumOfSquares += Double(value * value)
            peak = max(peak, abs(value))
        }
        let rms = samples.isEmpty ? 0 : (sumOfSquares / Double(samples.count)).squareRoot()
        rmsDecibels = Self.decibels(rms)
        peakDecibels = Self.decibels(Double(peak))
        sampleCount = samples.count
    }

    private static func decibels(_ amplitude: Double) -> Double {
        amplitude > 0 ? 20 * log10(amplitude / 32768) : -.infinity
    }

    /// e.g. `-23.4 dBFS`, or `silence` for no signal at all.
    static func text(_ decibels: Double) -> String {
        guard decibels.isFinite else { return "-∞ dBFS" }
        let tenths = Int((decibels * 10).rounded())
        let sign = tenths < 0 ? "-" : ""
        return "\(sign)\(abs(tenths) / 10).\(abs(tenths) % 10) dBFS"
    }
}
