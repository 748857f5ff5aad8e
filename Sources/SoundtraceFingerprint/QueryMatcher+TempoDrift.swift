/// Tempo drift. The speed hypotheses move pitch and tempo together, as a recording played fast or
/// slow does, so a true alignment stays at one offset for everything heard. Another render of the
/// same arrangement at another tempo and the same pitch keeps most landmarks (their frequencies, and
/// their short time spans nearly), but its offset moves with the time heard: its hits lie along a
/// sloped line, and over the first seconds that line stays close enough to one offset for the
/// whole-mix checks to pass before the two mixes drift apart (docs/BENCHMARKS.md, "A third fresh set").

/// How a reference's hits at one speed hypothesis lie: around one offset, or along the line of
/// a tempo change.
public struct TempoDrift: Sendable, Equatable {
    /// Hits within the offset tolerance of the steady alignment.
    public let steadyHits: Int
    /// The most hits within the same tolerance of any line of the tempo changes tried; 0 when the
    /// hits near the alignment were too few for any line to drift, and no line was tried.
    public let driftingHits: Int
    /// That line's slope: frames of offset per 1,000 frames heard.
    public let slopePerMille: Int

    /// Whether the hits follow a tempo change rather than the steady alignment: the drifting
    /// line gathers twice the hits a match needs and clearly more than the steady one. (With
    /// fewer, chance hits along one of the many lines tried can outnumber a weak true alignment.)
    public func drifts(_ p: EngineParameters) -> Bool {
        driftingHits >= p.minDriftingHits && driftingHits * 256 >= steadyHits * p.minDriftRatioQ8
    }
}

extension QueryMatcher {
    /// The hits `reference` got at speed hypothesis `stepIndex` (the same entries its votes came
    /// from), measured against the steady alignment at `offset` and against lines of the tempo
    /// changes in `tempoDriftSlopesPerMille`. Replays the stored pairs: made only for an alignment
    /// about to be named.
    func tempoDrift(reference: Int, stepIndex: Int, offset: Int) -> TempoDrift {
        let p = parameters
        let tolerance = p.offsetToleranceFrames
        // A line that holds the steady alignment's hits crosses it while the query is heard, so
        // its hits lie within the steepest slope's drift over the query of that offset.
        let steepest = p.tempoDriftSlopesPerMille.map(abs).max() ?? 0
        let reach = tolerance + (steepest * framesHeard + 999) / 1000
        var times: [Int32] = []
        var offsets: [Int32] = []
        for pair in pairs where times.count < Self.maximumDriftHits {
            lookup(of: pair, stepIndex: stepIndex) { run, anchorFrame in
                let own = catalog.index.entries(of: reference, in: run)
                guard !own.isEmpty else { return }
                if !votesForEveryReference(run, stepIndex: stepIndex) {
                    guard isCandidate[reference], own.count <= p.maxEntriesPerHash else { return }
                }
                catalog.index.forEachHit(in: own) { _, frame in
                    let hitOffset = frame - anchorFrame
                    guard abs(hitOffset - offset) <= reach else { return }
                    times.append(Int32(clamping: anchorFrame))
                    offsets.append(Int32(clamping: hitOffset))
                }
            }
        }
        let steady = offsets.reduce(0) { $0 + (abs(Int($1) - offset) <= tolerance ? 1 : 0) }
        var best = (hits: 0, slope: 0)
        // No line can hold more hits than there are: most true alignments end here.
        guard offsets.count >= p.minDriftingHits, offsets.count * 256 >= steady * p.minDriftRatioQ8 else {
            return TempoDrift(steadyHits: steady, driftingHits: best.hits, slopePerMille: best.slope)
        }
        var residuals = [Int32](repeating: 0, count: offsets.count)
        for slope in p.tempoDriftSlopesPerMille {
            for i in offsets.indices {
                residuals[i] = Int32(clamping: roundedDivide(Int(offsets[i]) * 1000 - slope * Int(times[i]), 1000))
            }
            let hits = Self.fullestWindow(of: &residuals, width: 2 * tolerance + 1)
            if hits > best.hits { best = (hits, slope) }
        }
        return TempoDrift(steadyHits: steady, driftingHits: best.hits, slopePerMille: best.slope)
    }

    /// Hits gathered at most (about 1 MiB with their residuals): a query of repeated notes against a
    /// recording of them could otherwise gather millions. The first ones heard are kept.
    static let maximumDriftHits = 1 << 16

    /// The most values within any `width` consecutive integers (sorts `values`).
    private static func fullestWindow(of values: inout [Int32], width: Int) -> Int {
        values.sort()
        var top = 0
        var start = 0
        for end in values.indices {
            while Int(values[end]) - Int(values[start]) >= width { start += 1 }
            top = max(top, end - start + 1)
        }
        return top
    }
}
