import Glibc
import SoundtraceClock
import SoundtraceCore

/// One of the daemon's output streams (the log on stderr; the console panel's state lines when
/// stdout is not a terminal) behind a `LogCoalescer`, usable from any thread. Lines are written
/// while the lock is held, so lines from different threads keep the order they were admitted in.
/// A pending summary is written by the first line after its window, or by the main loop at
/// `deadline`: `whenPending` wakes the loop when a summary becomes pending, so the loop arms a
/// timer only then.
final class LogGate: @unchecked Sendable {
    // @unchecked: `coalescer` and `whenPending` are touched only while `lock` is held.
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var coalescer: LogCoalescer
    private let clock: any TimeSource
    private let output: @Sendable (String) -> Void
    private var whenPending: (@Sendable () -> Void)?

    /// `clock`: its monotonic time paces the log; `output`: writes one line (without its newline).
    init(
        limits: LogCoalescer.Limits = LogCoalescer.Limits(), clock: any TimeSource,
        output: @escaping @Sendable (String) -> Void
    ) {
        coalescer = LogCoalescer(limits: limits)
        self.clock = clock
        self.output = output
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// Called (from the thread that logged) when a summary becomes pending, so the main loop re-arms.
    func setWhenPending(_ hook: @escaping @Sendable () -> Void) {
        pthread_mutex_lock(lock)
        whenPending = hook
        pthread_mutex_unlock(lock)
    }

    func write(_ line: String) {
        pthread_mutex_lock(lock)
        let before = coalescer.deadline
        for text in coalescer.admit(line, now: clock.monotonicMilliseconds()) { output(text) }
        // A new deadline only when a window first leaves a line out: once per window at most.
        let after = coalescer.deadline
        let hook = after != nil && after != before ? whenPending : nil
        pthread_mutex_unlock(lock)
        hook?()
    }

    /// When the main loop must call `flushIfDue`; nil while no summary is pending.
    var deadline: Int64? {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return coalescer.deadline
    }

    /// Writes the pending summary once its window is over.
    func flushIfDue() {
        pthread_mutex_lock(lock)
        for text in coalescer.flush(now: clock.monotonicMilliseconds()) { output(text) }
        pthread_mutex_unlock(lock)
    }

    /// Writes the pending summary now (before exiting) and starts a fresh window.
    func flush() {
        pthread_mutex_lock(lock)
        for text in coalescer.finish() { output(text) }
        pthread_mutex_unlock(lock)
    }
}
