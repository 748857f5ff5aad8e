import Glibc
import SoundtraceClock
import SoundtraceCore

/// A capture device's open, run on a thread of its own and waited for at most a bounded time.
/// A `hw:`/`plughw:` device opens without blocking, but an ALSA plugin whose own open blocks (a
/// sound server that accepts the connection and never answers, the `file` plugin reading a FIFO
/// nobody writes) would otherwise hold its caller for as long: the daemon's lock and every client
/// with it, or a CLI command that Ctrl-C could not end. Bounded, the caller waits at most
/// `waitingAtMost`, or until `interrupt()`; an open still under way then is abandoned to its
/// thread, which closes the device whenever it returns.
public final class BoundedDeviceOpen: @unchecked Sendable {
    // @unchecked: `result`, `abandoned` and `interrupted` are read and written only while `mutex`
    // is held, and the source is used by the opening thread until it hands the result over (or,
    // abandoned, for good).
    public enum Outcome: Equatable, Sendable {
        case opened(CaptureFormat)
        case failed(CaptureFault)
        /// The open had not returned in time; its thread closes the device once it does.
        case stillOpening
        /// `interrupt()` ended the wait first; as with `stillOpening`, the open's thread keeps the device.
        case interrupted
    }

    /// The bound the daemon and the CLI wait for an open: long enough for a sound server that is
    /// merely slow, short enough that a person waiting is told what is wrong.
    public static let usualBoundMilliseconds = 5_000

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let answered = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var result: Outcome?
    private var abandoned = false
    private var interrupted = false
    private let source: AudioSource

    private init(source: AudioSource) {
        self.source = source
        pthread_mutex_init(mutex, nil)
        MonotonicWait.initCondition(answered)
    }

    deinit {
        pthread_cond_destroy(answered)
        pthread_mutex_destroy(mutex)
        answered.deallocate()
        mutex.deallocate()
    }

    /// Opens `source` on a thread `launch` starts, waiting at most `milliseconds` for it.
    /// `abandonedOpenReturned` runs on that thread, after the source was closed, when an open that
    /// was abandoned finally returned. Without a thread, opens on the caller's (unbounded, as
    /// before there was a bound: better than refusing to listen).
    public static func open(
        _ source: AudioSource, preferredRate: Int, waitingAtMost milliseconds: Int,
        launch: (@escaping @Sendable () -> Void) -> Bool,
        abandonedOpenReturned: @escaping @Sendable () -> Void = {}
    ) -> Outcome {
        guard let opening = start(source, preferredRate: preferredRate, launch: launch, abandonedOpenReturned: abandonedOpenReturned)
        else { return openHere(source, preferredRate: preferredRate) }
        return opening.wait(milliseconds: milliseconds)
    }

    /// Starts the open on a thread `launch` starts, for a caller that must be able to `interrupt()`
    /// the wait from elsewhere; nil when no thread could be started (nothing was opened then).
    /// `returned` runs on the open's thread once the open returned while somebody still waited or
    /// may wait for it (its outcome is ready for `wait` then): a caller that stopped waiting without
    /// abandoning the open (`wait(milliseconds:abandoningOnTimeout: false)`) learns of it there.
    public static func start(
        _ source: AudioSource, preferredRate: Int, launch: (@escaping @Sendable () -> Void) -> Bool,
        returned: @escaping @Sendable () -> Void = {},
        abandonedOpenReturned: @escaping @Sendable () -> Void = {}
    ) -> BoundedDeviceOpen? {
        let opening = BoundedDeviceOpen(source: source)
        let started = launch {
            opening.runOpen(preferredRate: preferredRate, returned: returned, abandonedOpenReturned: abandonedOpenReturned)
        }
        return started ? opening : nil
    }

    /// Opens on the caller's thread, with no bound.
    public static func openHere(_ source: AudioSource, preferredRate: Int) -> Outcome {
        do {
            return .opened(try source.open(preferredRate: preferredRate))
        } catch {
            return .failed(error)
        }
    }

    /// A thread for `start`: detached, freeing itself when the open returns.
    @Sendable public static func onDetachedThread(_ body: @escaping @Sendable () -> Void) -> Bool {
        WorkerThread(detached: true, body) != nil
    }

    /// Waits for the open at most `milliseconds`. Once it says `stillOpening` the open is
    /// abandoned to its thread, unless `abandoningOnTimeout` is false: then the caller may wait
    /// again (the open's `returned` tells when to) or `abandon()` it.
    public func wait(milliseconds: Int, abandoningOnTimeout: Bool = true) -> Outcome {
        var deadline = MonotonicWait.deadline(afterMilliseconds: milliseconds)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while result == nil, !interrupted {
            if pthread_cond_timedwait(answered, mutex, &deadline) == ETIMEDOUT, result == nil, !interrupted {
                if abandoningOnTimeout { abandoned = true }
                return .stillOpening
            }
        }
        if let result { return result }
        abandoned = true
        return .interrupted
    }

    /// Stops waiting for an open that was waited for without abandoning it: nil once it is
    /// abandoned to its thread (which closes the device when the open returns and runs
    /// `abandonedOpenReturned`), or its outcome when it had already returned, which is then the
    /// caller's (an opened source included).
    public func abandon() -> Outcome? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if let result { return result }
        abandoned = true
        return nil
    }

    /// Ends a pending or the next `wait` with `interrupted`, unless the open has returned already.
    /// Safe from any thread.
    public func interrupt() {
        pthread_mutex_lock(mutex)
        interrupted = true
        pthread_cond_broadcast(answered)
        pthread_mutex_unlock(mutex)
    }

    private func runOpen(preferredRate: Int, returned: @Sendable () -> Void, abandonedOpenReturned: @Sendable () -> Void) {
        let outcome = Self.openHere(source, preferredRate: preferredRate)
        pthread_mutex_lock(mutex)
        let nobodyWaits = abandoned
        result = outcome
        pthread_cond_broadcast(answered)
        pthread_mutex_unlock(mutex)
        guard nobodyWaits else {
            returned()
            return
        }
        source.close()
        abandonedOpenReturned()
    }
}
