import Glibc

/// Condition variables whose timed waits count on the monotonic clock, so that a wall clock set
/// meanwhile (NTP's first sync on a board without a battery-backed clock) cannot stretch or cut them.
public enum MonotonicWait {
    public static func initCondition(_ condition: UnsafeMutablePointer<pthread_cond_t>) {
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    /// The deadline `milliseconds` from now, for `pthread_cond_timedwait` on such a condition.
    public static func deadline(afterMilliseconds milliseconds: Int) -> timespec {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let nanoseconds = Int(deadline.tv_nsec) + milliseconds * 1_000_000
        deadline.tv_sec += nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        return deadline
    }
}
