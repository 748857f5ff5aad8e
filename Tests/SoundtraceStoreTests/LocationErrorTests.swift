import Foundation
import SoundtraceStore
import SoundtraceTestSupport
import Testing

/// Unusable locations are clear errors naming the path and the fix, and never move anything aside.
@Suite struct LocationErrorTests {
    @Test func aMissingFolderNamesTheFolderAndTheFix() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/not-there/history.db"
            do throws(HistoryError) {
                _ = try HistoryStore.open(path: path, clock: Fixture.fixedClock)
                Issue.record("opened in a missing folder")
            } catch {
                #expect(error == .directoryMissing(path: path, directory: directory + "/not-there"))
                #expect(error.description.contains(directory + "/not-there"))
                #expect(error.description.contains("StateDirectory="))
            }
            #expect(!FileManager.default.fileExists(atPath: directory + "/not-there"))
        }
    }

    @Test func aFolderOrAFileInTheWayIsRefused() throws {
        try withTemporaryDirectory { directory in
            #expect(throws: HistoryError.notAFile(path: directory)) { try HistoryStore.open(path: directory, clock: Fixture.fixedClock) }
            let file = directory + "/plain-file"
            _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
            #expect(throws: HistoryError.notADirectory(path: file + "/history.db", directory: file)) {
                try HistoryStore.open(path: file + "/history.db", clock: Fixture.fixedClock)
            }
            #expect(throws: HistoryError.self) { try HistoryStore.open(path: "", clock: Fixture.fixedClock) }
            #expect(throws: HistoryError.self) { try HistoryStore.open(path: directory + "/", clock: Fixture.fixedClock) }
        }
    }

    /// Root ignores permission bits, so "read-only" here is a read-only mount (EROFS). Without the
    /// right to mount (an unprivileged container) this test cannot create one and is disabled.
    @Test(.enabled(if: Mounts.available, "needs root with CAP_SYS_ADMIN to mount a read-only tmpfs"))
    func aReadOnlyFileSystemIsAClearErrorAndLeavesTheHistoryAlone() throws {
        try withTemporaryDirectory { directory in
            let mountPoint = directory + "/state"
            try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
            try Mounts.withTmpfs(at: mountPoint, kibibytes: 1024) {
                let path = mountPoint + "/history.db"
                let store = try Fixture.open(path)
                _ = try store.recordMatch(Fixture.recognition(session: "before-ro"))
                store.close()
                let before = try fileBytes(path)
                try Mounts.remountReadOnly(mountPoint)

                for target in [path, mountPoint + "/new-history.db"] {
                    do throws(HistoryError) {
                        _ = try HistoryStore.open(path: target, clock: Fixture.fixedClock)
                        Issue.record("opened \(target) on a read-only file system")
                    } catch {
                        #expect(error == .readOnlyFileSystem(path: target, directory: mountPoint))
                        #expect(error.description.contains(mountPoint))
                        #expect(error.description.contains("read-only"))
                    }
                }
                #expect(try fileBytes(path) == before)
                #expect(try directoryListing(mountPoint) == ["history.db"])
            }
        }
    }

    /// Root may write anywhere, so the service user's "permission denied" is checked by running the
    /// writer as `nobody` through setpriv (util-linux). Needs root to switch users.
    @Test(
        .enabled(
            if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
            "needs root and /usr/bin/setpriv to run the writer as an unprivileged user"))
    func aFolderTheServiceUserCannotWriteIsAClearError() throws {
        let executable = try WriterProcess.executable()
        try withTemporaryDirectory { directory in
            // Traversable but not writable for others: exactly /var/lib/soundtrace owned by root.
            let state = directory + "/state"
            try FileManager.default.createDirectory(
                atPath: state, withIntermediateDirectories: false,
                attributes: [.posixPermissions: 0o755])
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory)
            let path = state + "/history.db"
            let stderrPath = directory + "/stderr.txt"
            // A copy in the world-readable temporary folder: the checkout itself may live where
            // nobody cannot go (e.g. under /root on a CI machine).
            let copy = directory + "/soundtrace-store-writer"
            try BuiltProducts.placeExecutable(executable, at: copy)
            let writer = try WriterProcess(
                command: [
                    "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                    copy, path
                ], stderrPath: stderrPath)
            let status = writer.waitForExit()
            let message = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            #expect(status == 1, "exit status \(status): \(message)")
            #expect(writer.lines.isEmpty)
            #expect(message.contains("the folder \(state) is not writable by this user (EACCES)"), "\(message)")
            #expect(message.contains("StateDirectory="))
            #expect(try directoryListing(state).isEmpty)
        }
    }
}
