import Testing

@testable import SoundtraceFingerprint

@Suite struct SparseCountersTests {
    /// A small deterministic generator, so that a failure can be reproduced.
    struct Lcg {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    @Test func countsMatchADictionaryThroughEveryGrowth() {
        let counters = SparseCounters(count: 5_000_000, maximumSlots: 1 << 16)
        var model: [Int: Int] = [:]
        var random = Lcg(state: 7)
        for _ in 0..<40_000 {
            // Clusters of neighbouring cells, as alignments make, and scattered ones, as chance does.
            let cell = random.next(2) == 0 ? 1_000_000 + random.next(64) : random.next(5_000_000)
            model[cell, default: 0] += 1
            #expect(counters.incremented(cell) == model[cell], "the count after the vote")
        }
        #expect(counters.occupied == model.count && counters.dropped == 0)
        #expect(counters.bytes > SparseCounters.initialSlots * 8, "the table grew")
        #expect(model.allSatisfy { counters[$0.key] == $0.value })
        for _ in 0..<1000 {
            let cell = random.next(5_000_000)
            #expect(counters[cell] == model[cell] ?? 0)
        }
        #expect(counters[-1] == 0 && counters[5_000_000] == 0, "outside the cells is zero")
        #expect(counters.votedCells(in: 1_000_000..<1_000_064) == model.keys.filter { (1_000_000..<1_000_064).contains($0) }.sorted())
    }

    /// The table doubles only once three quarters full: a session's table is then up to half the
    /// size it was when it doubled at half full, for the same counts (docs/BENCHMARKS.md, "Catalog
    /// scale": the daemon's listening peak).
    @Test func theTableDoublesWhenThreeQuartersFull() {
        let counters = SparseCounters(count: 1 << 20, maximumSlots: 1 << 16)
        let initial = counters.bytes
        for cell in 0..<(SparseCounters.initialSlots / 4 * 3) { counters.increment(cell * 3) }
        #expect(counters.bytes == initial, "three quarters full, not grown")
        counters.increment(1)
        #expect(counters.bytes > initial, "grown on the next new cell")
        #expect((0..<(SparseCounters.initialSlots / 4 * 3)).allSatisfy { counters[$0 * 3] == 1 } && counters[1] == 1)
    }

    /// Cells far apart share a bit of the presence bitmap; a shared bit must not lend one cell's
    /// votes to the other, and a rebuilt table (grown, or forgetting) must not forget a cell's bit.
    @Test func cellsSharingAPresenceBitKeepTheirOwnCounts() {
        let counters = SparseCounters(count: 1 << 20, maximumSlots: 2048, presenceFromSlots: 1024)
        let bits = 1024 * 8
        counters.increment(5)
        #expect(counters[5 + bits] == 0 && counters[5 + 2 * bits] == 0 && counters[4] == 0 && counters[6] == 0)
        for _ in 0..<3 { counters.increment(5 + bits) }
        let buffer = UnsafeMutableBufferPointer<Int>.allocate(capacity: 3)
        defer { buffer.deallocate() }
        counters.read(from: 4 + bits, into: buffer)
        #expect(Array(buffer) == [0, 3, 0] && counters[5] == 1)
        // Growing moves every cell; each must still be found through the new, larger bitmap.
        for cell in 0..<800 { counters.increment(100_000 + cell * 7) }
        #expect(counters.bytes == SparseCounters.maximumBytes(slots: 2048), "the table grew")
        #expect(counters[5] == 1 && counters[5 + bits] == 3 && (0..<800).allSatisfy { counters[100_000 + $0 * 7] == 1 })
        // Forgetting the single votes clears their bits; the cells of several votes keep theirs.
        for cell in 0..<900 { counters.increment(500_000 + cell * 5) }
        #expect(counters.forgotten > 0 && counters[5 + bits] == 3 && counters[5] == 0)
    }

    /// A vote asks whether any cell within `reach` of its own may have votes, and reads its
    /// neighbours only then. The question is answered one or two bitmap words at a time; it must
    /// give what asking bit by bit gives, for every cell: where the bits straddle two words, where
    /// they wrap around the bitmap's end, and in a table too small to keep a bitmap.
    @Test func neighboursAreAskedWordByWordAsBitByBit() {
        for presenceFrom in [1024, 1 << 30] {
            let counters = SparseCounters(count: 1 << 20, maximumSlots: 1 << 14, presenceFromSlots: presenceFrom)
            var random = Lcg(state: 11)
            for round in 0..<6 {
                // Sparse at first (most answers false), then denser, through the table's growths.
                for _ in 0..<(200 << round) { counters.increment(1 + random.next((1 << 20) - 2)) }
                let bits = counters.bytes / 9 * 8  // the bitmap's bits: 8 per slot of 8 bytes
                let probes =
                    (0..<3000).map { _ in 1 + random.next((1 << 20) - 2) }
                    + (0..<8).map { bits * 7 + $0 } + (0..<8).map { bits * 9 - $0 } + (60..<70).map { bits * 3 + $0 }
                for cell in probes {
                    for reach in 0...4 {
                        #expect(
                            counters.neighboursMayHold(cell, reach: reach) == counters.neighboursMayHoldBitByBit(cell, reach: reach),
                            "cell \(cell), reach \(reach), round \(round), bitmap from \(presenceFrom) slots")
                    }
                }
            }
        }
    }

    @Test func countsStopAtSixtyFiveThousand() {
        let counters = SparseCounters(count: 16, maximumSlots: 1024)
        for _ in 0..<70_000 { counters.increment(7) }
        #expect(counters[7] == 65535 && counters[6] == 0 && counters[8] == 0)
    }

    @Test func aFullTableForgetsSingleVotesAndKeepsCountingTheRest() {
        let counters = SparseCounters(count: 1 << 20, maximumSlots: 1024)
        // 60 cells of an alignment with three votes each, among 708 chance votes of one each.
        for cell in 0..<60 { for _ in 0..<3 { counters.increment(5000 + cell) } }
        for cell in 0..<708 { #expect(counters.increment(cell * 3)) }
        #expect(counters.occupied == 768 && counters.forgotten == 0)
        #expect(counters.increment(1), "a new cell makes the table forget its single votes")
        #expect(counters.forgotten == 708 && counters.dropped == 0 && counters.occupied == 61)
        #expect(counters.bytes <= SparseCounters.maximumBytes(slots: 1024), "never past the maximum")
        #expect((0..<60).allSatisfy { counters[5000 + $0] == 3 }, "cells of several votes keep their counts")
        #expect(counters[0] == 0 && counters[3] == 0 && counters[1] == 1)
        #expect(counters.increment(3) && counters[3] == 1, "a forgotten cell counts again from one, never more than it had")
        #expect(counters.increment(5000) && counters[5000] == 4)
        let buffer = UnsafeMutableBufferPointer<Int>.allocate(capacity: 5)
        defer { buffer.deallocate() }
        counters.read(from: 4998, into: buffer)
        #expect(Array(buffer) == [0, 0, 4, 3, 3])
    }

    @Test func aTableFullOfRepeatedCellsRefusesNewOnes() {
        let counters = SparseCounters(count: 1 << 20, maximumSlots: 1024)
        for cell in 0..<768 { for _ in 0..<2 { counters.increment(cell * 3) } }
        #expect(!counters.increment(1) && counters[1] == 0, "forgetting would free nothing: a new cell is refused")
        #expect(counters.incremented(2) == 0 && counters.dropped == 2 && counters.forgotten == 0)
        #expect(counters.incremented(0) == 3 && counters[0] == 3, "a cell it holds still counts")
        #expect((1..<768).allSatisfy { counters[$0 * 3] == 2 })
    }

    /// The alignments of the sparse grid are the ones a dense scan of every centre finds.
    @Test func alignmentsMatchADenseScanOfEveryCentre() {
        let frames = [300, 7, 120, 1, 450]
        for seed in 1...40 {
            var random = Lcg(state: UInt64(seed))
            let grid = VoteGrid(referenceFrames: frames, steps: 3, padding: 12, maximumSlots: 1024)
            var votes: [(reference: Int, step: Int, offset: Int)] = []
            for _ in 0..<(50 + random.next(400)) {
                let reference = random.next(frames.count)
                let offset = random.next(frames[reference] + 13) - 12
                let step = random.next(3)
                let copies = random.next(8) == 0 ? 2 + random.next(5) : 1
                for _ in 0..<copies {
                    if let cell = grid.cell(reference: reference, step: step, offset: offset) {
                        grid.add(cell)
                        votes.append((reference, step, offset))
                    }
                }
            }
            for radius in 0...1 {
                for minimum in [1, 2, 4] {
                    let expected = Self.denseAlignments(
                        frames: frames, padding: 12, votes: votes, step: 1, radius: radius, minimumVotes: minimum, limit: 6)
                    #expect(
                        grid.strongestAlignments(step: 1, radius: radius, minimumVotes: minimum, limit: 6) == expected,
                        "seed \(seed), radius \(radius), minimum \(minimum)")
                }
            }
        }
    }

    /// The rule spelled out over every centre of every reference, as a dense grid reads it.
    static func denseAlignments(
        frames: [Int], padding: Int, votes: [(reference: Int, step: Int, offset: Int)], step: Int, radius: Int,
        minimumVotes: Int, limit: Int
    ) -> [Alignment] {
        var found: [(alignment: Alignment, order: Int)] = []
        var order = 0
        for (reference, length) in frames.enumerated() {
            let cells = padding + length + 1
            var count = [Int](repeating: 0, count: cells)
            for v in votes where v.reference == reference && v.step == step { count[v.offset + padding] += 1 }
            func at(_ i: Int) -> Int { i >= 0 && i < cells ? count[i] : 0 }
            func window(_ i: Int) -> Int { (i - radius...i + radius).reduce(0) { $0 + at($1) } }
            var lastTaken = Int.min / 2
            for i in 0..<cells {
                let current = window(i)
                let previous = i > 0 ? window(i - 1) : 0
                let following = i + 1 < cells ? window(i + 1) : 0
                guard current >= minimumVotes && current >= previous && current > following && i - lastTaken > 2 * radius else {
                    continue
                }
                lastTaken = i
                let weighted = (i - radius...i + radius).reduce(0) { $0 + at($1) * $1 }
                let centre = roundedDivide(weighted, current)
                found.append((Alignment(votes: current, reference: reference, offset: centre - padding), order))
                order += 1
            }
        }
        // Keep the `limit` most votes, a later find losing a tie, as the grid's bounded list does.
        let kept = found.sorted { ($0.alignment.votes, -$0.order) > ($1.alignment.votes, -$1.order) }.prefix(limit)
        return kept.map(\.alignment).sorted { ($0.votes, -$0.reference, -$0.offset) > ($1.votes, -$1.reference, -$1.offset) }
    }
}
