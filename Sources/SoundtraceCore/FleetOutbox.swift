/// What the appliance has handed to the MQTT link and the link has not yet sent, bounded however
/// long the broker is away: a retained topic keeps only its newest message (a state replaces the
/// state before it), and the others (recognition events, command replies) queue up to `capacity`,
/// the oldest dropped and counted beyond it. Pure: the daemon guards it with a lock.
public struct FleetOutbox: Sendable {
    /// A message for the broker.
    public struct Message: Sendable, Equatable {
        public let topic: String
        public let payload: String
        public let retained: Bool
        public init(topic: String, payload: String, retained: Bool) {
            self.topic = topic
            self.payload = payload
            self.retained = retained
        }
    }

    public let capacity: Int
    private var retained: [Message] = []
    private var queued: [Message] = []
    /// Messages dropped since the last `take`.
    public private(set) var dropped = 0

    public init(capacity: Int = 32) { self.capacity = max(1, capacity) }

    public var isEmpty: Bool { retained.isEmpty && queued.isEmpty }

    public mutating func post(_ message: Message) {
        if message.retained {
            retained.removeAll { $0.topic == message.topic }
            retained.append(message)
            return
        }
        if queued.count >= capacity {
            queued.removeFirst()
            dropped += 1
        }
        queued.append(message)
    }

    /// Everything waiting, retained messages first, in the order posted, and how many were
    /// dropped meanwhile; leaves the outbox empty.
    public mutating func take() -> (messages: [Message], dropped: Int) {
        defer {
            retained = []
            queued = []
            dropped = 0
        }
        return (retained + queued, dropped)
    }
}
