import Glibc
import SoundtraceClock
import SoundtracePlatform

/// How a session's capture loop gets a thread.
enum CaptureLaunch {
    /// The daemon's way: a detached thread per session, which frees itself when the loop ends.
    @Sendable static func onNewThread(_ loop: @escaping @Sendable () -> Void) -> Bool {
        WorkerThread(detached: true, loop) != nil
    }
}

/// How many capture threads have not yet closed their device. `shutdown` waits (a bounded time)
/// for none, after refusing new sessions; nothing else waits on it (a `listen` meanwhile is deferred instead, see
/// `ApplianceState.deferredStarts`). A counter of its own, outside the appliance's state, because
/// waiting needs a condition variable, which the state's lock does not offer.
final class CaptureCount: @unchecked Sendable {
    // @unchecked: `running` is read and written only while `mutex` is held.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let none = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var running = 0

    init() {
        pthread_mutex_init(mutex, nil)
        MonotonicWait.initCondition(none)
    }

    deinit {
        pthread_cond_destroy(none)
        pthread_mutex_destroy(mutex)
        none.deallocate()
        mutex.deallocate()
    }

    func started() {
        pthread_mutex_lock(mutex)
        running += 1
        pthread_mutex_unlock(mutex)
    }

    func finished() {
        pthread_mutex_lock(mutex)
        running -= 1
        if running == 0 { pthread_cond_broadcast(none) }
        pthread_mutex_unlock(mutex)
    }

    var count: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return running
    }

    /// Returns once every capture thread has closed its device.
    func waitForNone() {
        pthread_mutex_lock(mutex)
        while running > 0 { pthread_cond_wait(none, mutex) }
        pthread_mutex_unlock(mutex)
    }

    /// Returns true once every capture thread has closed its device, false when some had not
    /// within `milliseconds`.
    func waitForNone(atMostMilliseconds milliseconds: Int) -> Bool {
        var deadline = MonotonicWait.deadline(afterMilliseconds: milliseconds)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while running > 0 {
            if pthread_cond_timedwait(none, mutex, &deadline) == ETIMEDOUT { return running == 0 }
        }
        return true
    }
}
