import Testing

@testable import SoundtraceFingerprint

@Suite struct VoteGridTests {
    /// Two references of 100 and 50 frames, two speed steps, queries may start 10 frames early.
    static func grid(votes: [(reference: Int, step: Int, offset: Int, count: Int)]) -> VoteGrid {
        let grid = VoteGrid(referenceFrames: [100, 50], steps: 2, padding: 10)
        for v in votes {
            let cell = grid.cell(reference: v.reference, step: v.step, offset: v.offset)!
            for _ in 0..<v.count { grid.add(cell) }
        }
        return grid
    }

    @Test func alignmentsAreLocalMaximaOfTheWindowedVotes() {
        let grid = Self.grid(votes: [
            (0, 1, 20, 2), (0, 1, 21, 2),  // one alignment spread over two offsets: found once
            (0, 1, 60, 1), (0, 1, 62, 2),  // an empty centre between votes two frames apart
            (1, 1, -7, 4),  // before the reference starts
            (1, 1, 30, 2),  // too few votes
            (0, 0, 40, 9)  // another speed step
        ])
        let found = grid.strongestAlignments(step: 1, radius: 1, minimumVotes: 3, limit: 10)
        #expect(found.map(\.votes) == [4, 4, 3])
        #expect(found[0].reference == 0 && (20...21).contains(found[0].offset))
        #expect(found[1] == Alignment(votes: 4, reference: 1, offset: -7))
        #expect(found[2] == Alignment(votes: 3, reference: 0, offset: 61))
        #expect(grid.strongestAlignments(step: 0, radius: 1, minimumVotes: 3, limit: 10) == [Alignment(votes: 9, reference: 0, offset: 40)])
    }

    @Test func votesAnywhereInAReferenceAreFoundAcrossEmptyStretches() {
        // The first and last offsets a reference has (-padding and its length), and votes far apart.
        for (offset, reference) in [(-10, 0), (-9, 0), (0, 0), (3, 0), (57, 0), (99, 0), (100, 0), (-10, 1), (50, 1)] {
            let grid = Self.grid(votes: [(reference, 0, offset, 3), (1 - reference, 0, 20, 1)])
            #expect(
                grid.strongestAlignments(step: 0, radius: 1, minimumVotes: 3, limit: 4)
                    == [Alignment(votes: 3, reference: reference, offset: offset)], "offset \(offset) of \(reference)")
            #expect(
                grid.strongestAlignments(step: 0, radius: 0, minimumVotes: 3, limit: 4)
                    == [Alignment(votes: 3, reference: reference, offset: offset)], "offset \(offset) of \(reference), radius 0")
        }
        let spread = Self.grid(votes: [(0, 1, -10, 3), (0, 1, 30, 2), (0, 1, 31, 1), (0, 1, 100, 4), (1, 1, 49, 3), (1, 1, 50, 3)])
        #expect(spread.strongestAlignments(step: 1, radius: 1, minimumVotes: 3, limit: 10).map(\.votes) == [6, 4, 3, 3])
    }

    @Test func oneReferencesAlignmentsLeaveTheOthersOut() {
        let grid = Self.grid(votes: [
            (0, 0, 5, 3), (0, 0, 30, 5), (0, 0, 100, 4), (1, 0, -10, 6), (1, 0, 40, 7), (0, 1, 60, 9)
        ])
        #expect(
            grid.strongestAlignments(of: 0, step: 0, radius: 1, minimumVotes: 3, limit: 10)
                == [
                    Alignment(votes: 5, reference: 0, offset: 30), Alignment(votes: 4, reference: 0, offset: 100),
                    Alignment(votes: 3, reference: 0, offset: 5)
                ])
        #expect(
            grid.strongestAlignments(of: 1, step: 0, radius: 1, minimumVotes: 3, limit: 1)
                == [Alignment(votes: 7, reference: 1, offset: 40)])
        #expect(grid.strongestAlignments(of: 1, step: 1, radius: 1, minimumVotes: 1, limit: 4).isEmpty)
        #expect(grid.strongestAlignments(of: 2, step: 0, radius: 1, minimumVotes: 1, limit: 4).isEmpty)
    }

    @Test func theLimitKeepsTheStrongestAndTheEarliestOfEquals() {
        let grid = Self.grid(votes: [(0, 0, 5, 3), (0, 0, 30, 5), (0, 0, 50, 3), (1, 0, 10, 4), (1, 0, 40, 3)])
        let found = grid.strongestAlignments(step: 0, radius: 1, minimumVotes: 3, limit: 3)
        #expect(
            found == [
                Alignment(votes: 5, reference: 0, offset: 30), Alignment(votes: 4, reference: 1, offset: 10),
                Alignment(votes: 3, reference: 0, offset: 5)
            ])
        #expect(grid.strongestAlignments(step: 0, radius: 1, minimumVotes: 3, limit: 0).isEmpty)
        #expect(grid.strongestAlignments(step: 0, radius: 1, minimumVotes: 6, limit: 3).isEmpty)
    }
}
