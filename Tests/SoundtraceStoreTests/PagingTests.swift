import SoundtraceStore
import Testing

@Suite struct PagingTests {
    @Test func pagesWalkTheWholeHistoryNewestFirstWithoutGapsOrRepeats() throws {
        try withTemporaryDirectory { directory in
            let store = try Fixture.open(directory + "/history.db")
            for number in 1...250 {
                let snapshot = Fixture.snapshot(metadata: [.init(key: "number", value: "\(number)")])
                _ = try store.recordMatch(Fixture.recognition(session: "page-\(number)", snapshot: snapshot))
            }
            // Holes in the id sequence must not confuse the range query that fetches a page's metadata.
            for id: Int64 in [7, 100, 101, 180] { try store.deleteEvent(id: id) }
            var seen: [Int64] = []
            var cursor: Int64?
            while true {
                let page = try store.events(before: cursor, limit: 40)
                guard let last = page.last else { break }
                #expect(page.count <= 40)
                for event in page {
                    #expect(event.snapshot.metadata == [.init(key: "number", value: "\(event.id)")])
                    #expect(event.sessionId == "page-\(event.id)")
                }
                seen += page.map(\.id)
                cursor = last.id
            }
            #expect(seen == (1...250).reversed().filter { ![7, 100, 101, 180].contains($0) })
        }
    }

    @Test func offsetPagesSkipTheNewestAndKeepTheirMetadata() throws {
        try withTemporaryDirectory { directory in
            let store = try Fixture.open(directory + "/history.db")
            for number in 1...30 {
                let snapshot = Fixture.snapshot(metadata: [.init(key: "number", value: "\(number)")])
                _ = try store.recordMatch(Fixture.recognition(session: "offset-\(number)", snapshot: snapshot))
            }
            try store.deleteEvent(id: 25)
            let page = try store.events(skipping: 3, limit: 4)
            #expect(page.map(\.id) == [27, 26, 24, 23])
            #expect(page.map { $0.snapshot.metadata.first?.value } == ["27", "26", "24", "23"])
            #expect(try store.events(skipping: 29, limit: 10).isEmpty)
            #expect(try store.events(skipping: 0, limit: 1000).count == 29)
            #expect(throws: HistoryError.self) { try store.events(skipping: -1) }
        }
    }

    @Test func pageSizeIsClampedToTheDocumentedMaximum() throws {
        try withTemporaryDirectory { directory in
            let store = try Fixture.open(directory + "/history.db")
            for number in 1...(HistoryLimits.maximumPageSize + 20) {
                _ = try store.recordMatch(Fixture.recognition(session: "clamp-\(number)"))
            }
            #expect(try store.events(limit: 10_000).count == HistoryLimits.maximumPageSize)
            #expect(try store.events().count == HistoryLimits.maximumPageSize)
            #expect(try store.events(limit: 0).isEmpty)
            #expect(try store.events(limit: -5).isEmpty)
            #expect(try store.events(before: 1).isEmpty)
            #expect(try store.events(before: 3, limit: 10).map(\.id) == [2, 1])
        }
    }

    @Test func anEmptyHistoryHasNoEvents() throws {
        try withTemporaryDirectory { directory in
            let store = try Fixture.open(directory + "/history.db")
            #expect(try store.events().isEmpty)
            #expect(try store.eventCount() == 0)
        }
    }
}
