import SoundtraceStore
import Testing

@Suite struct DeleteEventTests {
    @Test func deletingAnUnknownIdIsNotFound() throws {
        try withTemporaryDirectory { directory in
            let store = try Fixture.open(directory + "/history.db")
            #expect(throws: HistoryError.notFound(eventId: 42)) { try store.deleteEvent(id: 42) }
            let outcome = try store.recordMatch(Fixture.recognition(session: "once"))
            try store.deleteEvent(id: outcome.eventId)
            // Deleting twice: the second time it is gone.
            #expect(throws: HistoryError.notFound(eventId: outcome.eventId)) { try store.deleteEvent(id: outcome.eventId) }
        }
    }

    @Test func aDeletedEventStaysDeletedAfterReopenAndItsIdIsNeverReused() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/history.db"
            let store = try Fixture.open(path)
            let kept = try store.recordMatch(Fixture.recognition(session: "kept")).eventId
            let doomed = try store.recordMatch(Fixture.recognition(session: "doomed")).eventId
            try store.deleteEvent(id: doomed)
            store.close()

            let reopened = try Fixture.open(path)
            #expect(try reopened.event(id: doomed) == nil)
            #expect(try reopened.events().map(\.id) == [kept])
            // The newest id was deleted; AUTOINCREMENT still never hands it out again.
            let next = try reopened.recordMatch(Fixture.recognition(session: "next")).eventId
            #expect(next > doomed)
            reopened.close()

            let raw = try RawDatabase(path)
            defer { raw.close() }
            #expect(try raw.integer("SELECT count(*) FROM event_metadata WHERE event_id = \(doomed)") == 0)
            #expect(try raw.integer("SELECT count(*) FROM event_metadata WHERE event_id = \(kept)") == 2)
        }
    }
}
