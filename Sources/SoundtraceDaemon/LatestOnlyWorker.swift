import Glibc
import SoundtracePlatform

/// Work done on one background thread at a time, where only the newest request still matters: a
/// request made while the thread is busy replaces any other waiting one, so however often it is
/// asked (a burst of SIGHUPs reloading the catalog), there is at most one thread and one waiting
/// request. Threads are started as needed and end when nothing waits.
final class LatestOnlyWorker<Item>: @unchecked Sendable {
    // @unchecked: `running` and `waiting` are read and written only while `mutex` is held; `work`
    // is only called on the worker thread.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let work: (Item) -> Void
    private var running = false
    private var waiting: Item?

    init(_ work: @escaping (Item) -> Void) {
        self.work = work
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `work(item)` after the item in hand, dropping any item still waiting. False when no
    /// thread could be started (the item is dropped).
    @discardableResult
    func submit(_ item: Item) -> Bool {
        pthread_mutex_lock(mutex)
        if running {
            waiting = item
            pthread_mutex_unlock(mutex)
            return true
        }
        running = true
        pthread_mutex_unlock(mutex)
        let box = UncheckedItem(item)
        let started = WorkerThread(detached: true) { [self] in self.drain(box.item) }
        if started == nil {
            pthread_mutex_lock(mutex)
            running = false
            pthread_mutex_unlock(mutex)
        }
        return started != nil
    }

    private func drain(_ first: Item) {
        var item = first
        while true {
            work(item)
            pthread_mutex_lock(mutex)
            guard let next = waiting else {
                running = false
                pthread_mutex_unlock(mutex)
                return
            }
            waiting = nil
            pthread_mutex_unlock(mutex)
            item = next
        }
    }

    /// Hands an item to the worker thread, which alone uses it from then on.
    private struct UncheckedItem: @unchecked Sendable {
        let item: Item
        init(_ item: Item) { self.item = item }
    }
}
