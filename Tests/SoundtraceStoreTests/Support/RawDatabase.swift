import CSQLite
import Foundation

/// A plain SQLite connection that bypasses HistoryStore, for building fixtures (old schema versions,
/// foreign databases) and for checking files independently of the code under test.
final class RawDatabase {
    private var handle: OpaquePointer?

    init(_ path: String) throws {
        var raw: OpaquePointer?
        let rc = sqlite3_open_v2(path, &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_EXRESCODE, nil)
        guard rc == SQLITE_OK, let opened = raw else {
            sqlite3_close(raw)
            throw TestFailure("cannot open \(path): \(String(cString: sqlite3_errstr(rc)))")
        }
        handle = opened
        sqlite3_busy_timeout(opened, 5000)
    }

    deinit { close() }

    func close() {
        if let open = handle { sqlite3_close_v2(open) }
        handle = nil
    }

    /// Runs statements that return no rows; throws with SQLite's extended code on failure.
    func execute(_ sql: String) throws {
        let rc = sqlite3_exec(handle, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw RawError(code: rc, message: String(cString: sqlite3_errmsg(handle))) }
    }

    /// The first column of every row, as text.
    func texts(_ sql: String) throws -> [String] {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK else { throw RawError(code: rc, message: String(cString: sqlite3_errmsg(handle))) }
        defer { sqlite3_finalize(statement) }
        var rows: [String] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return rows }
            guard step == SQLITE_ROW else { throw RawError(code: step, message: String(cString: sqlite3_errmsg(handle))) }
            rows.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
        }
    }

    /// The first column of the first row, as an integer.
    func integer(_ sql: String) throws -> Int64 {
        guard let first = try texts(sql).first, let value = Int64(first) else { throw TestFailure("no integer from \(sql)") }
        return value
    }
}

/// An SQLite failure seen by a RawDatabase.
struct RawError: Error, CustomStringConvertible {
    let code: Int32
    let message: String
    var description: String { "SQLite \(code): \(message)" }
}
