/// Base-2 logarithm of unsigned integers in fixed point, integer arithmetic only.
enum FixedLog {
    /// Fractional bits of `log2Q8` results: 256 units per octave of power (about 3.01 dB).
    static let fractionBits = 8

    /// round(256 * log2(1 + i/256)) for i in 0..<256, computed by repeated squaring (no libm).
    private static let mantissaTable: [Int32] = (0..<256).map { mantissaLog2Q8(256 + $0) }

    /// floor-ish log2 of `value` in Q8 (0 for 0 and 1): the integer part from the top bit and the
    /// fraction from the next eight bits, which is all the front end's peak picking needs.
    static func log2Q8(_ value: UInt64) -> Int32 {
        mantissaTable.withUnsafeBufferPointer { log2Q8(value, table: $0) }
    }

    /// `log2Q8` of every value into `result`, as many as `values` holds: the table is looked up once
    /// for the whole row (a spectrum's bins, every frame).
    static func log2Q8(_ values: UnsafeBufferPointer<UInt64>, into result: UnsafeMutableBufferPointer<Int32>) {
        precondition(result.count >= values.count)
        mantissaTable.withUnsafeBufferPointer { table in
            for i in 0..<values.count { result[i] = log2Q8(values[i], table: table) }
        }
    }

    @inline(__always) private static func log2Q8(_ value: UInt64, table: UnsafeBufferPointer<Int32>) -> Int32 {
        if value <= 1 { return 0 }
        let top = 63 - value.leadingZeroBitCount
        let mantissa: Int
        if top >= 8 {
            mantissa = Int((value &>> UInt64(top - 8)) & 0xFF)
        } else {
            mantissa = Int((value &<< UInt64(8 - top)) & 0xFF)
        }
        return Int32(top << fractionBits) &+ table[mantissa]
    }

    /// round(256 * log2(m / 256)) for 256 <= m < 512.
    private static func mantissaLog2Q8(_ m: Int) -> Int32 {
        // x in Q30, 1 <= x < 2. Squaring x gives the next binary digit of log2(x).
        var x = UInt64(m) << 22
        var bits: Int32 = 0
        let one: UInt64 = 1 << 30
        for _ in 0..<12 {
            x = (x * x) >> 30
            bits <<= 1
            if x >= 2 * one {
                x >>= 1
                bits |= 1
            }
        }
        // bits is log2(x) in Q12; round to Q8.
        return (bits + 8) >> 4
    }
}
