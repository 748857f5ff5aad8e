import Glibc
import SoundtraceClock

/// Moves a damaged or foreign database out of the way under a timestamped name. Never deletes.
enum Quarantine {
    /// Renames the database and its companions to `<path>.<label>-<UTC time>` (plus `-wal` etc.).
    ///
    /// The companions keep SQLite's naming relative to the new main name, so opening the moved file
    /// with the sqlite3 shell still finds its WAL for forensic recovery.
    static func moveAside(_ location: DatabaseLocation, reason: MovedAside.Reason, now: Int64) throws(HistoryError) -> MovedAside {
        let base = "\(location.path).\(reason.label)-\(UTCTime.compact(unixMilliseconds: now))"
        let target = freeName(startingWith: base)
        var moved: [String] = []
        // Companions first, the main file last: if power fails in between, the main file is still in
        // place with no WAL beside it. The reverse order could leave an old WAL next to a fresh
        // database, and SQLite would replay the old database's pages into the new one.
        for suffix in DatabaseLocation.companionSuffixes {
            let source = location.path + suffix
            guard DatabaseLocation.exists(source) else { continue }
            guard rename(source, target + suffix) == 0 else {
                throw .cannotMoveAside(path: location.path, target: target + suffix, errno: errno)
            }
            moved.append(target + suffix)
        }
        if DatabaseLocation.exists(location.path) {
            guard rename(location.path, target) == 0 else {
                throw .cannotMoveAside(path: location.path, target: target, errno: errno)
            }
        }
        location.syncDirectory()
        return MovedAside(reason: reason, originalPath: location.path, movedTo: target, companions: moved)
    }

    /// `base`, or `base-2`, `base-3`, … when an earlier move in the same second took the name.
    private static func freeName(startingWith base: String) -> String {
        var candidate = base
        var number = 2
        while ([""] + DatabaseLocation.companionSuffixes).contains(where: { DatabaseLocation.exists(candidate + $0) }) {
            candidate = "\(base)-\(number)"
            number += 1
        }
        return candidate
    }
}
