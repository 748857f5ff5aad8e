import Glibc

/// The resampling filters this process has computed, by rate pair. Computing one in integer
/// arithmetic takes a 128-bit Taylor series for each of its sines and cosines: about 21 M
/// instructions from 16 kHz and 60 M from 48 kHz, the same result every time. Kept here, a daemon
/// computes its microphone's filter for its first session instead of every session, a catalog
/// build once per input rate instead of once per recording, and `match` once per batch.
final class ResamplerFilters: @unchecked Sendable {
    static let shared = ResamplerFilters()

    /// The taps of every phase (tap 0 at input offset -halfTaps+1) and the half width they span.
    struct Filter: Sendable {
        let taps: [[Int32]]
        let halfTaps: Int
    }

    private struct RatePair: Hashable {
        let inputRate: Int
        let outputRate: Int
    }

    /// A process meets few rate pairs (a microphone's, its recordings'); one that meets more keeps
    /// the latest few, each 10–35 KB.
    static let capacity = 6

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    // Guarded by `mutex`; the oldest pair first.
    private var filters: [(pair: RatePair, filter: Filter)] = []

    init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// The filter for converting `inputRate` to `outputRate`, made by `make` the first time. Two
    /// threads that ask for a new pair at once may both make it; the results are equal.
    func filter(inputRate: Int, outputRate: Int, make: () -> Filter) -> Filter {
        let pair = RatePair(inputRate: inputRate, outputRate: outputRate)
        if let known = locked({ filters.first { $0.pair == pair }?.filter }) { return known }
        let made = make()
        locked {
            guard !filters.contains(where: { $0.pair == pair }) else { return }
            if filters.count == Self.capacity { filters.removeFirst() }
            filters.append((pair, made))
        }
        return made
    }

    /// Rate pairs held (for tests).
    var count: Int { locked { filters.count } }

    private func locked<Result>(_ body: () -> Result) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}
