import SoundtraceClock
import Synchronization

/// Clocks a test moves by hand, in milliseconds: `now` is the monotonic clock, `wall` the wall
/// clock (a fixed moment unless the test moves it: 2026-11-29T15:40:02.125Z). Safe to read from
/// another thread while the test sets them: an appliance's capture thread reads its monotonic
/// clock while the test's thread moves it. Atomics rather than `Mutex`: on Linux `Mutex` waits on
/// a futex, which ThreadSanitizer does not see, so it reported a race on these reads that the
/// lock did prevent (`make test-tsan`, LinesPanelTests.aPressWhileListeningCancelsTheSession).
public final class ManualClock: TimeSource {
    public static let defaultWall: Int64 = 1_795_966_802_125

    private let monotonic: Atomic<Int64>
    private let wallClock: Atomic<Int64>

    public init(_ now: Int64 = 0, wall: Int64 = ManualClock.defaultWall) {
        monotonic = Atomic(now)
        wallClock = Atomic(wall)
    }

    public var now: Int64 {
        get { monotonic.load(ordering: .sequentiallyConsistent) }
        set { monotonic.store(newValue, ordering: .sequentiallyConsistent) }
    }

    public var wall: Int64 {
        get { wallClock.load(ordering: .sequentiallyConsistent) }
        set { wallClock.store(newValue, ordering: .sequentiallyConsistent) }
    }

    public func monotonicMilliseconds() -> Int64 { now }
    public func wallMilliseconds() -> Int64 { wall }
}

/// The system's monotonic clock with a fixed wall clock, for tests whose sessions run in real time
/// but whose timestamps must be known.
public struct RealTimeFixedWall: TimeSource {
    public let wall: Int64
    public init(wall: Int64 = ManualClock.defaultWall) { self.wall = wall }
    public func monotonicMilliseconds() -> Int64 { SystemClock.monotonicMilliseconds() }
    public func wallMilliseconds() -> Int64 { wall }
}
