import SoundtraceStore
import Testing

/// Every error reads as: what failed (with the path), the cause, and what to do.
@Suite struct ErrorDescriptionTests {
    static let path = "/var/lib/soundtrace/history.db"
    static let cause = SQLiteCause(code: 778, message: "disk I/O error", systemErrno: 5)

    static let errors: [(error: HistoryError, mustMention: [String])] = [
        (.invalidPath(path: "", problem: "the path is empty"), ["the path is empty", "set the history path"]),
        (.directoryMissing(path: path, directory: "/var/lib/soundtrace"), [path, "does not exist", "StateDirectory="]),
        (.notADirectory(path: path, directory: "/var/lib"), [path, "not a folder"]),
        (.notAFile(path: path), [path, "not a database file"]),
        (.readOnlyFileSystem(path: path, directory: "/var/lib/soundtrace"), [path, "read-only file system", "remount"]),
        (.permissionDenied(path: path, target: "the folder /var/lib/soundtrace"), [path, "EACCES", "StateDirectory="]),
        (
            .diskFull(path: path, cause: SQLiteCause(code: 13, message: "database or disk is full", systemErrno: 28)),
            [path, "SQLITE_FULL", "No space left on device", "free space"]
        ),
        (.newerSchema(path: path, found: 9, supported: 2), [path, "version 9", "up to version 2", "left untouched"]),
        (.migrationFailed(path: path, version: 2, name: "settings", cause: cause), [path, "version 2", "rolled back", "SQLITE_IOERR"]),
        (.cannotMoveAside(path: path, target: path + ".corrupt-x", errno: 13), [path, "Permission denied", "move the file away by hand"]),
        (.busy(path: path, cause: SQLiteCause(code: 5, message: "database is locked")), [path, "SQLITE_BUSY", "only one soundtraced"]),
        (
            .corrupt(path: path, cause: SQLiteCause(code: 11, message: "database disk image is malformed")),
            [path, "SQLITE_CORRUPT", "moved aside"]
        ),
        (.database(path: path, operation: "list events", cause: cause), [path, "list events", "errno 5", "dmesg"]),
        (.invalidInput(field: "sessionId", problem: "must be 1–64 characters"), ["sessionId", "1–64"]),
        (.notFound(eventId: 7), ["id 7", "list the history"]),
        (.closed(path: path), [path, "closed"])
    ]

    @Test(arguments: errors.indices)
    func descriptionNamesWhatFailedTheCauseAndTheFix(_ index: Int) {
        let (error, phrases) = Self.errors[index]
        for phrase in phrases {
            #expect(error.description.contains(phrase), "\(error.description) lacks \"\(phrase)\"")
        }
    }
}
