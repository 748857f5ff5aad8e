import CSQLite
import Glibc
import SoundtraceClock

extension HistoryStore {
    /// Opens the history at `path`, creating or upgrading it, and moving a damaged or foreign file aside.
    ///
    /// Refuses (throws) rather than moves aside when the folder is missing or read-only, the disk is
    /// full, or the file was written by a newer soundtrace: in those cases the file is fine and the
    /// fix is outside. `clock` gives unix milliseconds for stored times and moved-aside names.
    public static func open(path: String, clock: any TimeSource = SystemTime())
        throws(HistoryError) -> (store: HistoryStore, report: OpenReport)
    {
        let location = try DatabaseLocation(path: path)
        try location.checkUsable()
        var movedAside: MovedAside?
        switch FileHeaderProbe.inspect(path) {
        case .absent, .empty, .sqlite:
            break
        case let .truncatedHeader(bytes):
            let reason = MovedAside.Reason.corrupt(detail: "truncated to \(bytes) bytes, shorter than the 100-byte SQLite header")
            movedAside = try Quarantine.moveAside(location, reason: reason, now: clock.wallMilliseconds())
        case .notSQLite:
            let reason = MovedAside.Reason.foreign(detail: "not an SQLite database: the file does not start with the SQLite header")
            movedAside = try Quarantine.moveAside(location, reason: reason, now: clock.wallMilliseconds())
        case let .unreadable(code):
            if code == EACCES { throw .permissionDenied(path: path, target: "the file \(path)") }
            throw .database(
                path: path, operation: "read the file's header",
                cause: SQLiteCause(code: SQLITE_CANTOPEN, message: "cannot read the file", systemErrno: code))
        }
        // At most two attempts: if the first finds the file unusable it is moved aside, and the
        // second starts a fresh file, which cannot be unusable unless something else is writing there.
        for _ in 0..<2 {
            switch try attemptOpen(location, clock: clock) {
            case let .opened(store, fresh, upgradedFrom):
                let report = OpenReport(
                    path: path, createdFresh: fresh || movedAside != nil, movedAside: movedAside,
                    upgradedFrom: upgradedFrom, schemaVersion: Schema.currentVersion)
                return (store, report)
            case let .unusable(reason):
                guard movedAside == nil else {
                    throw .database(
                        path: path, operation: "start a fresh history after moving the old file aside",
                        cause: SQLiteCause(code: SQLITE_ERROR, message: "the new file was unusable too: \(reason)"))
                }
                movedAside = try Quarantine.moveAside(location, reason: reason, now: clock.wallMilliseconds())
            }
        }
        throw .database(
            path: path, operation: "open the database",
            cause: SQLiteCause(code: SQLITE_ERROR, message: "the file kept changing while it was opened"))
    }

    /// The result of one attempt to open the file as it is now.
    private enum Attempt {
        case opened(HistoryStore, fresh: Bool, upgradedFrom: Int32?)
        case unusable(MovedAside.Reason)
    }

    private static func attemptOpen(_ location: DatabaseLocation, clock: any TimeSource) throws(HistoryError) -> Attempt {
        let path = location.path
        let connection: SQLiteConnection
        do throws(SQLiteCause) {
            connection = try SQLiteConnection.open(path: path)
        } catch {
            if error.isCorruption { return .unusable(.corrupt(detail: error.description)) }
            throw HistoryError.from(error, path: path, operation: "open the database")
        }
        guard !connection.isReadOnly else {
            connection.close()
            throw .permissionDenied(path: path, target: "the file \(path)")
        }
        connection.setBusyTimeout(milliseconds: HistoryLimits.busyTimeoutMilliseconds)

        let identity: DatabaseIdentity
        do throws(SQLiteCause) {
            identity = try DatabaseIdentity.read(connection)
        } catch {
            return try abandon(connection, error, path: path, operation: "read the database header")
        }
        switch identity.verdict {
        case .empty, .ours:
            break
        case let .newer(version):
            // A downgrade must not destroy history: nothing is written or moved. The ordinary close
            // at most folds a WAL the newer version left into the file, as that version would itself.
            connection.close()
            throw .newerSchema(path: path, found: version, supported: Schema.currentVersion)
        case let .unusable(reason):
            connection.closeLeavingFilesUntouched()
            return .unusable(reason)
        }
        do throws(SQLiteCause) {
            let problems = try connection.texts("PRAGMA quick_check(5)")
            guard problems == ["ok"] else {
                connection.closeLeavingFilesUntouched()
                return .unusable(.corrupt(detail: "quick_check: " + problems.joined(separator: "; ")))
            }
            try configure(connection)
        } catch {
            return try abandon(connection, error, path: path, operation: "check and configure the database")
        }

        let versionFound: Int32
        do throws(Migrator.Failure) {
            versionFound = try Migrator.migrate(connection)
        } catch {
            if error.cause.isCorruption { return try abandon(connection, error.cause, path: path, operation: "upgrade the schema") }
            connection.close()
            let mapped = HistoryError.from(error.cause, path: path, operation: "upgrade the schema")
            if case .database = mapped {
                throw .migrationFailed(path: path, version: error.migration.version, name: error.migration.name, cause: error.cause)
            }
            throw mapped
        }

        do throws(SQLiteCause) {
            let tables = Set(try connection.texts("SELECT name FROM sqlite_schema WHERE type = 'table'"))
            if let missing = Schema.requiredTables.first(where: { !tables.contains($0) }) {
                connection.closeLeavingFilesUntouched()
                return .unusable(.corrupt(detail: "schema version \(Schema.currentVersion) but the table '\(missing)' is missing"))
            }
        } catch {
            return try abandon(connection, error, path: path, operation: "check the schema")
        }

        let fresh = identity.verdict == .empty
        // SQLite syncs the folder when it creates the WAL but not when it creates the main file;
        // without this a power cut could lose the new file's directory entry with everything in it.
        if fresh { location.syncDirectory() }
        let store = HistoryStore(path: path, connection: connection, clock: clock)
        return .opened(store, fresh: fresh, upgradedFrom: fresh || versionFound >= Schema.currentVersion ? nil : versionFound)
    }

    /// Closes the connection after a failure: a damaged file is reported for moving aside, anything
    /// else becomes the error a person can act on.
    private static func abandon(
        _ connection: SQLiteConnection, _ cause: SQLiteCause, path: String,
        operation: String
    ) throws(HistoryError) -> Attempt {
        if cause.isCorruption {
            connection.closeLeavingFilesUntouched()
            return .unusable(.corrupt(detail: cause.description))
        }
        connection.close()
        throw HistoryError.from(cause, path: path, operation: operation)
    }

    /// Durability and housekeeping settings, applied on every open (most pragmas are per connection).
    private static func configure(_ connection: SQLiteConnection) throws(SQLiteCause) {
        // WAL: a commit appends to one file and fsyncs it; readers never block the writer.
        let mode = try connection.texts("PRAGMA journal_mode = WAL")
        guard mode == ["wal"] else {
            throw SQLiteCause(code: SQLITE_ERROR, message: "could not switch to WAL journaling (journal_mode is \(mode.joined()))")
        }
        // FULL: in WAL mode, NORMAL may lose the last commits on power loss; FULL fsyncs the WAL on
        // every commit, so an acknowledged event is on the card.
        try connection.execute("PRAGMA synchronous = FULL")
        try connection.execute("PRAGMA foreign_keys = ON")
        try connection.execute("PRAGMA journal_size_limit = \(HistoryLimits.walSizeLimitBytes)")
    }
}
