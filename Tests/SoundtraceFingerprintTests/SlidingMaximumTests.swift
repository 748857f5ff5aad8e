import Testing

@testable import SoundtraceFingerprint

@Suite struct SlidingMaximumTests {
    /// Every window's maximum, scanned: what `SlidingMaximum` must give.
    static func scanned(_ values: [Int32], range: ClosedRange<Int>, radius: Int, floor: Int32) -> [Int32] {
        var result = [Int32](repeating: 7, count: values.count)
        for i in range {
            var m = floor
            for j in max(range.lowerBound, i - radius)...min(range.upperBound, i + radius) { m = max(m, values[j]) }
            result[i] = m
        }
        return result
    }

    @Test func everyWindowIsTheScannedMaximum() {
        var state: UInt64 = 11
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for trial in 0..<400 {
            let count = 1 + next(300)
            // Small value ranges make many ties, large ones steep slopes; some rows lie below the floor.
            let spread = [3, 50, 1 << 20][trial % 3]
            let offset = trial % 7 == 0 ? -2_000_000 : 0
            let values = (0..<count).map { _ in Int32(next(spread) + offset) }
            let low = next(count)
            let high = low + next(count - low)
            let radius = next(16)
            let floor: Int32 = trial % 5 == 0 ? -1_000_000 : Int32.min / 2
            var result = [Int32](repeating: 7, count: count)
            values.withUnsafeBufferPointer { v in
                result.withUnsafeMutableBufferPointer { r in
                    SlidingMaximum.compute(v, range: low...high, radius: radius, floor: floor, into: r)
                }
            }
            let expected = Self.scanned(values, range: low...high, radius: radius, floor: floor)
            #expect(result == expected, "count \(count), range \(low)...\(high), radius \(radius)")
        }
    }
}
