/// Vote counts of one query, one counter per (speed step, reference, offset) cell: a vote costs an
/// increment and a few reads. The cells are numbered as in a flat array (each speed step spans every
/// reference's offsets, references one empty cell apart), but only cells with votes take memory
/// (`SparseCounters`): a session's memory follows what it heard, not the catalog's size. Counts are
/// exact up to 65535, which a 30-second query cannot reach.
struct VoteGrid {
    let counts: SparseCounters
    /// Where each reference's offsets start within one speed step's span.
    let referenceBase: [Int]
    let referenceLength: [Int]
    /// Offsets below -padding (a query starting more than `padding` frames before the reference) are not counted.
    let padding: Int
    let span: Int

    /// At most 2 MiB of vote slots a query, and a 256 KiB bitmap beside them: room for 196,608
    /// voted cells. A 5 s query of music that is not in a 20-hour catalog fills about 140,000, a
    /// 10 s one would fill nearly 300,000: past the room, cells of one vote are forgotten
    /// (`SparseCounters`).
    static let maximumSlots = 1 << 18

    init(referenceFrames: [Int], steps: Int, padding: Int, maximumSlots: Int = Self.maximumSlots) {
        let layout = Self.layout(referenceFrames: referenceFrames, padding: padding)
        referenceBase = layout.base
        referenceLength = layout.lengths
        self.padding = padding
        span = layout.span
        counts = SparseCounters(count: span * steps, maximumSlots: maximumSlots)
    }

    private static func layout(referenceFrames: [Int], padding: Int) -> (base: [Int], lengths: [Int], span: Int) {
        var base: [Int] = []
        var lengths: [Int] = []
        var position = 1  // cell 0 stays zero, so neighbours of the first cell read as empty
        for frames in referenceFrames {
            base.append(position)
            let length = padding + frames + 1
            lengths.append(length)
            position += length + 1  // one empty cell between references
        }
        return (base, lengths, position + 1)
    }

    /// The cell of an alignment, or nil when the offset lies outside what the grid covers or the
    /// reference is not one of the catalog's: the daemon does not read every index entry before
    /// serving (`CatalogFile.Check.structure`), so a damaged entry can name any reference its bits
    /// hold, and must not be able to stop it.
    func cell(reference: Int, step: Int, offset: Int) -> Int? {
        guard reference < referenceLength.count else { return nil }
        let o = offset + padding
        guard o >= 0, o < referenceLength[reference] else { return nil }
        return step * span + referenceBase[reference] + o
    }

    /// Adds one vote to a cell; false when the counters were full and refused it.
    @discardableResult func add(_ cell: Int) -> Bool { counts.increment(cell) }

    /// Adds one vote to a cell and returns its count after the vote: 0 when the counters were full
    /// and refused it.
    @inline(__always) func added(_ cell: Int) -> Int { counts.incremented(cell) }

    /// Votes in the cells `cell - radius ... cell + radius` (neighbouring references are separated
    /// by empty cells, and the radius is at most one).
    func window(_ cell: Int, radius: Int) -> Int {
        var sum = 0
        for c in (cell - radius)...(cell + radius) { sum += counts[c] }
        return sum
    }

    func count(_ cell: Int) -> Int { counts[cell] }

    /// Bytes the grid holds now.
    var bytes: Int { counts.bytes }

    /// The reference whose cells (of any speed step) include `cell`, or nil for an empty cell between references.
    func reference(ofCell cell: Int) -> Int? {
        let position = cell % span
        var lo = 0
        var hi = referenceBase.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if referenceBase[mid] <= position { lo = mid + 1 } else { hi = mid }
        }
        guard lo > 0, position - referenceBase[lo - 1] < referenceLength[lo - 1] else { return nil }
        return lo - 1
    }
}
