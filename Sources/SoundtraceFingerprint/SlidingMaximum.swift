/// The maximum of every window `i - radius ... i + radius` (clipped to a range) of a row of values,
/// in a fixed three comparisons a value whatever the radius: the range is cut into blocks of one
/// window's width, running maxima are taken within each block from the left and from the right, and
/// a whole window, which is one block or spans the end of one and the start of the next, is the
/// larger of the running maximum from the right at its start and the one from the left at its end
/// (van Herk and Gil–Werman). The few windows the range's ends clip are scanned. The
/// peak picker needs one per bin of every frame; scanning every window cost nearly a tenth of a
/// query's instructions.
enum SlidingMaximum {
    /// Writes to `result[i]`, for every `i` in `range`, the maximum of `values[j]` over the `j` of
    /// `range` within `radius` of `i`, and never less than `floor`.
    static func compute(
        _ values: UnsafeBufferPointer<Int32>, range: ClosedRange<Int>, radius: Int, floor: Int32,
        into result: UnsafeMutableBufferPointer<Int32>
    ) {
        let low = range.lowerBound
        let n = range.count
        let width = 2 * radius + 1
        guard n > 2 * radius else {
            for j in 0..<n { result[low + j] = scan(values, low: low, n: n, j: j, radius: radius, floor: floor) }
            return
        }
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * n) { scratch in
            // fromLeft[j]: the maximum from j's block start to j; fromRight[j]: from j to its block's end.
            let fromLeft = scratch.baseAddress!
            let fromRight = fromLeft + n
            let row = values.baseAddress! + low
            var place = 0
            for j in 0..<n {
                fromLeft[j] = place == 0 ? row[j] : max(fromLeft[j &- 1], row[j])
                place = place == width &- 1 ? 0 : place &+ 1
            }
            // The last block may be short: it ends with the range.
            place = (n &- 1) % width
            for j in stride(from: n &- 1, through: 0, by: -1) {
                fromRight[j] = j == n &- 1 || place == width &- 1 ? row[j] : max(fromRight[j &+ 1], row[j])
                place = place == 0 ? width &- 1 : place &- 1
            }
            // A whole window spans one block exactly or the end of one and the start of the next.
            for j in radius..<(n &- radius) {
                result[low &+ j] = max(floor, max(fromRight[j &- radius], fromLeft[j &+ radius]))
            }
        }
        // Windows clipped by the range's ends: a few, scanned.
        for j in 0..<radius { result[low + j] = scan(values, low: low, n: n, j: j, radius: radius, floor: floor) }
        for j in (n - radius)..<n { result[low + j] = scan(values, low: low, n: n, j: j, radius: radius, floor: floor) }
    }

    private static func scan(
        _ values: UnsafeBufferPointer<Int32>, low: Int, n: Int, j: Int, radius: Int, floor: Int32
    ) -> Int32 {
        var m = floor
        for k in max(0, j - radius)...min(n - 1, j + radius) { m = max(m, values[low + k]) }
        return m
    }
}
