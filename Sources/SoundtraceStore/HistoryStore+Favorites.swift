extension HistoryStore {
    /// Favorites (`on`) or unfavorites a catalog reference. Returns true when that changed anything;
    /// favoriting again keeps the original time. The reference need not appear in the history.
    @discardableResult
    public func setFavorite(referenceId: String, _ on: Bool) throws(HistoryError) -> Bool {
        try InputValidation.referenceId(referenceId)
        let now = clock.wallMilliseconds()
        return try write(on ? "favorite \(referenceId)" : "unfavorite \(referenceId)") { connection throws(SQLiteCause) -> Bool in
            let statement = try connection.prepare(
                on
                    ? "INSERT INTO favorite (reference_id, favorited_at) VALUES (?1, ?2) ON CONFLICT (reference_id) DO NOTHING"
                    : "DELETE FROM favorite WHERE reference_id = ?1")
            try statement.bind(1, referenceId)
            if on { try statement.bind(2, now) }
            try statement.run()
            return connection.changes == 1
        }
    }

    /// Every favorite, most recently favorited first. (Bounded in practice by the catalog's size.)
    public func favorites() throws(HistoryError) -> [Favorite] {
        try read("list favorites") { connection throws(SQLiteCause) -> [Favorite] in
            let query = try connection.prepare("SELECT reference_id, favorited_at FROM favorite ORDER BY favorited_at DESC, reference_id")
            var result: [Favorite] = []
            while try query.step() { result.append(Favorite(referenceId: query.text(0), favoritedAt: query.int64(1))) }
            return result
        }
    }

    /// True when the reference is a favorite.
    public func isFavorite(referenceId: String) throws(HistoryError) -> Bool {
        try InputValidation.referenceId(referenceId)
        return try read("look up favorite \(referenceId)") { connection throws(SQLiteCause) -> Bool in
            let query = try connection.prepare("SELECT 1 FROM favorite WHERE reference_id = ?1")
            try query.bind(1, referenceId)
            return try query.step()
        }
    }
}
