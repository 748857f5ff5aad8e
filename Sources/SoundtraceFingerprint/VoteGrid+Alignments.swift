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
    /// offset. One pass over the step's voted cells; what it keeps stays bounded by `limit` however many qualify.
    func strongestAlignments(step: Int, radius: Int, minimumVotes: Int, limit: Int) -> [Alignment] {
        strongestAlignments(inCells: step * span..<(step + 1) * span, step: step, radius: radius, minimumVotes: minimumVotes, limit: limit)
    }

    /// The strongest alignments of one reference at one speed step, as `strongestAlignments(step:…)`.
    func strongestAlignments(of reference: Int, step: Int, radius: Int, minimumVotes: Int, limit: Int) -> [Alignment] {
        guard reference >= 0, reference < referenceBase.count else { return [] }
        let first = step * span + referenceBase[reference]
        return strongestAlignments(
            inCells: first..<first + referenceLength[reference], step: step, radius: radius, minimumVotes: minimumVotes, limit: limit)
    }

    private func strongestAlignments(inCells cells: Range<Int>, step: Int, radius: Int, minimumVotes: Int, limit: Int) -> [Alignment] {
        guard limit > 0 else { return [] }
        // Neighbouring references are one empty cell apart, so with a radius of at most one no
        // window mixes two references' votes.
        precondition(radius >= 0 && radius <= 1, "alignment windows reach at most one cell either side")
        precondition(minimumVotes >= 1, "an alignment needs at least one vote")
        var kept: [Alignment] = []
        kept.reserveCapacity(limit)
        var weakest = 0  // index into `kept` of the one a stronger alignment replaces
        var reference = -1
        var lastTaken = Int.min / 2
        var nextCentre = Int.min
        // Only windows that hold a vote can qualify: the centres within `radius` of a voted cell,
        // each visited once, in ascending order.
        for voted in counts.votedCells(in: cells) {
            for cell in max(voted - radius, nextCentre)...(voted + radius) {
                guard let r = self.reference(ofCell: cell) else { continue }
                if r != reference {
                    reference = r
                    lastTaken = Int.min / 2
                }
                let first = step * span + referenceBase[r]
                let end = first + referenceLength[r]
                let current = window(cell, radius: radius)
                // The first centre of a reference has no alignment before it, the last none after.
                let previous = cell > first ? window(cell - 1, radius: radius) : 0
                let following = cell + 1 < end ? window(cell + 1, radius: radius) : 0
                if current >= minimumVotes && current >= previous && current > following && cell - lastTaken > 2 * radius {
                    lastTaken = cell
                    let found = Alignment(votes: current, reference: r, offset: centre(cell, radius: radius) - first - padding)
                    if kept.count < limit {
                        kept.append(found)
                        if kept.count == limit { weakest = Self.weakestIndex(kept) }
                    } else if current > kept[weakest].votes {
                        kept[weakest] = found
                        weakest = Self.weakestIndex(kept)
                    }
                }
            }
            nextCentre = voted + radius + 1
        }
        return kept.sorted { ($0.votes, -$0.reference, -$0.offset) > ($1.votes, -$1.reference, -$1.offset) }
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
