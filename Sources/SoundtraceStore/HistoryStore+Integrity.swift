extension HistoryStore {
    /// Runs SQLite's full `PRAGMA integrity_check`; returns its findings, empty when the file is sound.
    /// Slower than the quick check done on open (it also verifies indexes); for diagnostics.
    public func integrityProblems() throws(HistoryError) -> [String] {
        let rows = try read("check integrity") { connection throws(SQLiteCause) -> [String] in
            try connection.texts("PRAGMA integrity_check(20)")
        }
        return rows == ["ok"] ? [] : rows
    }
}

extension HistoryStore {
    /// Runs a pragma on the store's own connection and returns its rows as text. Internal: tests use
    /// it to read per-connection settings (journal mode, synchronous) and to set `max_page_count`.
    func pragma(_ statement: String) throws(HistoryError) -> [String] {
        try read("run PRAGMA \(statement)") { connection throws(SQLiteCause) -> [String] in
            try connection.texts("PRAGMA \(statement)")
        }
    }
}
