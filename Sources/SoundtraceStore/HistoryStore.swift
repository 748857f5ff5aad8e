import CSQLite

/// Placeholder: the SQLite history store (issue 4) is being written.
public enum HistoryStorePlaceholder {
    public static let sqliteVersion = String(cString: sqlite3_libversion())
}
