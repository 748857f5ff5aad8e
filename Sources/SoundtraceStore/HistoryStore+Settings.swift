extension HistoryStore {
    /// The stored value of an app setting, or nil when it was never set.
    public func setting(_ key: SettingKey) throws(HistoryError) -> String? {
        try read("read setting \(key.name)") { connection throws(SQLiteCause) -> String? in
            let query = try connection.prepare("SELECT value FROM setting WHERE key = ?1")
            try query.bind(1, key.name)
            return try query.step() ? query.text(0) : nil
        }
    }

    /// Stores an app setting's value (at most 1000 characters, no control characters).
    public func setSetting(_ key: SettingKey, _ value: String) throws(HistoryError) {
        try InputValidation.settingValue(key, value)
        let now = clock.wallMilliseconds()
        try write("save setting \(key.name)") { connection throws(SQLiteCause) in
            let statement = try connection.prepare(
                """
                INSERT INTO setting (key, value, updated_at) VALUES (?1, ?2, ?3)
                ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
                """)
            try statement.bind(1, key.name)
            try statement.bind(2, value)
            try statement.bind(3, now)
            try statement.run()
        }
    }

    /// Forgets an app setting, so that its default applies again.
    public func removeSetting(_ key: SettingKey) throws(HistoryError) {
        try write("remove setting \(key.name)") { connection throws(SQLiteCause) in
            let statement = try connection.prepare("DELETE FROM setting WHERE key = ?1")
            try statement.bind(1, key.name)
            try statement.run()
        }
    }

    /// Whether calm mode (steady LEDs, no flashing) is on; off unless set.
    public func isCalmModeOn() throws(HistoryError) -> Bool {
        try setting(.calmMode) == "on"
    }

    /// Turns calm mode on or off.
    public func setCalmMode(_ on: Bool) throws(HistoryError) {
        try setSetting(.calmMode, on ? "on" : "off")
    }
}
