/// The DDL of every earlier schema version exactly as it shipped, frozen here so that migration
/// tests build real old databases instead of trusting the code under test to describe its past.
/// Index i holds version i + 1. When a new version ships, append the previous one here.
enum FrozenSchemas {
    static let applicationID: Int32 = 0x534E_4454

    static let versions: [String] = [
        // Version 1: events and favorites.
        """
        CREATE TABLE event (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL UNIQUE CHECK (length(session_id) BETWEEN 1 AND 64),
            reference_id TEXT NOT NULL CHECK (length(reference_id) BETWEEN 3 AND 64),
            matched_at INTEGER NOT NULL,
            offset_ms INTEGER NOT NULL,
            score INTEGER NOT NULL CHECK (score >= 0),
            title TEXT NOT NULL,
            creator TEXT NOT NULL,
            license TEXT NOT NULL,
            source_file TEXT NOT NULL,
            catalog_hash TEXT NOT NULL CHECK (length(catalog_hash) = 64)
        ) STRICT;
        CREATE TABLE event_metadata (
            event_id INTEGER NOT NULL REFERENCES event (id) ON DELETE CASCADE,
            position INTEGER NOT NULL CHECK (position >= 0),
            key TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (event_id, position)
        ) STRICT, WITHOUT ROWID;
        CREATE TABLE favorite (
            reference_id TEXT NOT NULL PRIMARY KEY,
            favorited_at INTEGER NOT NULL
        ) STRICT, WITHOUT ROWID;
        """
    ]

    /// Builds a database at `version` (0 = an empty SQLite file) the way that version's code would have.
    static func createDatabase(at path: String, version: Int) throws {
        let database = try RawDatabase(path)
        defer { database.close() }
        try database.execute("PRAGMA journal_mode = WAL")
        guard version > 0 else { return }
        try database.execute("BEGIN")
        for ddl in versions.prefix(version) { try database.execute(ddl) }
        try database.execute("PRAGMA user_version = \(version); PRAGMA application_id = \(applicationID); COMMIT")
    }
}
