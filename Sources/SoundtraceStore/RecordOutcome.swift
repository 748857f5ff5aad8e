/// What `recordMatch` did.
public enum RecordOutcome: Sendable, Equatable {
    /// A new event was stored with this id.
    case recorded(eventId: Int64)
    /// The session already had an event (this id); nothing was written.
    case alreadyRecorded(eventId: Int64)

    /// The id of the session's event, whether it was just stored or already there.
    public var eventId: Int64 {
        switch self {
        case let .recorded(id), let .alreadyRecorded(id): return id
        }
    }
}
