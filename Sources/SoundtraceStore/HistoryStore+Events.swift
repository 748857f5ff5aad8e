import CSQLite

extension HistoryStore {
    /// Stores a successful recognition: one event per session, ever. A second match for the same
    /// session stores nothing and returns the first event's id. Durable when it returns.
    public func recordMatch(_ match: NewRecognition) throws(HistoryError) -> RecordOutcome {
        try InputValidation.recognition(match)
        return try write("record the match of session \(match.sessionId)") { connection throws(SQLiteCause) -> RecordOutcome in
            // Look first so that a repeat writes nothing at all (an ignored INSERT would still bump
            // the AUTOINCREMENT counter and cost an fsync).
            if let existing = try Self.eventId(connection, sessionId: match.sessionId) {
                return .alreadyRecorded(eventId: existing)
            }
            // The UNIQUE constraint on session_id is what guarantees one event per session, for
            // writers on any connection or process; DO NOTHING covers only that conflict, so any
            // other constraint violation still fails loudly.
            let insert = try connection.prepare(
                """
                INSERT INTO event (session_id, reference_id, matched_at, offset_ms, score,
                                   title, creator, license, source_file, catalog_hash)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                ON CONFLICT (session_id) DO NOTHING
                """)
            let snapshot = match.snapshot
            try insert.bind(1, match.sessionId)
            try insert.bind(2, match.referenceId)
            try insert.bind(3, match.matchedAt)
            try insert.bind(4, match.offsetMilliseconds)
            try insert.bind(5, Int64(match.score))
            try insert.bind(6, snapshot.title)
            try insert.bind(7, snapshot.creator)
            try insert.bind(8, snapshot.license)
            try insert.bind(9, snapshot.sourceFile)
            try insert.bind(10, snapshot.catalogHash)
            try insert.run()
            guard connection.changes == 1 else {
                guard let existing = try Self.eventId(connection, sessionId: match.sessionId) else {
                    throw SQLiteCause(code: SQLITE_ERROR, message: "the insert was ignored but no event has session \(match.sessionId)")
                }
                return .alreadyRecorded(eventId: existing)
            }
            let eventId = connection.lastInsertRowID
            let entry = try connection.prepare("INSERT INTO event_metadata (event_id, position, key, value) VALUES (?1, ?2, ?3, ?4)")
            for (position, item) in snapshot.metadata.enumerated() {
                entry.reset()
                try entry.bind(1, eventId)
                try entry.bind(2, Int64(position))
                try entry.bind(3, item.key)
                try entry.bind(4, item.value)
                try entry.run()
            }
            return .recorded(eventId: eventId)
        }
    }

    /// A page of events, newest first: those with an id below `before` (all when nil), at most
    /// `limit` of them, clamped to 0…`HistoryLimits.maximumPageSize`. Pass the last event's id as
    /// `before` to get the next page; ids are stable, so pages never skip or repeat an event.
    public func events(before: Int64? = nil, limit: Int = HistoryLimits.maximumPageSize) throws(HistoryError) -> [RecognitionEvent] {
        let count = min(max(limit, 0), HistoryLimits.maximumPageSize)
        guard count > 0 else { return [] }
        return try read("list events") { connection throws(SQLiteCause) -> [RecognitionEvent] in
            let query = try connection.prepare("SELECT \(Self.eventColumns) FROM event WHERE id < ?1 ORDER BY id DESC LIMIT ?2")
            try query.bind(1, before ?? Int64.max)
            try query.bind(2, Int64(count))
            return try Self.page(of: query, connection)
        }
    }

    /// A page of events, newest first, skipping the `offset` newest (for the protocol's
    /// `START:END` ranges). Unlike `events(before:)` a page can shift when events are added or
    /// deleted between calls; the protocol accepts that for a small appliance history.
    public func events(skipping offset: Int, limit: Int = HistoryLimits.maximumPageSize) throws(HistoryError) -> [RecognitionEvent] {
        let count = min(max(limit, 0), HistoryLimits.maximumPageSize)
        guard count > 0 else { return [] }
        guard offset >= 0 else { throw .invalidInput(field: "offset", problem: "must not be negative, got \(offset)") }
        return try read("list events") { connection throws(SQLiteCause) -> [RecognitionEvent] in
            let query = try connection.prepare("SELECT \(Self.eventColumns) FROM event ORDER BY id DESC LIMIT ?1 OFFSET ?2")
            try query.bind(1, Int64(count))
            try query.bind(2, Int64(offset))
            return try Self.page(of: query, connection)
        }
    }

    /// The events a newest-first page query selects, with their metadata.
    private static func page(of query: SQLiteStatement, _ connection: SQLiteConnection) throws(SQLiteCause) -> [RecognitionEvent] {
        var rows: [EventRow] = []
        while try query.step() { rows.append(EventRow(query)) }
        guard let newest = rows.first, let oldest = rows.last else { return [] }
        // The page is a run of consecutive existing ids, so one range query fetches exactly its metadata.
        let metadata = try metadata(connection, from: oldest.id, through: newest.id)
        return rows.map { $0.event(metadata: metadata[$0.id] ?? []) }
    }

    /// The event with this id, or nil when there is none.
    public func event(id: Int64) throws(HistoryError) -> RecognitionEvent? {
        try read("read event \(id)") { connection throws(SQLiteCause) -> RecognitionEvent? in
            let query = try connection.prepare("SELECT \(Self.eventColumns) FROM event WHERE id = ?1")
            try query.bind(1, id)
            guard try query.step() else { return nil }
            let row = EventRow(query)
            return row.event(metadata: try Self.metadata(connection, from: id, through: id)[id] ?? [])
        }
    }

    /// Whether any recognition of `referenceId` is in the history (the box named it once, so its
    /// metadata is known even without a catalog).
    public func hasEvent(referenceId: String) throws(HistoryError) -> Bool {
        try read("look for recognitions of \(referenceId)") { connection throws(SQLiteCause) -> Bool in
            let query = try connection.prepare("SELECT 1 FROM event WHERE reference_id = ?1 LIMIT 1")
            try query.bind(1, referenceId)
            return try query.step()
        }
    }

    /// The event recorded for a listening session, or nil when the session has none.
    public func event(sessionId: String) throws(HistoryError) -> RecognitionEvent? {
        try InputValidation.sessionId(sessionId)
        let id = try read("find the event of session \(sessionId)") { connection throws(SQLiteCause) -> Int64? in
            try Self.eventId(connection, sessionId: sessionId)
        }
        return try id.flatMap { eventId throws(HistoryError) in try event(id: eventId) }
    }

    /// Deletes an event and its metadata for good; `.notFound` when no event has this id.
    public func deleteEvent(id: Int64) throws(HistoryError) {
        let deleted = try write("delete event \(id)") { connection throws(SQLiteCause) -> Bool in
            // Metadata goes explicitly in the same transaction rather than relying on the cascade,
            // which only works while PRAGMA foreign_keys is on for this connection.
            let metadata = try connection.prepare("DELETE FROM event_metadata WHERE event_id = ?1")
            try metadata.bind(1, id)
            try metadata.run()
            let event = try connection.prepare("DELETE FROM event WHERE id = ?1")
            try event.bind(1, id)
            try event.run()
            return connection.changes == 1
        }
        guard deleted else { throw .notFound(eventId: id) }
    }

    /// How many events the history holds.
    public func eventCount() throws(HistoryError) -> Int {
        try read("count events") { connection throws(SQLiteCause) -> Int in Int(try connection.integer("SELECT count(*) FROM event")) }
    }

    /// The id of the session's event, if it has one.
    private static func eventId(_ connection: SQLiteConnection, sessionId: String) throws(SQLiteCause) -> Int64? {
        let query = try connection.prepare("SELECT id FROM event WHERE session_id = ?1")
        try query.bind(1, sessionId)
        return try query.step() ? query.int64(0) : nil
    }

    static let eventColumns =
        "id, session_id, reference_id, matched_at, offset_ms, score, title, creator, license, source_file, catalog_hash"

    /// Metadata of the events with ids in `from…through`, in stored order, keyed by event id.
    private static func metadata(_ connection: SQLiteConnection, from: Int64, through: Int64)
        throws(SQLiteCause) -> [Int64: [ReferenceSnapshot.MetadataEntry]]
    {
        let query = try connection.prepare(
            """
            SELECT event_id, key, value FROM event_metadata
            WHERE event_id BETWEEN ?1 AND ?2 ORDER BY event_id, position
            """)
        try query.bind(1, from)
        try query.bind(2, through)
        var result: [Int64: [ReferenceSnapshot.MetadataEntry]] = [:]
        while try query.step() {
            result[query.int64(0), default: []].append(.init(key: query.text(1), value: query.text(2)))
        }
        return result
    }
}

/// One row of the event table, in `HistoryStore.eventColumns` order.
private struct EventRow {
    let id: Int64
    let sessionId, referenceId: String
    let matchedAt, offset, score: Int64
    let title, creator, license, sourceFile, catalogHash: String

    init(_ row: SQLiteStatement) {
        id = row.int64(0)
        sessionId = row.text(1)
        referenceId = row.text(2)
        matchedAt = row.int64(3)
        offset = row.int64(4)
        score = row.int64(5)
        title = row.text(6)
        creator = row.text(7)
        license = row.text(8)
        sourceFile = row.text(9)
        catalogHash = row.text(10)
    }

    func event(metadata: [ReferenceSnapshot.MetadataEntry]) -> RecognitionEvent {
        RecognitionEvent(
            id: id, sessionId: sessionId, referenceId: referenceId, matchedAt: matchedAt,
            offsetMilliseconds: offset, score: Int(truncatingIfNeeded: score),
            snapshot: ReferenceSnapshot(
                title: title, creator: creator, license: license,
                sourceFile: sourceFile, metadata: metadata, catalogHash: catalogHash))
    }
}
