import Synchronization

/// A clock a test moves by hand, in milliseconds, for code that takes its clock as a closure
/// (`{ clock.now }` or `clock.read`). Safe to read from another thread while the test sets it: an
/// appliance's capture thread reads its monotonic clock while the test's thread moves it.
public final class ManualClock: Sendable {
    private let current: Mutex<Int64>

    public init(_ now: Int64 = 0) { current = Mutex(now) }

    public var now: Int64 {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    public func read() -> Int64 { now }
}
