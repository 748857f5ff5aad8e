/// Whose database a file is and at which schema version, read from its header pragmas.
struct DatabaseIdentity {
    /// What the store should do with the file.
    enum Verdict: Equatable {
        /// An empty SQLite database (new or zero-byte file): nothing to preserve, start the schema.
        case empty
        /// Our history at a version this code can open (possibly after migrations).
        case ours(version: Int32)
        /// Our history written by a newer soundtrace: refuse to open, never move aside.
        case newer(version: Int32)
        /// Not usable as our history: move aside.
        case unusable(MovedAside.Reason)
    }

    let applicationID: Int32
    let userVersion: Int32
    let schemaObjects: Int64

    static func read(_ connection: SQLiteConnection) throws(SQLiteCause) -> DatabaseIdentity {
        DatabaseIdentity(
            applicationID: Int32(truncatingIfNeeded: try connection.integer("PRAGMA application_id")),
            userVersion: Int32(truncatingIfNeeded: try connection.integer("PRAGMA user_version")),
            schemaObjects: try connection.integer("SELECT count(*) FROM sqlite_schema"))
    }

    var verdict: Verdict {
        if applicationID == Schema.applicationID {
            if userVersion > Schema.currentVersion { return .newer(version: userVersion) }
            if userVersion >= 1 { return .ours(version: userVersion) }
            // Our migrations set the id and the version in one transaction, so one without the other is damage.
            if schemaObjects == 0 { return .empty }
            return .unusable(.corrupt(detail: "Soundtrace application id but schema version \(userVersion)"))
        }
        if applicationID == 0 && userVersion == 0 && schemaObjects == 0 { return .empty }
        return .unusable(
            .foreign(
                detail:
                    "an SQLite database of another application (application_id \(Self.hex(applicationID)), user_version \(userVersion), \(schemaObjects) schema objects)"
            ))
    }

    private static func hex(_ value: Int32) -> String {
        "0x" + String(UInt32(bitPattern: value), radix: 16, uppercase: true)
    }
}
