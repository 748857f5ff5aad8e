/// How long a session listens and when it may decide early. Validated at the boundary.
public struct SessionSettings: Sendable, Equatable {
    /// Audio to hear before giving up, counted in captured audio (not wall time).
    public let windowMilliseconds: Int
    /// Extra wall time beyond the window before a stalled device ends the session.
    public let stallGraceMilliseconds: Int
    /// A gap in the captured audio up to this long keeps the session going (offsets stay right);
    /// a longer one fails it, because splicing audio across it could fake an alignment.
    public let maxGapMilliseconds: Int
    public let earlyDecision: EarlyDecisionRule
    /// The recognizer's latest samples a session keeps for the early-decision rule, which looks at
    /// the last few; a bound, so that a long window cannot grow the list.
    public let snapshotHistory: Int
    /// The longest a capture loop waits for audio before it looks at the session's deadline and
    /// cancellation again (the daemon's capture thread, the CLI's live session).
    public let captureWaitMilliseconds: Int

    public static let windowSecondsRange = 3...30
    public static let defaultWindowSeconds = 10

    public enum Invalid: Error, Equatable, CustomStringConvertible {
        case windowOutOfRange(Int)
        public var description: String {
            switch self {
            case let .windowOutOfRange(s):
                return
                    "a listening window of \(s) s is outside \(SessionSettings.windowSecondsRange.lowerBound)–\(SessionSettings.windowSecondsRange.upperBound) s; choose a value in that range"
            }
        }
    }

    public init(
        windowSeconds: Int = defaultWindowSeconds, stallGraceMilliseconds: Int = 3000,
        maxGapMilliseconds: Int = 500, earlyDecision: EarlyDecisionRule = EarlyDecisionRule(),
        snapshotHistory: Int = 16, captureWaitMilliseconds: Int = 250
    ) throws(Invalid) {
        guard Self.windowSecondsRange.contains(windowSeconds) else { throw .windowOutOfRange(windowSeconds) }
        windowMilliseconds = windowSeconds * 1000
        self.stallGraceMilliseconds = stallGraceMilliseconds
        self.maxGapMilliseconds = maxGapMilliseconds
        self.earlyDecision = earlyDecision
        self.snapshotHistory = max(snapshotHistory, earlyDecision.stableSnapshots, 1)
        self.captureWaitMilliseconds = max(1, captureWaitMilliseconds)
    }

    /// The default settings (10 s window).
    public static let standard: SessionSettings = {
        do { return try SessionSettings() } catch { preconditionFailure("default session settings are valid") }
    }()
}
