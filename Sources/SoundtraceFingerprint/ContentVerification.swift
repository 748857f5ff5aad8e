import Glibc
import SoundtraceClock

/// Whether a catalog's content was found to match its stored hash, shared by every thread that
/// uses the catalog. A catalog loaded with its structure only (`CatalogFile.Check.structure`) is
/// used at once, so that start-up does not grow with its size; but its bulk is unchecked until
/// someone hashes it, and damaged bytes could confirm a candidate they should not. So the answer
/// is computed once, by the first thread that asks for it (the daemon's background check, or a
/// session's final verdict on a match), while any other asking meanwhile waits for that one's
/// answer. A session still listening only waits briefly (`confirmedWithin`), never running the
/// check, so that it never stops reading its device for long.
final class ContentVerification: @unchecked Sendable {
    // @unchecked: `state` is read and written only while `mutex` is held.
    private enum State {
        case unchecked
        case checking
        case sound
        case damaged(CatalogError)
    }

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let settled = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var state: State

    /// `checked`: the content was hashed as it was loaded (`CatalogFile.Check.full`).
    init(checked: Bool) {
        state = checked ? .sound : .unchecked
        pthread_mutex_init(mutex, nil)
        MonotonicWait.initCondition(settled)
    }

    deinit {
        pthread_cond_destroy(settled)
        pthread_mutex_destroy(mutex)
        settled.deallocate()
        mutex.deallocate()
    }

    /// The answer so far without waiting or checking: true when sound, false when damaged, nil
    /// while nobody has finished checking.
    var known: Bool? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        switch state {
        case .sound: return true
        case .damaged: return false
        case .unchecked, .checking: return nil
        }
    }

    /// Returns when the content is sound and throws its error when it is not: runs `check` on
    /// this thread if nobody has yet, or waits for the thread that is running it.
    func confirm(by check: () throws(CatalogError) -> Void) throws(CatalogError) {
        _ = try settle(mayRun: true, check, waitingUntil: nil)
    }

    /// For a thread that must not stop for long (a session reading its device): true when the
    /// content is sound, the error when it is not, and false when a check another thread runs has
    /// not ended within `milliseconds`, or nobody is checking. Never runs the check itself.
    func confirmedWithin(milliseconds: Int) throws(CatalogError) -> Bool {
        try settle(mayRun: false, {}, waitingUntil: MonotonicWait.deadline(afterMilliseconds: milliseconds))
    }

    /// Without `mayRun`, only waits for another thread's check, until `deadline`: false when it
    /// had not ended by then, or when nobody is checking.
    private func settle(
        mayRun: Bool, _ check: () throws(CatalogError) -> Void, waitingUntil deadline: timespec?
    ) throws(CatalogError) -> Bool {
        pthread_mutex_lock(mutex)
        while true {
            switch state {
            case .sound:
                pthread_mutex_unlock(mutex)
                return true
            case let .damaged(error):
                pthread_mutex_unlock(mutex)
                throw error
            case .checking:
                guard var deadline else {
                    pthread_cond_wait(settled, mutex)
                    continue
                }
                if pthread_cond_timedwait(settled, mutex, &deadline) == ETIMEDOUT, case .checking = state {
                    pthread_mutex_unlock(mutex)
                    return false
                }
            case .unchecked:
                guard mayRun else {
                    pthread_mutex_unlock(mutex)
                    return false
                }
                state = .checking
                pthread_mutex_unlock(mutex)
                var failure: CatalogError? = nil
                do throws(CatalogError) { try check() } catch { failure = error }
                pthread_mutex_lock(mutex)
                if let failure {
                    // Only a mismatch is final: a file that could not be read now may be read later.
                    if case .contentHashMismatch = failure { state = .damaged(failure) } else { state = .unchecked }
                } else {
                    state = .sound
                }
                pthread_cond_broadcast(settled)
                pthread_mutex_unlock(mutex)
                if let failure { throw failure }
                return true
            }
        }
    }
}
