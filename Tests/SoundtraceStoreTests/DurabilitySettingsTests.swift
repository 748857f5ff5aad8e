import Foundation
import Testing

@testable import SoundtraceStore

/// The pragmas behind "an acknowledged event survives power loss" and "the WAL stays small".
@Suite struct DurabilitySettingsTests {
    @Test func opensInWALWithFullSynchronousAndABusyTimeout() throws {
        try withTemporaryDirectory { directory in
            let store = try Fixture.open(directory + "/history.db")
            #expect(try store.pragma("journal_mode") == ["wal"])
            #expect(try store.pragma("synchronous") == ["2"])  // 2 = FULL
            #expect(try store.pragma("busy_timeout") == ["\(HistoryLimits.busyTimeoutMilliseconds)"])
            #expect(try store.pragma("foreign_keys") == ["1"])
            #expect(try store.pragma("application_id") == ["\(0x534E_4454)"])
            #expect(try store.pragma("user_version") == ["\(Schema.currentVersion)"])
        }
    }

    @Test func checkpointsAfterWritesSoTheWALStaysSmall() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/history.db"
            let store = try Fixture.open(path)
            // 300 events × ~3 pages would grow a WAL without checkpoints to about 4 MB (autocheckpoint
            // waits for 1000 pages); checkpointing after each write keeps it to one transaction's worth.
            for number in 1...300 { _ = try store.recordMatch(Fixture.recognition(session: "wal-\(number)")) }
            let walSize = try #require(fileSize(path + "-wal"))
            #expect(walSize < 256 * 1024, "WAL is \(walSize) bytes")
            store.close()
            // The last connection to close checkpoints and removes the WAL.
            #expect(fileSize(path + "-wal") == nil)
            #expect(try Fixture.open(path).eventCount() == 300)
        }
    }

    @Test func integrityCheckOfAHealthyStoreIsClean() throws {
        try withTemporaryDirectory { directory in
            let store = try Fixture.open(directory + "/history.db")
            _ = try store.recordMatch(Fixture.recognition(session: "healthy"))
            #expect(try store.integrityProblems() == [])
        }
    }
}
