/// The two clocks as one injectable value, for code that must be tested against time it does not
/// own (a session's deadline, a log's rate limit, a history's timestamps). Production code passes
/// `SystemTime()`; tests pass the test-support target's `ManualClock`. Not named `Clock`: the
/// standard library's `Clock` is another thing (instants and durations, with async sleeping).
public protocol TimeSource: Sendable {
    /// Milliseconds on a clock that never goes back: elapsed time, timeouts, deadlines.
    func monotonicMilliseconds() -> Int64
    /// Unix time in milliseconds, for what people read.
    func wallMilliseconds() -> Int64
}

/// The system's clocks (`SystemClock`).
public struct SystemTime: TimeSource {
    public init() {}
    public func monotonicMilliseconds() -> Int64 { SystemClock.monotonicMilliseconds() }
    public func wallMilliseconds() -> Int64 { SystemClock.wallMilliseconds() }
}
