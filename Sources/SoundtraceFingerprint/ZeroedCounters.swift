import Glibc

/// Vote counters that start at zero: one byte per cell from calloc, and the few cells that reach
/// 128 votes counted exactly elsewhere. calloc's large blocks are fresh mappings that the kernel
/// fills with zeros only where a vote first lands (an array would be written full of zeros when
/// made, every page resident at once); one byte rather than two halves what a session's votes make
/// resident (a 10 s query of music that is not in the catalog lands on nearly every page of the
/// sample catalog's grid). Only clean queries of several seconds reach 128 votes in one cell, and
/// only in the few cells of their alignment.
///
/// A byte below 128 is the count itself; 128 ... 254 name one of 127 spill slots holding the exact
/// count (one array read, as cheap as the byte); 255 sends the read to a dictionary, for a query
/// that fills every slot. Counts saturate at 65535, as 16-bit counters did.
final class ZeroedCounters {
    let count: Int
    private let base: UnsafeMutablePointer<UInt8>
    private let spillSlots: UnsafeMutablePointer<UInt16>
    @exclusivity(unchecked) private var spillSlotsUsed = 0
    @exclusivity(unchecked) private var overflow: [Int: UInt16] = [:]

    static let firstSpilled: UInt8 = 128
    static let overflowed: UInt8 = 255
    static let spillSlotCount = Int(overflowed - firstSpilled)

    init(count: Int) {
        guard let memory = calloc(max(count, 1), 1) else {
            fatalError("out of memory for \(count) vote counters")
        }
        base = memory.bindMemory(to: UInt8.self, capacity: max(count, 1))
        spillSlots = .allocate(capacity: Self.spillSlotCount)
        self.count = count
    }

    deinit {
        free(base)
        spillSlots.deallocate()
    }

    /// Cells whose count left its byte.
    var spilledCells: Int { spillSlotsUsed + overflow.count }

    /// The raw bytes for a tight read-only loop, which must stay within `0..<count` itself and
    /// resolve bytes of `firstSpilled` or more with `value(_:byte:)`.
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        body(UnsafeBufferPointer(start: base, count: count))
    }

    /// The count of `index`, whose byte is `byte` (read by the caller).
    @inline(__always) func value(_ index: Int, byte: UInt8) -> Int {
        if byte < Self.firstSpilled { return Int(byte) }
        if byte < Self.overflowed { return Int(spillSlots[Int(byte - Self.firstSpilled)]) }
        return Int(overflow[index] ?? 0)
    }

    /// Bounds-checked like an array: one unsigned comparison.
    subscript(index: Int) -> Int {
        @inline(__always) get {
            precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "vote counter out of range")
            return value(index, byte: base[index])
        }
    }

    /// Writes the counts of `first ..< first + buffer.count` into `buffer` (zero outside the counters).
    @inline(__always) func read(from first: Int, into buffer: UnsafeMutableBufferPointer<Int>) {
        let n = buffer.count
        guard first >= 0 && first <= count - n else {
            for i in 0..<n {
                let index = first &+ i
                buffer[i] = UInt(bitPattern: index) < UInt(bitPattern: count) ? value(index, byte: base[index]) : 0
            }
            return
        }
        // Every vote reads its neighbours: almost always plain bytes, checked together.
        var all: UInt8 = 0
        for i in 0..<n {
            let byte = base[first &+ i]
            buffer[i] = Int(byte)
            all |= byte
        }
        if all >= Self.firstSpilled {
            for i in 0..<n { buffer[i] = value(first &+ i, byte: base[first &+ i]) }
        }
    }

    /// Adds one to the counter of `index`, stopping at 65535.
    @inline(__always) func increment(_ index: Int) {
        precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "vote counter out of range")
        let byte = base[index]
        if byte < Self.firstSpilled - 1 {
            base[index] = byte + 1
        } else {
            incrementSpilled(index, byte: byte)
        }
    }

    private func incrementSpilled(_ index: Int, byte: UInt8) {
        if byte == Self.firstSpilled - 1 {
            // The 128th vote: the count moves out of its byte.
            if spillSlotsUsed < Self.spillSlotCount {
                spillSlots[spillSlotsUsed] = UInt16(Self.firstSpilled)
                base[index] = Self.firstSpilled + UInt8(spillSlotsUsed)
                spillSlotsUsed += 1
            } else {
                overflow[index] = UInt16(Self.firstSpilled)
                base[index] = Self.overflowed
            }
        } else if byte < Self.overflowed {
            let slot = Int(byte - Self.firstSpilled)
            if spillSlots[slot] < UInt16.max { spillSlots[slot] += 1 }
        } else if let value = overflow[index], value < UInt16.max {
            overflow[index] = value + 1
        }
    }
}
