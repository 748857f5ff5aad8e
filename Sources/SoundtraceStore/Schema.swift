/// The database's identity and its forward-only list of migrations. Never edit a shipped migration:
/// add a new one, so that every database ever written reaches the current schema the same way.
enum Schema {
    /// `PRAGMA application_id`: "SNDT" in ASCII, marking the file as a Soundtrace history database.
    static let applicationID: Int32 = 0x534E_4454

    /// The schema version this code writes and understands (`PRAGMA user_version`).
    static var currentVersion: Int32 { migrations.last?.version ?? 0 }

    /// Tables the current schema must have; a database of ours lacking one is treated as damaged.
    static let requiredTables = ["event", "event_metadata", "favorite", "setting"]

    /// Every migration in order; `version` is the `user_version` after it runs.
    static let migrations: [Migration] = [
        Migration(
            version: 1, name: "events and favorites",
            sql: """
                -- AUTOINCREMENT: a deleted event's id is never handed out again, so "delete 7" typed
                -- from an old listing can never hit a newer event.
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
                """),
        Migration(
            version: 2, name: "settings and favorites by time",
            sql: """
                CREATE TABLE setting (
                    key TEXT NOT NULL PRIMARY KEY CHECK (length(key) BETWEEN 1 AND 64),
                    value TEXT NOT NULL,
                    updated_at INTEGER NOT NULL
                ) STRICT, WITHOUT ROWID;
                CREATE INDEX favorite_by_time ON favorite (favorited_at DESC, reference_id);
                """)
    ]
}

/// One step of the schema: the DDL that takes a database from `version - 1` to `version`.
struct Migration: Sendable {
    let version: Int32
    let name: String
    let sql: String
}
