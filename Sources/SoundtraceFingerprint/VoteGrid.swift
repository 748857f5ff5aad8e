/// Vote counts of one query, one counter per (speed step, reference, offset) cell in a flat array:
/// a vote costs an increment and a few reads, memory is reserved when the query starts (one byte ×
/// speed steps × catalog frames: about 0.4 MB for the sample catalog) and nothing grows with the
/// random hits that noise produces. Its pages become resident only where votes land
/// (`ZeroedCounters`): a query that matches early touches about half of them, a 10-second query
/// of music that is not in the catalog nearly all. Counts are exact up to 65535, which a 30-second
/// query cannot reach (counters that saturated at 255 did, on clean whole-recording queries, and
/// blurred offsets: the bytes spill into exact counts instead).
struct VoteGrid {
    let counts: ZeroedCounters
    /// Where each reference's offsets start within one speed step's span.
    let referenceBase: [Int]
    let referenceLength: [Int]
    /// Offsets below -padding (a query starting more than `padding` frames before the reference) are not counted.
    let padding: Int
    let span: Int

    init(referenceFrames: [Int], steps: Int, padding: Int) {
        let layout = Self.layout(referenceFrames: referenceFrames, padding: padding)
        referenceBase = layout.base
        referenceLength = layout.lengths
        self.padding = padding
        span = layout.span
        counts = ZeroedCounters(count: span * steps)
    }

    /// Bytes the counters of a grid with this layout reserve, without making one.
    static func bytes(referenceFrames: [Int], steps: Int, padding: Int) -> Int {
        layout(referenceFrames: referenceFrames, padding: padding).span * steps
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

    /// Adds one vote to a cell.
    func add(_ cell: Int) { counts.increment(cell) }

    /// Votes in the cells `cell - radius ... cell + radius` (neighbouring references are separated
    /// by empty cells, and the radius is at most one).
    func window(_ cell: Int, radius: Int) -> Int {
        var sum = 0
        for c in (cell - radius)...(cell + radius) where c >= 0 && c < counts.count { sum += counts[c] }
        return sum
    }

    func count(_ cell: Int) -> Int { cell >= 0 && cell < counts.count ? counts[cell] : 0 }

    /// Bytes the grid reserves.
    var bytes: Int { counts.count }
}
