import SoundtraceCore
import SoundtracePlatform

/// The kiosk's link to an MQTT broker (mqtt_host): what the appliance publishes goes into a
/// bounded outbox (`post`, a lock held for an append, never the network), and the link's own
/// thread (`FleetLinkLoop`) connects, sends and receives. A broker that is down, slow or refusing
/// the credentials therefore never holds up a session, the LEDs, the history or the protocol.
final class FleetLink: Sendable {
    /// How the link stands, for `status`.
    enum Standing: Sendable, Equatable {
        case connecting
        case connected
        case disconnected(String)
    }

    /// Seconds between keepalive pings while nothing else is sent: the one periodic wake-up the
    /// link adds to an idle daemon (a ping and its answer, once a minute). The broker ends a link
    /// silent for 1.5 of them, so a vanished broker is noticed within about two minutes.
    static let keepAliveSeconds = 60
    /// Recognition events and command replies kept while the broker is away; older ones are dropped.
    static let outboxCapacity = 32
    /// The longest `stop` waits for the link to say goodbye to the broker.
    static let stopWaitMilliseconds = 2000

    let topics: FleetTopics
    /// Whether to announce the kiosk to Home Assistant, or take that back (`mqtt_discovery`).
    let discovery: Bool
    private let outbox = Guarded(FleetOutbox(capacity: FleetLink.outboxCapacity))
    private let standing = Guarded(Standing.connecting)
    private let stopping = Guarded(false)
    /// Raised by `post` and `stop`; the link's thread sleeps on it and on the broker's socket.
    let wake = WakeSignal()
    /// Raised by the link's thread as it ends.
    let finished = WakeSignal()

    init(topics: FleetTopics, discovery: Bool = true) {
        self.topics = topics
        self.discovery = discovery
    }

    /// Hands a message to the link's thread. Safe from any thread and inside the appliance's lock.
    func post(_ message: FleetOutbox.Message) {
        outbox.withLock { $0.post(message) }
        wake.signal()
    }

    func post(_ topic: String, _ payload: String, retained: Bool) {
        post(FleetOutbox.Message(topic: topic, payload: payload, retained: retained))
    }

    /// `connected`, or `disconnected (why)`, as `status` shows it.
    var statusText: String {
        switch standing.withLock({ $0 }) {
        case .connected: return "connected"
        case .connecting: return "disconnected (connecting)"
        case let .disconnected(reason): return "disconnected (\(reason))"
        }
    }

    /// Starts the link's thread with `client` (made on this thread, used only by that one from
    /// now on); `command` runs there for every message on the command topic. False when no
    /// thread could be started.
    func start(client: MosquittoClient, command: @escaping @Sendable ([UInt8]) -> Void) -> Bool {
        let handOver = ClientHandOver(client: client)
        return WorkerThread(detached: true) { [self] in
            FleetLinkLoop(link: self, client: handOver.client, command: command).run()
            finished.signal()
        } != nil
    }

    /// Asks the thread to publish `offline`, disconnect cleanly and end, and waits for it a
    /// little: a thread still inside a TCP handshake with an unreachable broker is left behind
    /// (the process is ending).
    func stop() {
        stopping.withLock { $0 = true }
        wake.signal()
        _ = finished.wait(milliseconds: Self.stopWaitMilliseconds)
    }

    var isStopping: Bool { stopping.withLock { $0 } }

    func setStanding(_ new: Standing) { standing.withLock { $0 = new } }

    func takeOutbox() -> (messages: [FleetOutbox.Message], dropped: Int) { outbox.withLock { $0.take() } }
}

/// The client, handed to the link's thread once; from then on only that thread uses it.
private struct ClientHandOver: @unchecked Sendable {
    let client: MosquittoClient
}
