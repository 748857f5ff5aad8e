import Testing

@testable import SoundtraceStore

@Suite struct MigrationTests {
    @Test func everyEarlierVersionHasAFrozenFixture() {
        // Adding schema version N+1 means freezing version N's DDL in FrozenSchemas, so that the
        // test below keeps covering every version ever shipped.
        #expect(FrozenSchemas.versions.count + 1 == Int(Schema.currentVersion))
    }

    @Test(arguments: 0..<Int(Schema.currentVersion))
    func opensADatabaseFromEveryEarlierVersion(_ version: Int) throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/history.db"
            try FrozenSchemas.createDatabase(at: path, version: version)
            if version >= 1 {
                // History written by that version's code: an event with metadata and a favorite.
                let raw = try RawDatabase(path)
                try raw.execute(
                    """
                    INSERT INTO event (session_id, reference_id, matched_at, offset_ms, score, title, creator, license, source_file, catalog_hash)
                    VALUES ('old-session', 'harbor-lights-piano', 1700000000000, -250, 9, 'Harbor Lights', 'Soundtrace project',
                            'CC0-1.0', 'audio/harbor-lights-piano.wav', '\(Fixture.catalogHash)');
                    INSERT INTO event_metadata (event_id, position, key, value) VALUES (1, 0, 'key', 'D major'), (1, 1, 'bpm', '90');
                    INSERT INTO favorite (reference_id, favorited_at) VALUES ('harbor-lights-piano', 1700000000001);
                    """)
                raw.close()
            }

            let (store, report) = try HistoryStore.open(path: path, clock: Fixture.fixedClock)
            #expect(report.movedAside == nil)
            #expect(report.schemaVersion == Schema.currentVersion)
            #expect(report.createdFresh == (version == 0))
            #expect(report.upgradedFrom == (version == 0 ? nil : Int32(version)))
            #expect(try store.pragma("user_version") == ["\(Schema.currentVersion)"])
            if version >= 1 {
                let event = try #require(try store.event(id: 1))
                #expect(event.sessionId == "old-session")
                #expect(event.offsetMilliseconds == -250)
                #expect(event.snapshot.metadata == [.init(key: "key", value: "D major"), .init(key: "bpm", value: "90")])
                #expect(try store.favorites() == [Favorite(referenceId: "harbor-lights-piano", favoritedAt: 1_700_000_000_001)])
            }
            // Everything the current schema offers works on the upgraded file.
            try store.setCalmMode(true)
            #expect(try store.recordMatch(Fixture.recognition(session: "new-session")).eventId == (version >= 1 ? 2 : 1))
            #expect(try store.integrityProblems() == [])
            store.close()

            let reopened = try HistoryStore.open(path: path, clock: Fixture.fixedClock)
            #expect(reopened.report.upgradedFrom == nil)
            #expect(try reopened.store.isCalmModeOn())
        }
    }

    @Test func aFailingMigrationIsRolledBackAndLeavesTheOldVersion() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/history.db"
            try FrozenSchemas.createDatabase(at: path, version: 1)
            // A table in the way of version 2's CREATE TABLE makes its migration fail half-way,
            // after nothing or after part of its DDL: either way nothing of it may remain.
            let raw = try RawDatabase(path)
            try raw.execute("CREATE TABLE setting (unrelated TEXT)")
            raw.close()

            do throws(HistoryError) {
                _ = try HistoryStore.open(path: path, clock: Fixture.fixedClock)
                Issue.record("opened despite a failing migration")
            } catch {
                guard case let .migrationFailed(_, version, _, _) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(version == 2)
                #expect(error.description.contains("rolled back"))
            }
            let check = try RawDatabase(path)
            defer { check.close() }
            #expect(try check.integer("PRAGMA user_version") == 1)
            #expect(try check.texts("SELECT name FROM sqlite_schema WHERE name = 'favorite_by_time'").isEmpty)
            #expect(try directoryListing(directory).filter { $0.contains("corrupt") || $0.contains("foreign") }.isEmpty)
        }
    }

    @Test func aNewerSchemaIsRefusedAndLeftUntouched() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/history.db"
            let store = try Fixture.open(path)
            _ = try store.recordMatch(Fixture.recognition(session: "from-the-future"))
            store.close()
            let raw = try RawDatabase(path)
            try raw.execute("PRAGMA user_version = 99")
            raw.close()
            let before = try fileBytes(path)
            let listing = try directoryListing(directory)

            #expect(throws: HistoryError.newerSchema(path: path, found: 99, supported: Schema.currentVersion)) {
                try HistoryStore.open(path: path, clock: Fixture.fixedClock)
            }
            #expect(try fileBytes(path) == before)
            #expect(try directoryListing(directory) == listing)
        }
    }
}
