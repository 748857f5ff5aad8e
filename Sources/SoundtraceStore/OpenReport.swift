/// What happened when the store opened its file, for the daemon to log and announce.
public struct OpenReport: Sendable, Equatable, CustomStringConvertible {
    /// The database path.
    public let path: String
    /// True when this open started an empty history (no file, an empty file, or after moving one aside).
    public let createdFresh: Bool
    /// The damaged or foreign file that was moved aside, if any.
    public let movedAside: MovedAside?
    /// The schema version found before upgrading, when migrations ran on an existing history.
    public let upgradedFrom: Int32?
    /// The schema version now in the file.
    public let schemaVersion: Int32

    /// A report with the given fields.
    public init(path: String, createdFresh: Bool, movedAside: MovedAside?, upgradedFrom: Int32?, schemaVersion: Int32) {
        self.path = path
        self.createdFresh = createdFresh
        self.movedAside = movedAside
        self.upgradedFrom = upgradedFrom
        self.schemaVersion = schemaVersion
    }

    public var description: String {
        if let moved = movedAside {
            return "history was reset: \(moved.reason); the old file is at \(moved.movedTo); a fresh history was started at \(path)"
        }
        if createdFresh { return "started a new history at \(path)" }
        if let from = upgradedFrom { return "opened history \(path) (upgraded from schema version \(from) to \(schemaVersion))" }
        return "opened history \(path)"
    }
}

/// A file that could not be used as our history, and where it went. Nothing is ever deleted.
public struct MovedAside: Sendable, Equatable {
    /// Why the file was not used.
    public enum Reason: Sendable, Equatable, CustomStringConvertible {
        /// Ours (or SQLite) but damaged: failed the integrity check, truncated, or unreadable as a database.
        case corrupt(detail: String)
        /// Not ours: another application's SQLite database, or not SQLite at all.
        case foreign(detail: String)

        /// The word used in the moved file's name: "corrupt" or "foreign".
        public var label: String {
            switch self {
            case .corrupt: return "corrupt"
            case .foreign: return "foreign"
            }
        }

        public var description: String {
            switch self {
            case let .corrupt(detail): return "the history file was damaged (\(detail))"
            case let .foreign(detail): return "the file was not a Soundtrace history (\(detail))"
            }
        }
    }

    /// Why it was moved.
    public let reason: Reason
    /// The database path it was found at.
    public let originalPath: String
    /// Where the main file is now, e.g. `history.db.corrupt-20261129T140501Z`.
    public let movedTo: String
    /// The -journal/-wal/-shm files moved with it, at `movedTo` plus their usual suffix.
    public let companions: [String]

    /// A record of a move with the given fields.
    public init(reason: Reason, originalPath: String, movedTo: String, companions: [String]) {
        self.reason = reason
        self.originalPath = originalPath
        self.movedTo = movedTo
        self.companions = companions
    }
}
