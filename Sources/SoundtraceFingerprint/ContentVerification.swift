import Glibc

/// Whether a catalog's content was found to match its stored hash, shared by every thread that
/// uses the catalog. A catalog loaded with its structure only (`CatalogFile.Check.structure`) is
/// used at once, so that start-up does not grow with its size; but its bulk is unchecked until
/// someone hashes it, and damaged bytes could confirm a candidate they should not. So the answer
/// is computed once, by the first thread that asks for it (the daemon's background check, or a
/// session about to name a match), while any other asking meanwhile waits for that one's answer.
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
        pthread_cond_init(settled, nil)
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
        pthread_mutex_lock(mutex)
        while true {
            switch state {
            case .sound:
                pthread_mutex_unlock(mutex)
                return
            case let .damaged(error):
                pthread_mutex_unlock(mutex)
                throw error
            case .checking:
                pthread_cond_wait(settled, mutex)
            case .unchecked:
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
                return
            }
        }
    }
}
