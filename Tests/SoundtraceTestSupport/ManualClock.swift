import SoundtraceClock
import Synchronization

/// Clocks a test moves by hand, in milliseconds: `now` is the monotonic clock, `wall` the wall
/// clock (a fixed moment unless the test moves it: 2026-11-29T15:40:02.125Z). Safe to read from
/// another thread while the test sets them: an appliance's capture thread reads its monotonic
/// clock while the test's thread moves it.
public final class ManualClock: TimeSource {
    public static let defaultWall: Int64 = 1_795_966_802_125

    private let current: Mutex<(monotonic: Int64, wall: Int64)>

    public init(_ now: Int64 = 0, wall: Int64 = ManualClock.defaultWall) { current = Mutex((now, wall)) }

    public var now: Int64 {
        get { current.withLock { $0.monotonic } }
        set { current.withLock { $0.monotonic = newValue } }
    }

    public var wall: Int64 {
        get { current.withLock { $0.wall } }
        set { current.withLock { $0.wall = newValue } }
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
