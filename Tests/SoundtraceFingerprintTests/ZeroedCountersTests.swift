import Testing

@testable import SoundtraceFingerprint

@Suite struct ZeroedCountersTests {
    @Test func countsStayExactPastOneByteAndStopAtSixtyFiveThousand() {
        let counters = ZeroedCounters(count: 16)
        for _ in 0..<127 { counters.increment(3) }
        #expect(counters[3] == 127 && counters.spilledCells == 0)
        counters.increment(3)
        #expect(counters[3] == 128 && counters.spilledCells == 1, "the 128th vote moves the count out of its byte")
        for _ in 0..<1000 { counters.increment(3) }
        #expect(counters[3] == 1128)
        for _ in 0..<70_000 { counters.increment(7) }
        #expect(counters[7] == 65535)
        #expect(counters[2] == 0 && counters[4] == 0 && counters[8] == 0, "neighbours untouched")
    }

    @Test func moreStrongCellsThanSpillSlotsStayExact() {
        let cells = ZeroedCounters.spillSlotCount + 5
        let counters = ZeroedCounters(count: cells)
        for cell in 0..<cells { for _ in 0..<(130 + cell) { counters.increment(cell) } }
        #expect(counters.spilledCells == cells)
        #expect((0..<cells).allSatisfy { counters[$0] == 130 + $0 })
        for _ in 0..<70_000 { counters.increment(cells - 1) }
        #expect(counters[cells - 1] == 65535, "an overflowed cell saturates too")
        let buffer = UnsafeMutableBufferPointer<Int>.allocate(capacity: 4)
        defer { buffer.deallocate() }
        counters.read(from: cells - 2, into: buffer)
        #expect(Array(buffer) == [130 + cells - 2, 65535, 0, 0], "reads past the end are zero")
        counters.read(from: -1, into: buffer)
        #expect(Array(buffer) == [0, 130, 131, 132])
    }

    @Test func alignmentsCountSpilledCellsInFull() {
        let grid = VoteGrid(referenceFrames: [100, 50], steps: 2, padding: 10)
        let strong = grid.cell(reference: 1, step: 0, offset: 20)!
        for _ in 0..<300 { grid.add(strong) }
        for _ in 0..<260 { grid.add(strong + 1) }
        for _ in 0..<5 { grid.add(grid.cell(reference: 0, step: 0, offset: 40)!) }
        #expect(grid.window(strong, radius: 1) == 560)
        let found = grid.strongestAlignments(step: 0, radius: 1, minimumVotes: 3, limit: 4)
        #expect(found.map(\.votes) == [560, 5])
        #expect(found[0].reference == 1 && found[0].offset == 20, "the vote-weighted centre of 300 at 20 and 260 at 21")
        #expect(grid.bytes == grid.counts.count, "one byte per cell")
    }
}
