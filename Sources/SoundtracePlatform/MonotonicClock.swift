import Glibc

/// CLOCK_MONOTONIC in nanoseconds: immune to wall-clock changes, so elapsed times (and the audio
/// they stand for) stay honest when NTP or a person sets the date.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point (boot).
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }
}
