import Glibc

/// The box's two clocks, read in one place. Monotonic time (since boot, never set back) measures
/// elapsed time and deadlines, so that NTP or a person setting the date cannot stretch a session
/// or a timeout; wall time (Unix time as set on the box) stamps what people read.
public enum SystemClock {
    /// Nanoseconds on CLOCK_MONOTONIC.
    public static func monotonicNanoseconds() -> UInt64 {
        let now = read(CLOCK_MONOTONIC)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }

    /// Milliseconds on CLOCK_MONOTONIC.
    public static func monotonicMilliseconds() -> Int64 {
        Int64(monotonicNanoseconds() / 1_000_000)
    }

    /// Unix time in milliseconds (CLOCK_REALTIME).
    public static func wallMilliseconds() -> Int64 {
        let now = read(CLOCK_REALTIME)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    private static func read(_ clock: clockid_t) -> timespec {
        var now = timespec()
        clock_gettime(clock, &now)
        return now
    }
}
