import Foundation
import SoundtraceStore
import Testing

/// Damaged and foreign files are renamed with a timestamp (never deleted) and a fresh history starts.
@Suite struct MoveAsideTests {
    /// Writes a real history with `events` events and returns its path.
    static func makeHistory(in directory: String, events: Int) throws -> String {
        let path = directory + "/history.db"
        let store = try Fixture.open(path)
        for number in 0..<events {
            let snapshot = Fixture.snapshot(metadata: [.init(key: "padding", value: String(repeating: "p", count: 400))])
            _ = try store.recordMatch(Fixture.recognition(session: "old-\(number)", snapshot: snapshot))
        }
        store.close()
        return path
    }

    /// Opens `path` (which holds `damaged` bytes), expects a move aside for `label` and a usable fresh store.
    static func expectMovedAside(_ path: String, label: String, original damaged: [UInt8]) throws -> MovedAside {
        let (store, report) = try HistoryStore.open(path: path, clock: Fixture.fixedClock)
        let moved = try #require(report.movedAside, "nothing was moved aside")
        #expect(moved.reason.label == label)
        #expect(moved.originalPath == path)
        #expect(moved.movedTo == "\(path).\(label)-\(Fixture.nowStamp)")
        #expect(report.createdFresh)
        #expect(report.description.hasPrefix("history was reset"))
        #expect(report.description.contains(moved.movedTo))
        // Kept byte for byte, not repaired, not deleted.
        #expect(try fileBytes(moved.movedTo) == damaged)
        #expect(try store.eventCount() == 0)
        #expect(try store.recordMatch(Fixture.recognition(session: "after-reset")) == .recorded(eventId: 1))
        store.close()
        return moved
    }

    @Test func aCorruptDatabaseIsMovedAsideAndAFreshOneStarted() throws {
        try withTemporaryDirectory { directory in
            let path = try Self.makeHistory(in: directory, events: 40)
            // Scribble over the b-tree pages after the header page, as a failing card might.
            var bytes = try fileBytes(path)
            for index in 4096..<min(bytes.count, 4096 * 6) { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ 7) }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let moved = try Self.expectMovedAside(path, label: "corrupt", original: bytes)
            guard case let .corrupt(detail) = moved.reason else {
                Issue.record("\(moved.reason)")
                return
            }
            #expect(!detail.isEmpty)
        }
    }

    @Test(arguments: [50, 4096 + 100, 3 * 4096])
    func aTruncatedDatabaseIsMovedAside(_ keptBytes: Int) throws {
        try withTemporaryDirectory { directory in
            let path = try Self.makeHistory(in: directory, events: 60)
            let truncated = Array(try fileBytes(path).prefix(keptBytes))
            #expect(truncated.count == keptBytes)
            try Data(truncated).write(to: URL(fileURLWithPath: path))
            _ = try Self.expectMovedAside(path, label: "corrupt", original: truncated)
        }
    }

    @Test func aFileThatIsNotSQLiteIsMovedAsideWithItsCompanions() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/history.db"
            let text = Array("these are somebody's notes, not a database\n".utf8)
            try Data(text).write(to: URL(fileURLWithPath: path))
            try Data("stale wal".utf8).write(to: URL(fileURLWithPath: path + "-wal"))
            try Data("stale shm".utf8).write(to: URL(fileURLWithPath: path + "-shm"))
            let moved = try Self.expectMovedAside(path, label: "foreign", original: text)
            // The companions keep SQLite's naming relative to the moved file, so `sqlite3 <moved>` finds them.
            #expect(moved.companions == [moved.movedTo + "-wal", moved.movedTo + "-shm"])
            #expect(try fileBytes(moved.movedTo + "-wal") == Array("stale wal".utf8))
            #expect(try fileBytes(moved.movedTo + "-shm") == Array("stale shm".utf8))
        }
    }

    @Test(arguments: ["CREATE TABLE notes (body TEXT)", "PRAGMA application_id = 305419896", "PRAGMA user_version = 3"])
    func anotherApplicationsSQLiteDatabaseIsMovedAside(_ statement: String) throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/history.db"
            let raw = try RawDatabase(path)
            try raw.execute(statement)
            raw.close()
            let moved = try Self.expectMovedAside(path, label: "foreign", original: try fileBytes(path))
            guard case let .foreign(detail) = moved.reason else {
                Issue.record("\(moved.reason)")
                return
            }
            #expect(detail.contains("another application"))
        }
    }

    @Test func aCorruptDatabaseWithAWALKeepsTheWALBesideTheMovedFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/history.db"
            // Leave a WAL behind the way a crash does: copy the files while a connection that never
            // checkpoints has just committed into its WAL.
            let live = directory + "/live.db"
            let store = try Fixture.open(live)
            _ = try store.recordMatch(Fixture.recognition(session: "in-the-file"))
            store.close()
            let raw = try RawDatabase(live)
            try raw.execute("PRAGMA wal_autocheckpoint = 0; INSERT INTO favorite VALUES ('in-the-wal', 1)")
            let eventRoot = Int(try raw.integer("SELECT rootpage FROM sqlite_schema WHERE name = 'event'"))
            try FileManager.default.copyItem(atPath: live, toPath: path)
            try FileManager.default.copyItem(atPath: live + "-wal", toPath: path + "-wal")
            raw.close()
            // Damage the event table's page, which the WAL does not hold (it holds only the favorite).
            var bytes = try fileBytes(path)
            for index in ((eventRoot - 1) * 4096)..<(eventRoot * 4096) { bytes[index] = 0xEE }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let wal = try fileBytes(path + "-wal")

            let (fresh, report) = try HistoryStore.open(path: path, clock: Fixture.fixedClock)
            let moved = try #require(report.movedAside)
            #expect(moved.reason.label == "corrupt")
            #expect(moved.companions.contains(moved.movedTo + "-wal"))
            // The WAL was not checkpointed into the damaged file on the way out: both are as found.
            #expect(try fileBytes(moved.movedTo) == bytes)
            #expect(try fileBytes(moved.movedTo + "-wal") == wal)
            #expect(try fresh.eventCount() == 0)
        }
    }

    @Test func twoResetsInTheSameSecondGetDistinctNames() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/history.db"
            try Data("junk one".utf8).write(to: URL(fileURLWithPath: path))
            let first = try HistoryStore.open(path: path, clock: Fixture.fixedClock)
            first.store.close()
            try Data("junk two".utf8).write(to: URL(fileURLWithPath: path))
            let second = try HistoryStore.open(path: path, clock: Fixture.fixedClock)
            #expect(first.report.movedAside?.movedTo == "\(path).foreign-\(Fixture.nowStamp)")
            #expect(second.report.movedAside?.movedTo == "\(path).foreign-\(Fixture.nowStamp)-2")
            #expect(try fileBytes(path + ".foreign-\(Fixture.nowStamp)") == Array("junk one".utf8))
            #expect(try fileBytes(path + ".foreign-\(Fixture.nowStamp)-2") == Array("junk two".utf8))
        }
    }

    @Test func anEmptyFileIsAdoptedNotMovedAside() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/history.db"
            _ = FileManager.default.createFile(atPath: path, contents: Data())
            let (store, report) = try HistoryStore.open(path: path, clock: Fixture.fixedClock)
            #expect(report.movedAside == nil)
            #expect(report.createdFresh)
            #expect(try store.recordMatch(Fixture.recognition(session: "first")) == .recorded(eventId: 1))
            #expect(try directoryListing(directory).allSatisfy { $0.hasPrefix("history.db") && !$0.contains("-2026") })
        }
    }

    @Test func ourDatabaseMissingATableIsTreatedAsDamaged() throws {
        try withTemporaryDirectory { directory in
            let path = try Self.makeHistory(in: directory, events: 3)
            let raw = try RawDatabase(path)
            try raw.execute("DROP TABLE setting")
            raw.close()
            let moved = try Self.expectMovedAside(path, label: "corrupt", original: try fileBytes(path))
            guard case let .corrupt(detail) = moved.reason else {
                Issue.record("\(moved.reason)")
                return
            }
            #expect(detail.contains("'setting' is missing"))
        }
    }
}
