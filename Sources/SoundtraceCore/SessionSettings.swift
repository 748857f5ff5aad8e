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

    public static let windowSecondsRange = 3...30
    public static let defaultWindowSeconds = 10

    public enum Invalid: Error, Equatable, CustomStringConvertible {
        case windowOutOfRange(Int)
        public var description: String {
            switch self {
            case let .windowOutOfRange(s):
                return "a listening window of \(s) s is outside \(SessionSettings.windowSecondsRange.lowerBound)–\(SessionSettings.windowSecondsRange.upperBound) s; choose a value in that range"
            }
        }
    }

    public init(windowSeconds: Int = defaultWindowSeconds, stallGraceMilliseconds: Int = 3000,
                maxGapMilliseconds: Int = 500, earlyDecision: EarlyDecisionRule = EarlyDecisionRule()) throws(Invalid) {
        guard Self.windowSecondsRange.contains(windowSeconds) else { throw .windowOutOfRange(windowSeconds) }
        windowMilliseconds = windowSeconds * 1000
        self.stallGraceMilliseconds = stallGraceMilliseconds
        self.maxGapMilliseconds = maxGapMilliseconds
        self.earlyDecision = earlyDecision
    }

    /// The default settings (10 s window).
    public static let standard: SessionSettings = {
        do { return try SessionSettings() } catch { preconditionFailure("default session settings are valid") }
    }()
}
