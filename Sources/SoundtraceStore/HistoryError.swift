import CSQLite
import Glibc

/// Why a history operation failed. Each description says what failed, the underlying cause and what to do.
public enum HistoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database path itself is unusable (empty, a folder name, too long).
    case invalidPath(path: String, problem: String)
    /// The folder that should hold the database does not exist.
    case directoryMissing(path: String, directory: String)
    /// Something on the way to the database is not a folder.
    case notADirectory(path: String, directory: String)
    /// The database path names a folder or special file rather than a regular file.
    case notAFile(path: String)
    /// The folder or file lives on a file system mounted read-only.
    case readOnlyFileSystem(path: String, directory: String)
    /// This user may not write the folder or the file.
    case permissionDenied(path: String, target: String)
    /// The disk (or the database's size limit) is full; the failed operation wrote nothing.
    case diskFull(path: String, cause: SQLiteCause?)
    /// The database was written by a newer soundtrace; it is left untouched.
    case newerSchema(path: String, found: Int32, supported: Int32)
    /// A schema upgrade failed and was rolled back; the file is still at the previous version.
    case migrationFailed(path: String, version: Int32, name: String, cause: SQLiteCause)
    /// A damaged or foreign database could not be moved aside.
    case cannotMoveAside(path: String, target: String, errno: Int32)
    /// Another process kept the database locked past the busy timeout.
    case busy(path: String, cause: SQLiteCause)
    /// The database turned out to be damaged while in use (on open it is moved aside instead).
    case corrupt(path: String, cause: SQLiteCause)
    /// Any other SQLite or I/O failure.
    case database(path: String, operation: String, cause: SQLiteCause)
    /// Input refused at the store's boundary, before anything was written.
    case invalidInput(field: String, problem: String)
    /// No event has this id.
    case notFound(eventId: Int64)
    /// The store was closed.
    case closed(path: String)

    public var description: String {
        switch self {
        case let .invalidPath(path, problem):
            return
                "cannot use '\(path)' as the history database: \(problem); set the history path to a file inside a writable folder, e.g. /var/lib/soundtrace/history.db"
        case let .directoryMissing(path, directory):
            return
                "cannot open history database \(path): the folder \(directory) does not exist; create it, owned by the soundtrace user (systemd StateDirectory=soundtrace does this), or set the history path to an existing folder"
        case let .notADirectory(path, directory):
            return "cannot open history database \(path): \(directory) is not a folder; set the history path to a file inside a folder"
        case let .notAFile(path):
            return
                "cannot open history database \(path): it is a folder or special file, not a database file; set the history path to a file name inside a writable folder"
        case let .readOnlyFileSystem(path, directory):
            return
                "cannot write history database \(path): the folder \(directory) is on a read-only file system (EROFS); remount it read-write (a card is often remounted read-only after I/O errors: check dmesg), or set the history path to a folder on a writable file system (systemd StateDirectory=soundtrace gives /var/lib/soundtrace)"
        case let .permissionDenied(path, target):
            return
                "cannot write history database \(path): \(target) is not writable by this user (EACCES); make it writable by the soundtrace user (systemd StateDirectory=soundtrace, or chown soundtrace: on the folder)"
        case let .diskFull(path, cause):
            let detail = cause.map { " (\($0))" } ?? ""
            return
                "cannot write history database \(path): the disk is full\(detail); free space on the file system holding \(Self.directory(of: path)); the failed operation stored nothing and earlier history is intact"
        case let .newerSchema(path, found, supported):
            return
                "cannot open history database \(path): it has schema version \(found), but this soundtrace understands up to version \(supported) (was soundtrace downgraded?); install the newer soundtrace again, or move the file aside by hand to start a fresh history; the file was left untouched"
        case let .migrationFailed(path, version, name, cause):
            return
                "cannot upgrade history database \(path) to schema version \(version) (\(name)): \(cause); the upgrade was rolled back and the file is unchanged at version \(version - 1); report this, or move the file aside to start a fresh history"
        case let .cannotMoveAside(path, target, code):
            return
                "history database \(path) is damaged or not ours and could not be moved aside to \(target): \(String(cString: strerror(code))) (errno \(code)); make the folder writable by the soundtrace user, or move the file away by hand"
        case let .busy(path, cause):
            return
                "history database \(path) stayed locked by another process for over \(HistoryLimits.busyTimeoutMilliseconds) ms (\(cause)); make sure only one soundtraced uses it"
        case let .corrupt(path, cause):
            return
                "history database \(path) is damaged (\(cause)); restart soundtraced: on open the damaged file is moved aside (kept, never deleted) and a fresh history started"
        case let .database(path, operation, cause):
            return "history database \(path): could not \(operation): \(cause); check the storage (dmesg shows I/O errors) and free space"
        case let .invalidInput(field, problem):
            return "refused \(field): \(problem)"
        case let .notFound(eventId):
            return "no history event has id \(eventId); list the history to see which ids exist"
        case let .closed(path):
            return "history database \(path) is closed; open it again"
        }
    }

    /// The folder part of a path, for messages.
    static func directory(of path: String) -> String {
        DatabaseLocation.split(path).directory
    }

    /// Turns an SQLite failure during `operation` into the error a person can act on.
    static func from(_ cause: SQLiteCause, path: String, operation: String) -> HistoryError {
        let directory = directory(of: path)
        if cause.isDiskFull { return .diskFull(path: path, cause: cause) }
        if cause.systemErrno == EROFS { return .readOnlyFileSystem(path: path, directory: directory) }
        if cause.primaryCode == SQLITE_READONLY || cause.primaryCode == SQLITE_PERM || cause.systemErrno == EACCES {
            return .permissionDenied(path: path, target: "\(path) or its folder \(directory)")
        }
        if cause.primaryCode == SQLITE_BUSY || cause.primaryCode == SQLITE_LOCKED { return .busy(path: path, cause: cause) }
        if cause.isCorruption { return .corrupt(path: path, cause: cause) }
        if cause.primaryCode == SQLITE_CANTOPEN, cause.systemErrno == ENOENT {
            return .directoryMissing(path: path, directory: directory)
        }
        return .database(path: path, operation: operation, cause: cause)
    }
}
