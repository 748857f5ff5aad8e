import CSQLite

/// One compiled SQL statement, finalized when released.
final class SQLiteStatement {
    private let connection: SQLiteConnection
    private let handle: OpaquePointer

    init(connection: SQLiteConnection, handle: OpaquePointer) {
        self.connection = connection
        self.handle = handle
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds an integer to the 1-based parameter `index`.
    func bind(_ index: Int32, _ value: Int64) throws(SQLiteCause) {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    /// Binds text to the 1-based parameter `index`, copied by SQLite.
    func bind(_ index: Int32, _ value: String) throws(SQLiteCause) {
        var text = value
        let rc = text.withUTF8 { bytes -> Int32 in
            // An empty buffer may have no base address, and a null pointer would bind NULL, not "".
            guard let base = bytes.baseAddress else {
                return sqlite3_bind_text(handle, index, "", 0, soundtrace_sqlite_transient())
            }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text(handle, index, $0, Int32(bytes.count), soundtrace_sqlite_transient())
            }
        }
        try check(rc)
    }

    /// Advances to the next row: true when a row is available, false when the statement is done.
    func step() throws(SQLiteCause) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.cause(rc)
        }
    }

    /// Runs a statement that returns no rows.
    func run() throws(SQLiteCause) {
        while try step() {}
    }

    /// Makes the statement ready to run again with new bindings.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Column `index` (0-based) of the current row as an integer.
    func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// Column `index` (0-based) of the current row as text; NULL reads as "".
    func text(_ index: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    private func check(_ rc: Int32) throws(SQLiteCause) {
        guard rc == SQLITE_OK else { throw connection.cause(rc) }
    }
}
