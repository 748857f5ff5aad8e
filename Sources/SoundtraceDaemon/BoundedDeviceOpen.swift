import Glibc
import SoundtraceCore

/// A capture device's open, run on a thread of its own and waited for at most a bounded time.
/// The appliance opens the device under its lock so that a device that cannot be opened fails the
/// session at once, for every client to see; a `hw:`/`plughw:` device opens without blocking, but an
/// ALSA plugin whose own open blocks (a sound server that accepts the connection and never answers,
/// the `file` plugin reading a FIFO nobody writes) would hold that lock, and every client and the
/// watchdog's loop with it, for as long. Bounded, the lock is held at most `waitingAtMost`; an open
/// still under way then is abandoned to its thread, which closes the device whenever it returns.
final class BoundedDeviceOpen: @unchecked Sendable {
    // @unchecked: `result` and `abandoned` are read and written only while `mutex` is held, and the
    // source is used by the opening thread until it hands the result over (or, abandoned, for good).
    enum Outcome: Equatable {
        case opened(CaptureFormat)
        case failed(CaptureFault)
        /// The open had not returned in time; its thread closes the device once it does.
        case stillOpening
    }

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let answered = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var result: Outcome?
    private var abandoned = false
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
    /// came back `stillOpening` finally returned. Without a thread, opens on the caller's (unbounded,
    /// as before there was a bound: better than refusing to listen).
    static func open(
        _ source: AudioSource, preferredRate: Int, waitingAtMost milliseconds: Int,
        launch: (@escaping @Sendable () -> Void) -> Bool, abandonedOpenReturned: @escaping @Sendable () -> Void
    ) -> Outcome {
        let opening = BoundedDeviceOpen(source: source)
        let started = launch { opening.runOpen(preferredRate: preferredRate, abandonedOpenReturned: abandonedOpenReturned) }
        guard started else { return openHere(source, preferredRate: preferredRate) }
        return opening.wait(milliseconds: milliseconds)
    }

    private static func openHere(_ source: AudioSource, preferredRate: Int) -> Outcome {
        do {
            return .opened(try source.open(preferredRate: preferredRate))
        } catch {
            return .failed(error)
        }
    }

    private func runOpen(preferredRate: Int, abandonedOpenReturned: @Sendable () -> Void) {
        let outcome = Self.openHere(source, preferredRate: preferredRate)
        pthread_mutex_lock(mutex)
        let nobodyWaits = abandoned
        result = outcome
        pthread_cond_broadcast(answered)
        pthread_mutex_unlock(mutex)
        guard nobodyWaits else { return }
        source.close()
        abandonedOpenReturned()
    }

    private func wait(milliseconds: Int) -> Outcome {
        var deadline = MonotonicWait.deadline(afterMilliseconds: milliseconds)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while result == nil {
            if pthread_cond_timedwait(answered, mutex, &deadline) == ETIMEDOUT, result == nil {
                abandoned = true
                return .stillOpening
            }
        }
        return result ?? .stillOpening
    }
}
