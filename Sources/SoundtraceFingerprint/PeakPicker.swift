/// Streaming peak picker: finds points whose log-power is the maximum of their time–frequency
/// neighbourhood, and keeps the strongest few per block and frequency band (`thin`), strength being
/// the contrast against the local spectral mean (whitening). Whitening ranks peaks but does not place them: the mean moves
/// with every onset in the frame, which would shift where in time a partial peaks.
final class PeakPicker {
    private let parameters: EngineParameters
    private let peaksPerBlock: Int
    private struct Row {
        let frame: Int
        let logPower: [Int32]
        let whitened: [Int32]
        let bandMax: [Int32]  // max of `logPower` over ±peakBinRadius bins
    }
    @exclusivity(unchecked) private var rows: [Row] = []
    private var nextCenter = 0
    private var lastFrame = -1
    @exclusivity(unchecked) private var candidates: [Peak] = []
    private var currentBlock = 0

    init(parameters: EngineParameters, peaksPerBlock: Int) {
        self.parameters = parameters
        self.peaksPerBlock = peaksPerBlock
    }

    /// Adds the log-power row of frame `frame` and emits the peaks that became final, in time order.
    func push(frame: Int, logPower: [Int32], emit: (Peak) -> Void) {
        precondition(frame == lastFrame + 1, "frames must arrive in order")
        lastFrame = frame
        rows.append(makeRow(frame: frame, logPower: logPower))
        let radius = parameters.peakFrameRadius
        while nextCenter + radius <= lastFrame {
            evaluate(center: nextCenter, emit: emit)
            nextCenter += 1
        }
        // Keep the rows a future centre can still look back to.
        let keepFrom = nextCenter - radius
        if let first = rows.first, first.frame < keepFrom {
            rows.removeFirst(min(rows.count, keepFrom - first.frame))
        }
    }

    /// Evaluates the last frames with a truncated look-ahead and emits what is left.
    func finish(emit: (Peak) -> Void) {
        while nextCenter <= lastFrame {
            evaluate(center: nextCenter, emit: emit)
            nextCenter += 1
        }
        flushBlock(emit: emit)
    }

    private func makeRow(frame: Int, logPower: [Int32]) -> Row {
        let bins = logPower.count
        let w = parameters.whiteningHalfWidth
        let r = parameters.peakBinRadius
        let low = parameters.minPeakBin
        let high = parameters.maxPeakBin
        var whitened = [Int32](repeating: Int32.min / 2, count: bins)
        var bandMax = [Int32](repeating: Int32.min / 2, count: bins)
        logPower.withUnsafeBufferPointer { power in
            var prefix = [Int64](repeating: 0, count: bins + 1)
            prefix.withUnsafeMutableBufferPointer { sum in
                // Wrapping arithmetic only to drop overflow checks: 32-bit levels, at most a few
                // hundred of them summed, cannot come near 64 bits, nor their mean near 32.
                for i in 0..<bins { sum[i &+ 1] = sum[i] &+ Int64(power[i]) }
                whitened.withUnsafeMutableBufferPointer { white in
                    for f in low...high {
                        let lo = max(0, f &- w)
                        let hi = min(bins &- 1, f &+ w)
                        let mean = (sum[hi &+ 1] &- sum[lo]) / Int64(hi &- lo &+ 1)
                        white[f] = power[f] &- Int32(truncatingIfNeeded: mean)
                    }
                }
            }
            bandMax.withUnsafeMutableBufferPointer { band in
                SlidingMaximum.compute(power, range: low...high, radius: r, floor: Int32.min / 2, into: band)
            }
        }
        return Row(frame: frame, logPower: logPower, whitened: whitened, bandMax: bandMax)
    }

    private func row(_ frame: Int) -> Row? {
        guard let first = rows.first else { return nil }
        let i = frame - first.frame
        return i >= 0 && i < rows.count ? rows[i] : nil
    }

    private func evaluate(center: Int, emit: (Peak) -> Void) {
        let block = center / parameters.densityBlockFrames
        if block != currentBlock {
            flushBlock(emit: emit)
            currentBlock = block
        }
        guard let row = row(center), let first = rows.first else { return }
        let radius = parameters.peakFrameRadius
        let neighbours = max(0, center - radius - first.frame)..<min(rows.count, center + radius - first.frame + 1)
        for f in parameters.minPeakBin...parameters.maxPeakBin {
            let value = row.logPower[f]
            guard row.whitened[f] >= parameters.minPeakContrast, value >= parameters.absolutePeakFloor,
                value == row.bandMax[f]
            else { continue }
            var isMaximum = true
            for n in neighbours where rows[n].bandMax[f] > value {
                isMaximum = false
                break
            }
            guard isMaximum else { continue }
            // Plateaus: only the earliest (then lowest) point of equal value is a peak.
            guard !hasEarlierEqual(value: value, center: center, bin: f, neighbours: neighbours) else { continue }
            candidates.append(makePeak(row: row, center: center, bin: f))
        }
    }

    private func hasEarlierEqual(value: Int32, center: Int, bin: Int, neighbours: Range<Int>) -> Bool {
        let r = parameters.peakBinRadius
        for n in neighbours where rows[n].frame <= center && rows[n].bandMax[bin] == value {
            let other = rows[n]
            for g in max(parameters.minPeakBin, bin - r)...min(parameters.maxPeakBin, bin + r)
            where other.logPower[g] == value && (other.frame < center || g < bin) {
                return true
            }
        }
        return false
    }

    private func makePeak(row: Row, center: Int, bin: Int) -> Peak {
        let binOffset = Self.parabolicOffsetQ4(row.logPower[bin - 1], row.logPower[bin], row.logPower[bin + 1])
        var timeOffset = 0
        if let before = self.row(center - 1), let after = self.row(center + 1) {
            timeOffset = Self.parabolicOffsetQ4(before.logPower[bin], row.logPower[bin], after.logPower[bin])
        }
        return Peak(
            frame: center, bin: bin, timeQ4: center * 16 + timeOffset, binQ4: bin * 16 + binOffset,
            strength: row.whitened[bin])
    }

    /// Vertex of the parabola through (-1, a), (0, b), (1, c), in sixteenths, within ±8.
    static func parabolicOffsetQ4(_ a: Int32, _ b: Int32, _ c: Int32) -> Int {
        let curvature = Int(a) - 2 * Int(b) + Int(c)
        guard curvature < 0 else { return 0 }
        let offset = roundedDivide(8 * (Int(a) - Int(c)), curvature)
        return min(8, max(-8, offset))
    }

    private func flushBlock(emit: (Peak) -> Void) {
        guard !candidates.isEmpty else { return }
        var kept = candidates
        if kept.count > peaksPerBlock {
            kept.sort { ($0.strength, -$0.frame, -$0.bin) > ($1.strength, -$1.frame, -$1.bin) }
            kept = Self.thin(kept, quota: peaksPerBlock, bandEdges: parameters.peakBandEdges)
        }
        kept.sort { ($0.frame, $0.bin) < ($1.frame, $1.bin) }
        candidates.removeAll(keepingCapacity: true)
        kept.forEach(emit)
    }
}

/// n / d rounded to the nearest integer, halves away from zero.
func roundedDivide(_ n: Int, _ d: Int) -> Int {
    (n >= 0) == (d > 0) ? (2 * n + d) / (2 * d) : (2 * n - d) / (2 * d)
}

extension PeakPicker {
    /// Keeps `quota` of `sorted` (strongest first): first each band's share of the quota (split
    /// evenly, the remainder to the lowest bands), then the strongest of the rest. Ranking across the
    /// whole spectrum alone lets noise where the music is weak (often the top octaves) take every
    /// slot from music where it is strong (often the bass); a share per band keeps the music's own
    /// peaks wherever it stands clear of the noise, in the catalog and in a query alike.
    static func thin(_ sorted: [Peak], quota: Int, bandEdges: [Int]) -> [Peak] {
        let bands = max(1, bandEdges.count - 1)
        var counts = [Int](repeating: 0, count: bands)
        var taken = [Bool](repeating: false, count: sorted.count)
        var kept: [Peak] = []
        kept.reserveCapacity(quota)
        for (i, peak) in sorted.enumerated() {
            let band = max(0, min(bands - 1, (bandEdges.lastIndex { $0 <= peak.bin } ?? 0)))
            if counts[band] < quota / bands + (band < quota % bands ? 1 : 0) {
                counts[band] += 1
                taken[i] = true
                kept.append(peak)
            }
        }
        for (i, peak) in sorted.enumerated() where !taken[i] && kept.count < quota {
            kept.append(peak)
        }
        return kept
    }
}
