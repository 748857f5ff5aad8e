/// One alignment found in the vote grid: its windowed votes, reference and (vote-weighted) offset in frames.
struct Alignment: Equatable {
    let votes: Int
    let reference: Int
    let offset: Int
}

extension VoteGrid {
    /// The strongest alignments of one speed step: windows of `±radius` cells that hold at least
    /// `minimumVotes` and are a local maximum (neighbouring centres of the same alignment count
    /// once), at most `limit` of them, most votes first; among equals, the earlier reference and
    /// offset. One pass over the step's cells; memory stays bounded by `limit` however many qualify.
    func strongestAlignments(step: Int, radius: Int, minimumVotes: Int, limit: Int) -> [Alignment] {
        guard limit > 0 else { return [] }
        var kept: [Alignment] = []
        kept.reserveCapacity(limit)
        var weakest = 0  // index into `kept` of the one a stronger alignment replaces
        // Neighbouring references are one empty cell apart, and the grid begins and ends with one,
        // so with a radius of at most one every window read below lies inside the grid.
        precondition(radius >= 0 && radius <= 1, "alignment windows reach at most one cell either side")
        precondition(minimumVotes >= 1, "an alignment needs at least one vote")
        counts.withBytes { counters in
            for reference in referenceBase.indices {
                let first = step * span + referenceBase[reference]
                let end = first + referenceLength[reference]
                var lastTaken = Int.min / 2
                var previous = 0
                var current = window(first, radius: radius)
                var cell = first
                while cell < end {
                    // Most windows are empty: wrapping arithmetic and unchecked reads keep this pass cheap.
                    let entering = cell &+ radius &+ 1
                    let leaving = cell &- radius
                    let next = current &+ counts.value(entering, byte: counters[entering]) &- counts.value(leaving, byte: counters[leaving])
                    if current == 0 && next == 0 {
                        // Cells cell - radius ... cell + radius + 1 are empty: jump to the first window
                        // that holds the next vote, whose window before it is empty too.
                        guard let voted = Self.firstVoted(counters, from: cell &+ radius &+ 2, before: end &+ radius) else { break }
                        cell = voted - radius
                        previous = 0
                        current = counts.value(voted, byte: counters[voted])
                        continue
                    }
                    // Past the last centre of this reference the next window is not one of its alignments.
                    let following = cell + 1 < end ? next : 0
                    if current >= minimumVotes && current >= previous && current > following && cell - lastTaken > 2 * radius {
                        lastTaken = cell
                        let found = Alignment(votes: current, reference: reference, offset: centre(cell, radius: radius) - first - padding)
                        if kept.count < limit {
                            kept.append(found)
                            if kept.count == limit { weakest = Self.weakestIndex(kept) }
                        } else if current > kept[weakest].votes {
                            kept[weakest] = found
                            weakest = Self.weakestIndex(kept)
                        }
                    }
                    previous = current
                    current = next
                    cell += 1
                }
            }
        }
        return kept.sorted { ($0.votes, -$0.reference, -$0.offset) > ($1.votes, -$1.reference, -$1.offset) }
    }

    /// The first cell in `start..<end` with a vote, checking eight cells per step where it can.
    private static func firstVoted(_ counters: UnsafeBufferPointer<UInt8>, from start: Int, before end: Int) -> Int? {
        var cell = start
        while cell < end && cell % 8 != 0 {
            if counters[cell] != 0 { return cell }
            cell += 1
        }
        if let base = counters.baseAddress {
            let words = UnsafeRawPointer(base)
            while cell + 8 <= end && words.load(fromByteOffset: cell, as: UInt64.self) == 0 { cell += 8 }
        }
        while cell < end {
            if counters[cell] != 0 { return cell }
            cell += 1
        }
        return nil
    }

    /// The vote-weighted centre of the window around `cell` (a cell index), steadier than the
    /// window's own centre: a plateau of equal windows around a single offset names that offset.
    private func centre(_ cell: Int, radius: Int) -> Int {
        var weighted = 0
        for c in (cell - radius)...(cell + radius) { weighted += count(c) * c }
        return roundedDivide(weighted, window(cell, radius: radius))
    }

    /// The alignment a stronger one replaces: fewest votes, and of those the last found.
    private static func weakestIndex(_ kept: [Alignment]) -> Int {
        var index = 0
        for i in kept.indices.dropFirst() {
            let candidate = kept[i]
            let weakest = kept[index]
            if candidate.votes < weakest.votes
                || (candidate.votes == weakest.votes && (candidate.reference, candidate.offset) > (weakest.reference, weakest.offset))
            {
                index = i
            }
        }
        return index
    }
}
