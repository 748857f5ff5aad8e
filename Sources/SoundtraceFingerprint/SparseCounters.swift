import Glibc

/// Vote counters that exist only for cells that have votes: an open-addressing table whose size
/// follows the votes a query makes, not the cells a catalog has. A dense counter per cell cost about
/// 2 MB per catalog hour, nearly all of it touched by a query of music that is not in the catalog;
/// this costs 8 bytes per slot, at most `maximumSlots` of them, whatever the catalog's size.
///
/// A slot holds `(cell + 1) << 16 | count`, zero when empty. A cell's home slot is chosen by its
/// group of four neighbouring cells, so the cells a vote reads around itself (`read(from:into:)`)
/// usually share a cache line. The table doubles when three quarters full (at half full, a
/// session's table was often twice the size its cells need, the largest part of the daemon's
/// listening peak: docs/BENCHMARKS.md, "Catalog scale"). Once at `maximumSlots` and three
/// quarters full, it forgets the cells that hold a single vote: in a big catalog nearly every vote
/// of a query lands in a cell of its own (chance alignments), while an alignment that is really
/// there gathers several in the same cells, which are kept and go on counting. A forgotten cell that
/// is voted for again starts from one, so a count can only come out lower than it was, never higher:
/// a match can be missed, never made. Only when the cells of several votes alone fill half the table
/// are votes for new cells refused (`dropped`). Memory stays bounded whatever the query, and what is
/// forgotten or refused depends only on the order the votes came in, so results stay deterministic.
/// Counts stop at 65535.
///
/// Beside the table, a bitmap of eight bits per slot (an eighth of the table's bytes) marks which
/// cells may have votes: a cell sets bit `cell % bits`, and cells far apart may share one. A vote
/// reads the counts of its four neighbouring cells, and in a big catalog most of them have none:
/// a clear bit says so without walking the table, and a vote whose neighbours are all clear reads
/// none (at 100 hours, a fifth of a query's instructions: docs/BENCHMARKS.md, Catalog scale). The
/// bitmap is made anew whenever the table is (growing, forgetting), so forgotten cells leave it.
/// A table smaller than `presenceFromSlots` has none (every cell may have votes): its votes are few.
/// One query's matcher owns it and uses it from one thread at a time, so its
/// state is marked `@exclusivity(unchecked)`: the dynamic checks cost a tenth of a vote.
final class SparseCounters {
    /// Cells addressable: `0 ..< count`.
    let count: Int
    let maximumSlots: Int
    @exclusivity(unchecked) private var slots: UnsafeMutablePointer<UInt64>
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private var shift: UInt64
    /// Bit `cell & presenceMask` is set when `cell` may have votes; clear, it has none. Below
    /// `presenceFromSlots`, one word of ones: every cell may have votes.
    @exclusivity(unchecked) private var presence: UnsafeMutablePointer<UInt64>
    @exclusivity(unchecked) private var presenceMask: Int
    /// The table's size in slots from which it keeps a real bitmap.
    let presenceFromSlots: Int
    /// 512 KiB of slots: a smaller table's votes are few, and a kiosk's session with a small
    /// catalog then stays within its listening memory target (docs/BENCHMARKS.md).
    static let defaultPresenceFromSlots = 1 << 16
    /// Cells with votes.
    @exclusivity(unchecked) private(set) var occupied = 0
    /// Votes refused because the table was full.
    @exclusivity(unchecked) private(set) var dropped = 0
    /// Single votes forgotten to make room (`forgetSingleVotes`).
    @exclusivity(unchecked) private(set) var forgotten = 0
    /// Set once the cells of several votes alone fill half the table: new cells are refused.
    @exclusivity(unchecked) private var refusing = false

    static let initialSlots = 1024
    private static let countMask: UInt64 = 0xFFFF

    init(count: Int, maximumSlots: Int, presenceFromSlots: Int = SparseCounters.defaultPresenceFromSlots) {
        precondition(maximumSlots >= Self.initialSlots && maximumSlots & (maximumSlots - 1) == 0, "a power of two")
        precondition(count < 1 << 46, "cells fit a slot's key")
        self.count = count
        self.maximumSlots = maximumSlots
        self.presenceFromSlots = presenceFromSlots
        capacity = Self.initialSlots
        slots = Self.allocate(capacity)
        shift = Self.shift(for: capacity)
        (presence, presenceMask) = Self.presence(for: capacity, from: presenceFromSlots)
    }

    /// A cleared bitmap for a table of `capacity` slots, or the word of ones below `from` slots.
    private static func presence(for capacity: Int, from: Int) -> (UnsafeMutablePointer<UInt64>, Int) {
        guard capacity >= from else {
            let ones = allocate(1)
            ones[0] = ~0
            return (ones, 63)
        }
        return (allocate(presenceWords(for: capacity)), presenceBits(for: capacity) - 1)
    }

    deinit {
        free(slots)
        free(presence)
    }

    /// Bytes the table and its bitmap hold now.
    var bytes: Int { (capacity + (presenceMask + 1) / 64) * MemoryLayout<UInt64>.stride }

    /// Bytes the table and its bitmap can grow to.
    static func maximumBytes(slots: Int) -> Int { (slots + presenceWords(for: slots)) * MemoryLayout<UInt64>.stride }

    private static func presenceBits(for capacity: Int) -> Int { capacity * 8 }
    private static func presenceWords(for capacity: Int) -> Int { presenceBits(for: capacity) / 64 }

    /// False when `cell` certainly has no votes.
    @inline(__always) private static func mayHold(
        _ cell: Int, presence: UnsafeMutablePointer<UInt64>, presenceMask: Int
    ) -> Bool {
        let bit = cell & presenceMask
        return presence[bit &>> 6] & (1 &<< UInt64(truncatingIfNeeded: bit & 63)) != 0
    }

    @inline(__always) private func markPresent(_ cell: Int) {
        let bit = cell & presenceMask
        presence[bit &>> 6] |= 1 &<< UInt64(truncatingIfNeeded: bit & 63)
    }

    private func clearPresence() {
        guard capacity >= presenceFromSlots else { return }
        memset(presence, 0, Self.presenceWords(for: capacity) * MemoryLayout<UInt64>.stride)
    }

    private static func allocate(_ capacity: Int) -> UnsafeMutablePointer<UInt64> {
        guard let memory = calloc(capacity, MemoryLayout<UInt64>.stride) else {
            fatalError("out of memory for \(capacity) vote slots")
        }
        return memory.bindMemory(to: UInt64.self, capacity: capacity)
    }

    /// The shift that turns a 64-bit product into a group's home (capacity / 4 groups): at least 48.
    private static func shift(for capacity: Int) -> UInt64 { UInt64(64 - (capacity.trailingZeroBitCount - 2)) }

    /// The slot holding `cell`, or the empty slot where it would go.
    @inline(__always) private func slot(of cell: Int) -> Int {
        Self.slot(of: cell, in: slots, mask: capacity &- 1, shift: shift)
    }

    /// `slot(of:)` with the table's fields passed in, so that a loop over several cells loads them
    /// once: they are class fields, which the compiler reloads after every store through `slots`.
    /// A cell's home is its group's (`cell >> 2`) slot of four, the cell's place in the group added.
    /// From there the search steps 1, 2, 3, … slots on (which visits every slot of a power-of-two
    /// table): with steps of one, the occupied runs of a table half to three quarters full grew so
    /// long that most of a vote's cost was walking them (26.7 M instructions per audio second on the
    /// tuning catalog with that and the per-probe loads, 22.5 M without; docs/BENCHMARKS.md, Cost).
    @inline(__always) private static func slot(
        of cell: Int, in slots: UnsafeMutablePointer<UInt64>, mask: Int, shift: UInt64
    ) -> Int {
        let key = UInt64(truncatingIfNeeded: cell &+ 1) &<< 16
        let group = UInt64(truncatingIfNeeded: cell &>> 2) &* 0x9E37_79B9_7F4A_7C15
        var i = Int(truncatingIfNeeded: group &>> shift) &<< 2 | (cell & 3)
        var step = 1
        while true {
            let s = slots[i]
            if s == 0 || s & ~Self.countMask == key { return i }
            i = (i &+ step) & mask
            step &+= 1
        }
    }

    /// The count of `cell`; zero for cells outside `0 ..< count`.
    subscript(cell: Int) -> Int {
        @inline(__always) get {
            guard UInt(bitPattern: cell) < UInt(bitPattern: count),
                Self.mayHold(cell, presence: presence, presenceMask: presenceMask)
            else { return 0 }
            return Int(truncatingIfNeeded: slots[slot(of: cell)] & Self.countMask)
        }
    }

    /// Writes the counts of `first ..< first + buffer.count` into `buffer` (zero outside the counters).
    @inline(__always) func read(from first: Int, into buffer: UnsafeMutableBufferPointer<Int>) {
        let slots = self.slots
        let mask = capacity &- 1
        let shift = self.shift
        let count = UInt(bitPattern: self.count)
        let presence = self.presence
        let presenceMask = self.presenceMask
        for i in 0..<buffer.count {
            let cell = first &+ i
            guard UInt(bitPattern: cell) < count, Self.mayHold(cell, presence: presence, presenceMask: presenceMask) else {
                buffer[i] = 0
                continue
            }
            let s = slots[Self.slot(of: cell, in: slots, mask: mask, shift: shift)]
            buffer[i] = Int(truncatingIfNeeded: s & Self.countMask)
        }
    }

    /// False when no cell within `reach` of `cell` (itself left out) can have votes: then a vote's
    /// windows hold its own cell alone, and the neighbours need not be read.
    @inline(__always) func neighboursMayHold(_ cell: Int, reach: Int) -> Bool {
        guard reach > 0 else { return false }
        let presence = self.presence
        let presenceMask = self.presenceMask
        // The bits of `cell - reach ... cell + reach` are neighbours in the bitmap unless they wrap
        // around its end: then one or two words hold them all, read at once (most votes of a big
        // catalog ask this and get false).
        let first = (cell &- reach) & presenceMask
        let width = 2 &* reach &+ 1
        if width < 64, first &+ width &- 1 <= presenceMask {
            let word = first &>> 6
            let shift = first & 63
            var bits = presence[word] &>> UInt64(truncatingIfNeeded: shift)
            if shift &+ width > 64 { bits |= presence[word &+ 1] &<< UInt64(truncatingIfNeeded: 64 &- shift) }
            let neighbours = ((1 &<< UInt64(truncatingIfNeeded: width)) &- 1) & ~(1 &<< UInt64(truncatingIfNeeded: reach))
            return bits & neighbours != 0
        }
        return neighboursMayHoldBitByBit(cell, reach: reach)
    }

    /// `neighboursMayHold` one bit at a time: where the bits wrap around the bitmap's end, and the
    /// definition the word-at-once reading is tested against.
    func neighboursMayHoldBitByBit(_ cell: Int, reach: Int) -> Bool {
        guard reach > 0 else { return false }
        let presence = self.presence
        let presenceMask = self.presenceMask
        for distance in 1...reach {
            if Self.mayHold(cell &- distance, presence: presence, presenceMask: presenceMask)
                || Self.mayHold(cell &+ distance, presence: presence, presenceMask: presenceMask)
            {
                return true
            }
        }
        return false
    }

    /// Adds one to the counter of `cell`, stopping at 65535. False when the vote was refused.
    @discardableResult
    @inline(__always) func increment(_ cell: Int) -> Bool { incremented(cell) > 0 }

    /// Adds one to the counter of `cell` like `increment`, and returns its count after the vote: 0
    /// when the vote was refused.
    @inline(__always) func incremented(_ cell: Int) -> Int {
        precondition(UInt(bitPattern: cell) < UInt(bitPattern: count), "vote counter out of range")
        var i = slot(of: cell)
        let s = slots[i]
        if s != 0 {
            let counted = s & Self.countMask < Self.countMask ? s + 1 : s
            slots[i] = counted
            return Int(truncatingIfNeeded: counted & Self.countMask)
        }
        if occupied >= capacity / 4 * 3 {
            if capacity < maximumSlots {
                grow()
                i = slot(of: cell)
            } else {
                if !refusing { forgetSingleVotes() }
                guard !refusing else {
                    dropped += 1
                    return 0
                }
                i = slot(of: cell)
            }
        }
        slots[i] = UInt64(truncatingIfNeeded: cell + 1) << 16 | 1
        markPresent(cell)
        occupied += 1
        return 1
    }

    /// Doubles the table. Its occupied slots (three quarters of it) are gathered first and the old table freed
    /// before the new one is made: with both tables live at once, the last growth (1 to 2 MiB) was
    /// a session's memory peak against a catalog of a few hours (3 MiB; now 2.5). They go back in
    /// slot order, as before, so the new table is laid out the same.
    private func grow() {
        var kept: [UInt64] = []
        kept.reserveCapacity(occupied)
        for i in 0..<capacity where slots[i] != 0 { kept.append(slots[i]) }
        free(slots)
        free(presence)
        capacity *= 2
        slots = Self.allocate(capacity)
        shift = Self.shift(for: capacity)
        (presence, presenceMask) = Self.presence(for: capacity, from: presenceFromSlots)
        for value in kept {
            let cell = Int(truncatingIfNeeded: value >> 16) - 1
            slots[slot(of: cell)] = value
            markPresent(cell)
        }
    }

    /// Empties the cells that hold one vote; the others are put back where a lookup finds them. The
    /// table is full here, so the kept cells (few, unless the query's alignments are many) are
    /// gathered in a small array rather than a second table.
    private func forgetSingleVotes() {
        var several = 0
        for i in 0..<capacity where slots[i] & Self.countMask > 1 { several += 1 }
        // Forgetting would not make room: keep every count exact and refuse new cells from now on.
        guard several < capacity / 2 else {
            refusing = true
            return
        }
        var kept: [UInt64] = []
        kept.reserveCapacity(several)
        for i in 0..<capacity where slots[i] != 0 {
            if slots[i] & Self.countMask > 1 { kept.append(slots[i]) }
            slots[i] = 0
        }
        forgotten += occupied - kept.count
        occupied = kept.count
        clearPresence()
        for value in kept {
            let cell = Int(truncatingIfNeeded: value >> 16) - 1
            slots[slot(of: cell)] = value
            markPresent(cell)
        }
    }

    /// The cells of `range` with votes, in ascending order.
    func votedCells(in range: Range<Int>) -> [Int] {
        var cells: [Int] = []
        for i in 0..<capacity where slots[i] != 0 {
            let cell = Int(truncatingIfNeeded: slots[i] >> 16) - 1
            if range.contains(cell) { cells.append(cell) }
        }
        cells.sort()
        return cells
    }
}
