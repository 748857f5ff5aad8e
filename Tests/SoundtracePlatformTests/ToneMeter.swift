import Foundation

/// Measures a played tone in captured audio (doubles are fine in a test).
enum ToneMeter {
    /// A sine of `frequency` Hz at `rate`, `amplitude` peak, as S16 samples.
    static func sine(frequency: Double, rate: Int, seconds: Double, amplitude: Double) -> [Int16] {
        (0..<Int(seconds * Double(rate))).map { index in
            Int16(amplitude * sin(2 * Double.pi * frequency * Double(index) / Double(rate)))
        }
    }

    /// The share of `samples`' energy at `frequency` (Goertzel): about 1 for a pure tone at that
    /// frequency spanning the window, about 0 for silence, noise or another tone.
    static func tonality(_ samples: ArraySlice<Int16>, frequency: Double, rate: Int) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / Double(rate))
        var previous = 0.0
        var beforePrevious = 0.0
        var energy = 0.0
        for sample in samples {
            let x = Double(sample)
            energy += x * x
            let current = x + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        guard energy > 0 else { return 0 }
        let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
        return 2 * power / (Double(samples.count) * energy)
    }

    /// Root mean square level.
    static func rms(_ samples: ArraySlice<Int16>) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }
}
