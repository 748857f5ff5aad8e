import SoundtraceStore
import Testing

@Suite struct RecordMatchTests {
    @Test func storesTheEventWithItsSnapshotInOrder() throws {
        try withTemporaryDirectory { directory in
            let store = try Fixture.open(directory + "/history.db")
            // Metadata deliberately not sorted by key: the order given is the order kept.
            let snapshot = Fixture.snapshot(metadata: [
                .init(key: "zeta", value: "last key, first place"),
                .init(key: "alpha", value: ""),
                .init(key: "ümlaut", value: "Grüße 🎹")
            ])
            let match = Fixture.recognition(session: "session-1", offset: -1_500, score: 17, snapshot: snapshot)
            let outcome = try store.recordMatch(match)
            guard case let .recorded(id) = outcome else {
                Issue.record("expected .recorded, got \(outcome)")
                return
            }
            let event = try #require(try store.event(id: id))
            #expect(
                event
                    == RecognitionEvent(
                        id: id, sessionId: "session-1", referenceId: "harbor-lights-piano",
                        matchedAt: Fixture.now, offsetMilliseconds: -1_500, score: 17, snapshot: snapshot))
            #expect(try store.event(sessionId: "session-1") == event)
            #expect(try store.event(sessionId: "session-2") == nil)
            #expect(try store.event(id: id + 1) == nil)
        }
    }

    @Test func aSecondMatchInTheSameSessionStoresNothing() throws {
        try withTemporaryDirectory { directory in
            let store = try Fixture.open(directory + "/history.db")
            let first = try store.recordMatch(Fixture.recognition(session: "s-1", reference: "first-ref"))
            let again = try store.recordMatch(Fixture.recognition(session: "s-1", reference: "other-ref", score: 99))
            #expect(again == .alreadyRecorded(eventId: first.eventId))
            #expect(try store.eventCount() == 1)
            // The first confirmation is the one kept.
            #expect(try store.event(id: first.eventId)?.referenceId == "first-ref")
            // Listening again (a new session) makes a new event.
            let next = try store.recordMatch(Fixture.recognition(session: "s-2", reference: "first-ref"))
            #expect(next == .recorded(eventId: first.eventId + 1))
        }
    }

    @Test func theSchemaItselfRefusesASecondEventForASession() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/history.db"
            let store = try Fixture.open(path)
            _ = try store.recordMatch(Fixture.recognition(session: "unique"))
            // A writer that skips HistoryStore (a buggy tool, a future code path) still cannot add a second row.
            let raw = try RawDatabase(path)
            defer { raw.close() }
            let insert = """
                INSERT INTO event (session_id, reference_id, matched_at, offset_ms, score, title, creator, license, source_file, catalog_hash)
                VALUES ('unique', 'harbor-lights-piano', 1, 0, 1, 't', 'c', 'l', 's', '\(Fixture.catalogHash)')
                """
            #expect(throws: RawError.self) { try raw.execute(insert) }
            do { try raw.execute(insert) } catch let error as RawError { #expect(error.code == 2067) }  // SQLITE_CONSTRAINT_UNIQUE
            #expect(try raw.integer("SELECT count(*) FROM event WHERE session_id = 'unique'") == 1)
        }
    }

    @Test func eventsSurviveCloseAndReopen() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/history.db"
            let store = try Fixture.open(path)
            let outcome = try store.recordMatch(Fixture.recognition(session: "kept"))
            store.close()
            let reopened = try HistoryStore.open(path: path, clock: Fixture.fixedClock)
            #expect(
                reopened.report
                    == OpenReport(
                        path: path, createdFresh: false, movedAside: nil,
                        upgradedFrom: nil, schemaVersion: 2))
            #expect(try reopened.store.event(id: outcome.eventId)?.sessionId == "kept")
        }
    }

    @Test func aClosedStoreRefusesWork() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/history.db"
            let store = try Fixture.open(path)
            store.close()
            #expect(throws: HistoryError.closed(path: path)) { try store.recordMatch(Fixture.recognition(session: "late")) }
            #expect(throws: HistoryError.closed(path: path)) { try store.events() }
        }
    }
}
