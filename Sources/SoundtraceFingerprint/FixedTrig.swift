/// Sine and cosine in integer arithmetic only, so every table derived from them (FFT twiddles, the
/// analysis window, resampling filters) is bit-identical on every CPU and C library.
enum FixedTrig {
    /// pi/2 in Q61.
    private static let halfPiQ61: Int128 = 3_622_009_729_038_561_421
    private static let one: Int128 = 1 << 61

    /// cos(2*pi*numerator/denominator) multiplied by `scale` and rounded to the nearest integer.
    static func cos(numerator: Int, denominator: Int, scale: Int64) -> Int64 {
        precondition(denominator > 0, "FixedTrig needs a positive denominator")
        let den = Int128(denominator)
        var m = Int128(numerator) % den
        if m < 0 { m += den }
        let quadrant = Int((4 * m) / den)
        let remainder = 4 * m - Int128(quadrant) * den
        let x = (halfPiQ61 * remainder + den / 2) / den
        let value: Int128
        switch quadrant {
        case 0: value = cosQ61(x)
        case 1: value = -sinQ61(x)
        case 2: value = -cosQ61(x)
        default: value = sinQ61(x)
        }
        return Int64(roundedShift(value * Int128(scale), by: 61))
    }

    /// sin(2*pi*numerator/denominator) multiplied by `scale` and rounded to the nearest integer.
    static func sin(numerator: Int, denominator: Int, scale: Int64) -> Int64 {
        // sin(a) = cos(a - pi/2); the quarter turn is exact in units of 1/(4*denominator).
        cos(numerator: 4 * numerator - denominator, denominator: 4 * denominator, scale: scale)
    }

    /// Taylor series of cos for 0 <= x <= pi/2, x in Q61.
    private static func cosQ61(_ x: Int128) -> Int128 {
        series(x, startTerm: one, startIndex: 0)
    }

    /// Taylor series of sin for 0 <= x <= pi/2, x in Q61.
    private static func sinQ61(_ x: Int128) -> Int128 {
        series(x, startTerm: x, startIndex: 1)
    }

    private static func series(_ x: Int128, startTerm: Int128, startIndex: Int128) -> Int128 {
        let xSquared = roundedShift(x * x, by: 61)
        var term = startTerm
        var sum: Int128 = 0
        var n = startIndex
        var positive = true
        while term != 0 {
            sum += positive ? term : -term
            term = roundedShift(term * xSquared, by: 61) / ((n + 1) * (n + 2))
            n += 2
            positive.toggle()
        }
        return sum
    }

    /// value / 2^shift, rounded half away from zero.
    static func roundedShift(_ value: Int128, by shift: Int) -> Int128 {
        let half = Int128(1) << (shift - 1)
        return value >= 0 ? (value + half) >> shift : -((-value + half) >> shift)
    }
}
