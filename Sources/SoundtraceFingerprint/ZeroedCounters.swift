import Glibc

/// 16-bit counters that start at zero, from calloc rather than an array. A session's vote grid
/// is about 1 MB; an array is written full of zeros when it is made, which makes every page of it
/// resident at once, while calloc's large blocks are fresh mappings that the kernel fills with
/// zeros only where a vote first lands.
final class ZeroedCounters {
    let count: Int
    private let base: UnsafeMutablePointer<UInt16>

    init(count: Int) {
        guard let memory = calloc(max(count, 1), MemoryLayout<UInt16>.stride) else {
            fatalError("out of memory for \(count) vote counters")
        }
        base = memory.bindMemory(to: UInt16.self, capacity: max(count, 1))
        self.count = count
    }

    deinit { free(base) }

    /// All counters for reading in a tight loop, which must stay within `0..<count` itself.
    func withCounters<R>(_ body: (UnsafeBufferPointer<UInt16>) -> R) -> R {
        body(UnsafeBufferPointer(start: base, count: count))
    }

    /// Bounds-checked like an array: one unsigned comparison.
    subscript(index: Int) -> UInt16 {
        @inline(__always) get {
            precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "vote counter out of range")
            return base[index]
        }
        @inline(__always) set {
            precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "vote counter out of range")
            base[index] = newValue
        }
    }
}
