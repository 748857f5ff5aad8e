/// A successful recognition, as the daemon hands it to `HistoryStore.recordMatch`.
public struct NewRecognition: Sendable, Equatable {
    /// The listening session's token; at most one event is ever stored per session.
    public let sessionId: String
    /// The catalog reference that matched.
    public let referenceId: String
    /// When the match was confirmed, in unix milliseconds.
    public let matchedAt: Int64
    /// Where in the reference the heard audio starts, in milliseconds (negative if it started before it).
    public let offsetMilliseconds: Int64
    /// How strong the match was (the matcher's vote count).
    public let score: Int
    /// The reference's metadata and the catalog hash at match time.
    public let snapshot: ReferenceSnapshot

    /// A recognition with the given fields; they are validated when recorded.
    public init(
        sessionId: String, referenceId: String, matchedAt: Int64, offsetMilliseconds: Int64,
        score: Int, snapshot: ReferenceSnapshot
    ) {
        self.sessionId = sessionId
        self.referenceId = referenceId
        self.matchedAt = matchedAt
        self.offsetMilliseconds = offsetMilliseconds
        self.score = score
        self.snapshot = snapshot
    }
}
