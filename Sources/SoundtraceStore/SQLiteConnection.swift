import CSQLite

/// One open SQLite connection: the only code in the module that holds a `sqlite3*`.
///
/// Not thread-safe by itself beyond what SQLite's serialized mode gives: a multi-statement
/// transaction must not interleave with another caller's, so the store owning it is used from one
/// owner at a time.
final class SQLiteConnection {
    private var handle: OpaquePointer?

    private init(handle: OpaquePointer) {
        self.handle = handle
    }

    deinit { close() }

    /// Opens (and creates if missing) the database file read-write.
    static func open(path: String) throws(SQLiteCause) -> SQLiteConnection {
        var raw: OpaquePointer?
        // FULLMUTEX: serialized mode costs little and keeps SQLite's own state safe whatever thread
        // the owning actor runs on. EXRESCODE: extended codes tell SQLITE_IOERR_WRITE from _FSYNC.
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_EXRESCODE
        let rc = sqlite3_open_v2(path, &raw, flags, nil)
        guard rc == SQLITE_OK, let opened = raw else {
            let cause = SQLiteCause(
                code: rc,
                message: raw.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc)),
                systemErrno: raw.map { sqlite3_system_errno($0) } ?? 0)
            sqlite3_close_v2(raw)
            throw cause
        }
        return SQLiteConnection(handle: opened)
    }

    /// Closes the connection; later calls fail with `SQLITE_MISUSE`. Safe to call twice.
    func close() {
        guard let open = handle else { return }
        // close_v2 defers the close until every statement is finalized instead of failing with BUSY.
        sqlite3_close_v2(open)
        handle = nil
    }

    /// Closes without the checkpoint SQLite normally runs on close, leaving the -wal file as found.
    func closeLeavingFilesUntouched() {
        if let open = handle { _ = soundtrace_sqlite_disable_checkpoint_on_close(open) }
        close()
    }

    /// The cause of the most recent failure on this connection, with `code` as the step/prepare result.
    func cause(_ code: Int32) -> SQLiteCause {
        guard let open = handle else {
            return SQLiteCause(code: SQLITE_MISUSE, message: "the connection is closed")
        }
        return SQLiteCause(code: code, message: String(cString: sqlite3_errmsg(open)), systemErrno: sqlite3_system_errno(open))
    }

    /// Runs one or more SQL statements that return no rows (DDL, pragmas, transaction control).
    func execute(_ sql: String) throws(SQLiteCause) {
        guard let open = handle else { throw cause(SQLITE_MISUSE) }
        let rc = sqlite3_exec(open, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw cause(rc) }
    }

    /// Compiles one statement.
    func prepare(_ sql: String) throws(SQLiteCause) -> SQLiteStatement {
        guard let open = handle else { throw cause(SQLITE_MISUSE) }
        var raw: OpaquePointer?
        let rc = sqlite3_prepare_v3(open, sql, -1, 0, &raw, nil)
        guard rc == SQLITE_OK, let statement = raw else {
            sqlite3_finalize(raw)
            throw cause(rc == SQLITE_OK ? SQLITE_MISUSE : rc)
        }
        return SQLiteStatement(connection: self, handle: statement)
    }

    /// The first column of the first row of a query, as an integer (for pragmas and counts).
    func integer(_ sql: String) throws(SQLiteCause) -> Int64 {
        let statement = try prepare(sql)
        guard try statement.step() else { throw SQLiteCause(code: SQLITE_ERROR, message: "no row from: \(sql)") }
        return statement.int64(0)
    }

    /// The first column of every row of a query, as text (for pragmas returning lists).
    func texts(_ sql: String) throws(SQLiteCause) -> [String] {
        let statement = try prepare(sql)
        var rows: [String] = []
        while try statement.step() { rows.append(statement.text(0)) }
        return rows
    }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE.
    var changes: Int { handle.map { Int(sqlite3_changes64($0)) } ?? 0 }

    /// Row id of the most recent successful INSERT.
    var lastInsertRowID: Int64 { handle.map { sqlite3_last_insert_rowid($0) } ?? 0 }

    /// True when SQLite opened the file read-only although read-write was asked for.
    var isReadOnly: Bool { handle.map { sqlite3_db_readonly($0, "main") == 1 } ?? true }

    /// How long SQLite retries when another connection holds the lock, before SQLITE_BUSY.
    func setBusyTimeout(milliseconds: Int32) {
        if let open = handle { sqlite3_busy_timeout(open, milliseconds) }
    }

    /// Runs `body` in a transaction, committing on success and rolling back on any failure.
    ///
    /// `immediate` takes the write lock up front, so two writers queue on the busy timeout instead of
    /// one failing with SQLITE_BUSY when it upgrades a read lock mid-transaction.
    func transaction<T>(immediate: Bool, _ body: () throws(SQLiteCause) -> T) throws(SQLiteCause) -> T {
        try execute(immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            rollbackIfNeeded()
            throw error
        }
    }

    /// Rolls back an open transaction; SQLite may already have rolled back after an I/O or full error.
    private func rollbackIfNeeded() {
        guard let open = handle, sqlite3_get_autocommit(open) == 0 else { return }
        _ = sqlite3_exec(open, "ROLLBACK", nil, nil, nil)
    }

    /// Copies committed WAL frames into the database file without waiting for anyone.
    ///
    /// The commit is already durable in the WAL before this runs, so a failure here (busy reader,
    /// full disk) loses nothing: the next write or the autocheckpoint tries again.
    func checkpointPassively() {
        guard let open = handle else { return }
        _ = sqlite3_wal_checkpoint_v2(open, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    }
}
