/// When a session may stop before its window ends: the matcher has called it a match, the match is
/// strong, and it has stayed the same match (reference and offset) for a while. Speed never buys a
/// wrong reference: every condition only adds to the matcher's own decision rule.
public struct EarlyDecisionRule: Sendable, Equatable {
    /// Aligned hits the match needs before an early stop.
    public var minScore: Int
    /// ... and this many times the best other reference (in 1/256).
    public var minRatioOverRunnerUpQ8: Int
    /// The same reference, within `offsetToleranceMilliseconds`, for this many consecutive snapshots.
    public var stableSnapshots: Int
    public var offsetToleranceMilliseconds: Int
    /// Never decide on less audio than this.
    public var minHeardMilliseconds: Int
    /// Audio between two snapshots, so that "stable" means stable over time, not over buffers.
    public var checkIntervalMilliseconds: Int

    public init(
        minScore: Int = 20, minRatioOverRunnerUpQ8: Int = 3 * 256, stableSnapshots: Int = 2,
        offsetToleranceMilliseconds: Int = 100, minHeardMilliseconds: Int = 1000,
        checkIntervalMilliseconds: Int = 250
    ) {
        self.minScore = minScore
        self.minRatioOverRunnerUpQ8 = minRatioOverRunnerUpQ8
        self.stableSnapshots = stableSnapshots
        self.offsetToleranceMilliseconds = offsetToleranceMilliseconds
        self.minHeardMilliseconds = minHeardMilliseconds
        self.checkIntervalMilliseconds = checkIntervalMilliseconds
    }

    /// True when the latest snapshots (oldest first) justify stopping now.
    public func isConfident(_ history: [RecognizerSnapshot]) -> Bool {
        guard stableSnapshots >= 1, history.count >= stableSnapshots, let last = history.last,
            let reference = last.reference?.id, !last.waitsForWindow, !last.awaitsCatalogCheck
        else { return false }
        // The recognizer's second, independent evidence, already required to be stable over time.
        if last.isMatch && last.confirmedTwice && last.heardMilliseconds >= minHeardMilliseconds { return true }
        let recent = history.suffix(stableSnapshots)
        return recent.allSatisfy { s in
            s.isMatch && s.reference?.id == reference
                && abs(s.offsetMilliseconds - last.offsetMilliseconds) <= offsetToleranceMilliseconds
                && s.score >= minScore
                && s.score * 256 >= minRatioOverRunnerUpQ8 * max(1, s.runnerUpScore)
        } && last.heardMilliseconds >= minHeardMilliseconds
    }
}
