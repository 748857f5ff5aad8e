import Foundation
import Testing

@testable import SoundtraceStore

/// A full disk is a clear error; nothing acknowledged is lost, and writing works again once space is freed.
@Suite struct DiskFullTests {
    @Test(.enabled(if: Mounts.available, "needs root with CAP_SYS_ADMIN to mount a tiny tmpfs"))
    func openingOnAFullDiskIsAClearErrorNotAReset() throws {
        try withTemporaryDirectory { directory in
            let mountPoint = directory + "/tiny"
            try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
            // 64 KiB cannot hold a new database, its WAL and its 32 KiB shared-memory index.
            try Mounts.withTmpfs(at: mountPoint, kibibytes: 64) { () throws in
                let path = mountPoint + "/history.db"
                do throws(HistoryError) {
                    _ = try HistoryStore.open(path: path, clock: Fixture.fixedClock)
                    Issue.record("opened a database in 64 KiB")
                } catch {
                    guard case .diskFull(path, _) = error else {
                        Issue.record("unexpected \(error)")
                        return
                    }
                    #expect(error.description.contains("free space"))
                }
                #expect(try directoryListing(mountPoint).allSatisfy { !$0.contains("corrupt") && !$0.contains("foreign") })
            }
        }
    }

    @Test(.enabled(if: Mounts.available, "needs root with CAP_SYS_ADMIN to mount a tiny tmpfs"))
    func writingUntilTheDiskIsFullLosesNothingAcknowledged() throws {
        try withTemporaryDirectory { directory in
            let mountPoint = directory + "/small"
            try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
            try Mounts.withTmpfs(at: mountPoint, kibibytes: 512) {
                let path = mountPoint + "/history.db"
                let store = try Fixture.open(path)
                // Ballast takes the rest of the space, as other files on the card would.
                let ballast = mountPoint + "/ballast"
                _ = FileManager.default.createFile(atPath: ballast, contents: nil)
                let handle = try #require(FileHandle(forWritingAtPath: ballast))
                while (try? handle.write(contentsOf: Data(count: 4096))) != nil {}
                try handle.close()

                var acknowledged: [String] = []
                var failure: HistoryError?
                for number in 1...2000 {
                    let session = "full-\(number)"
                    let snapshot = Fixture.snapshot(metadata: [.init(key: "padding", value: String(repeating: "p", count: 500))])
                    do throws(HistoryError) {
                        _ = try store.recordMatch(Fixture.recognition(session: session, snapshot: snapshot))
                        acknowledged.append(session)
                    } catch {
                        failure = error
                        break
                    }
                }
                let error = try #require(failure, "2000 events fit on a full disk")
                guard case .diskFull(path, _) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(error.description.contains("free space"))
                // The store is still readable and holds everything it acknowledged.
                for session in acknowledged { #expect(try store.event(sessionId: session) != nil) }

                // Emptied before it is removed: a child process another suite forks holds this
                // test's descriptors until its exec, and a removed file's space stays taken while
                // any descriptor is open; truncation frees it at once (a ThreadSanitizer run in CI
                // met that moment and the next write still found the disk full).
                #expect(truncate(ballast, 0) == 0)
                try FileManager.default.removeItem(atPath: ballast)
                #expect(
                    try store.recordMatch(Fixture.recognition(session: "after-space-freed"))
                        == .recorded(eventId: Int64(acknowledged.count + 1)))
                store.close()
                let reopened = try HistoryStore.open(path: path, clock: Fixture.fixedClock)
                #expect(reopened.report.movedAside == nil)
                #expect(try reopened.store.eventCount() == acknowledged.count + 1)
                #expect(try reopened.store.integrityProblems() == [])
                reopened.store.close()
            }
        }
    }

    /// The same error path without a mount: SQLite's page limit makes it report SQLITE_FULL exactly
    /// as a full card would, so this runs even where mounting is not allowed.
    @Test func hittingTheDatabaseSizeLimitIsReportedAsDiskFull() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/history.db"
            let store = try Fixture.open(path)
            let pages = Int(try #require(store.pragma("page_count").first.flatMap { Int($0) }))
            _ = try store.pragma("max_page_count = \(pages + 2)")
            var recorded = 0
            var failure: HistoryError?
            for number in 1...500 {
                let snapshot = Fixture.snapshot(metadata: [.init(key: "padding", value: String(repeating: "p", count: 500))])
                do throws(HistoryError) {
                    _ = try store.recordMatch(Fixture.recognition(session: "limit-\(number)", snapshot: snapshot))
                    recorded += 1
                } catch {
                    failure = error
                    break
                }
            }
            let error = try #require(failure)
            guard case let .diskFull(reported, cause) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(reported == path)
            #expect(cause?.primaryCode == 13)  // SQLITE_FULL
            #expect(try store.eventCount() == recorded)
        }
    }
}
