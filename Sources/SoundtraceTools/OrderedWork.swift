import Glibc
import SoundtracePlatform

/// Items 0..<count worked on by several threads. Each thread takes the lowest index not yet
/// taken, so items start in index order, and results are kept by index, so what the caller gets
/// does not depend on how many threads ran or which finished first.
///
/// After a failure no further item starts; those already running finish. Every item before a
/// failing one has started by then, so the first failure in index order is always the one known.
final class OrderedWork<Output: Sendable, Failure: Error & Sendable>: @unchecked Sendable {
    // @unchecked: every stored var below is read and written with `lock` held; `lock` and
    // `changed` are allocated once and never moved (pthread objects must not be).
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    private let changed: UnsafeMutablePointer<pthread_cond_t>
    private let work: @Sendable (Int) -> Result<Output, Failure>
    private let count: Int
    private var next = 0
    private var running = 0
    private var failed = false
    private var results: [Result<Output, Failure>?]
    /// Indices finished since the caller last looked, in the order they finished.
    private var unreported: [Int] = []

    init(count: Int, work: @escaping @Sendable (Int) -> Result<Output, Failure>) {
        self.count = count
        self.work = work
        results = Array(repeating: nil, count: count)
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_mutex_t())
        pthread_mutex_init(lock, nil)
        changed = .allocate(capacity: 1)
        changed.initialize(to: pthread_cond_t())
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(lock)
        changed.deallocate()
        lock.deallocate()
    }

    /// Runs every item on up to `threads` threads and waits for them. `finished` is called on the
    /// calling thread for each item as it finishes (in finishing order), for progress. Returns the
    /// outputs in index order, or the failure of the lowest failing index.
    func run(threads: Int, finished: (Int, Result<Output, Failure>) -> Void) -> Result<[Output], Failure> {
        var started: [WorkerThread] = []
        for _ in 0..<max(1, min(threads, count)) {
            guard let thread = WorkerThread({ [self] in self.drain() }) else { break }
            started.append(thread)
        }
        // Out of threads altogether: the calling thread does the work (without progress).
        if started.isEmpty { drain() }

        pthread_mutex_lock(lock)
        while true {
            let batch = unreported
            unreported = []
            let done = running == 0 && (failed || next >= count)
            let outcomes = batch.compactMap { index in results[index].map { (index, $0) } }
            pthread_mutex_unlock(lock)
            for (index, outcome) in outcomes { finished(index, outcome) }
            pthread_mutex_lock(lock)
            if done && unreported.isEmpty { break }
            if unreported.isEmpty { pthread_cond_wait(changed, lock) }
        }
        let all = results
        // Handed over, not shared: a caller that lets go of big outputs really frees them.
        results = []
        pthread_mutex_unlock(lock)
        started.forEach { $0.join() }

        var outputs: [Output] = []
        outputs.reserveCapacity(count)
        for result in all {
            switch result {
            case let .success(output)?: outputs.append(output)
            case let .failure(error)?: return .failure(error)
            // Not started because an earlier item failed: that failure was returned above.
            case nil: break
            }
        }
        return .success(outputs)
    }

    /// One thread's loop: take the next index, work on it, record the result.
    private func drain() {
        pthread_mutex_lock(lock)
        while !failed, next < count {
            let index = next
            next += 1
            running += 1
            pthread_mutex_unlock(lock)
            let result = work(index)
            pthread_mutex_lock(lock)
            running -= 1
            results[index] = result
            if case .failure = result { failed = true }
            unreported.append(index)
            pthread_cond_broadcast(changed)
        }
        pthread_mutex_unlock(lock)
    }
}
