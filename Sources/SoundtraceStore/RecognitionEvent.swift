/// One stored successful recognition.
public struct RecognitionEvent: Sendable, Equatable, Identifiable {
    /// The event's id: positive, increasing, never reused even after deletion.
    public let id: Int64
    /// The listening session that produced it (unique among events).
    public let sessionId: String
    /// The catalog reference that matched.
    public let referenceId: String
    /// When the match was confirmed, in unix milliseconds.
    public let matchedAt: Int64
    /// Where in the reference the heard audio starts, in milliseconds.
    public let offsetMilliseconds: Int64
    /// How strong the match was.
    public let score: Int
    /// The reference's metadata and the catalog hash at match time.
    public let snapshot: ReferenceSnapshot

    /// An event with the given fields (the store creates these; public for tests and fakes).
    public init(
        id: Int64, sessionId: String, referenceId: String, matchedAt: Int64,
        offsetMilliseconds: Int64, score: Int, snapshot: ReferenceSnapshot
    ) {
        self.id = id
        self.sessionId = sessionId
        self.referenceId = referenceId
        self.matchedAt = matchedAt
        self.offsetMilliseconds = offsetMilliseconds
        self.score = score
        self.snapshot = snapshot
    }

    /// The event as stored from `recognition` under `id`.
    init(id: Int64, recognition: NewRecognition) {
        self.init(
            id: id, sessionId: recognition.sessionId, referenceId: recognition.referenceId,
            matchedAt: recognition.matchedAt, offsetMilliseconds: recognition.offsetMilliseconds,
            score: recognition.score, snapshot: recognition.snapshot)
    }
}
