import Glibc

/// A value that only `withLock` reaches: the body gets it `inout` while a mutex is held, so code
/// that reads or writes it outside the lock does not compile. The shape of the standard library's
/// `Synchronization.Mutex`, which the appliance used first; but that mutex locks with atomics and
/// futexes inside a library built without ThreadSanitizer's instrumentation, so TSan (part of CI:
/// `make test-tsan`) saw none of its ordering and reported every access to the state from two
/// threads as a race. A pthread mutex, which TSan intercepts, keeps the race checks meaningful.
/// Every lock of the appliance, the CLI and their tests is one of these (`make lint` refuses a
/// `Synchronization.Mutex` in Sources/ and Tests/).
public final class Guarded<Value> {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` on the value while holding the lock. Not reentrant: a `withLock` inside `body`
    /// waits forever.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

// @unchecked: `value` is read and written only inside `withLock`, while `mutex` is held; and only
// a Sendable value may be shared this way, so nothing non-Sendable leaves the lock to another thread.
extension Guarded: @unchecked Sendable where Value: Sendable {}
