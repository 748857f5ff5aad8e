/// Brings a database of ours up to `Schema.currentVersion`, one migration per transaction.
enum Migrator {
    /// A migration that failed, and why; the transaction has been rolled back.
    struct Failure: Error {
        let migration: Migration
        let cause: SQLiteCause
    }

    /// Applies every migration newer than the database's version; returns the version found first.
    static func migrate(_ connection: SQLiteConnection) throws(Failure) -> Int32 {
        var found: Int32?
        for migration in Schema.migrations {
            do throws(SQLiteCause) {
                let before = try connection.transaction(immediate: true) { () throws(SQLiteCause) -> Int32 in
                    // Re-read inside the write lock: another process may have migrated since we looked.
                    let version = Int32(truncatingIfNeeded: try connection.integer("PRAGMA user_version"))
                    guard version < migration.version else { return version }
                    try connection.execute(migration.sql)
                    // Both pragmas write page 1 inside this transaction, so they commit (or roll back)
                    // together with the DDL: a crash leaves either the old or the new version, never half.
                    try connection.execute("PRAGMA user_version = \(migration.version)")
                    try connection.execute("PRAGMA application_id = \(Schema.applicationID)")
                    return version
                }
                if found == nil { found = before }
            } catch {
                throw Failure(migration: migration, cause: error)
            }
        }
        return found ?? Schema.currentVersion
    }
}
