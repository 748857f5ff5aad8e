import Glibc
import SoundtraceClock
import SoundtraceCore
import SoundtracePlatform

/// The MQTT link's thread: connect, serve the connection until it ends, wait (`ReconnectDelay`),
/// again. It sleeps in `poll` on the broker's socket and the link's wake-up descriptor, with a
/// timeout only for the next keepalive ping while connected and for the next attempt while not:
/// no other timer, no polling.
final class FleetLinkLoop {
    private let link: FleetLink
    private let client: MosquittoClient
    private let command: @Sendable ([UInt8]) -> Void
    /// The newest retained message of every topic sent so far: sent again on every connection, as
    /// a broker restarted without persistence has forgotten them.
    private var retained: [FleetOutbox.Message] = []
    private var delay = ReconnectDelay()
    private var connected = false
    /// Whether the current outage has been logged (once per outage).
    private var outageLogged = false
    /// When the connection last read and wrote (monotonic ms), for the keepalive's deadline.
    private var lastRead: Int64 = 0
    private var lastWrite: Int64 = 0

    init(link: FleetLink, client: MosquittoClient, command: @escaping @Sendable ([UInt8]) -> Void) {
        self.link = link
        self.client = client
        self.command = command
    }

    func run() {
        let broker = "\(client.options.host) port \(client.options.port)"
        while !link.isStopping {
            let problem: String
            do {
                try client.connect()
                lastRead = now()
                lastWrite = lastRead
                problem = serve()
            } catch {
                problem = error.description
            }
            if link.isStopping { break }
            link.setStanding(.disconnected(problem))
            if !outageLogged {
                DaemonLog.warning(
                    "MQTT: no link to the broker at \(broker): \(problem); retrying every 1 s to 1 min, logged again once it is back (listening, history and the protocol carry on)"
                )
                outageLogged = true
            }
            if !sleep(milliseconds: delay.failed()) { break }
        }
    }

    /// Serves one connection until it ends; why it ended.
    private func serve() -> String {
        var refusal: String?
        while true {
            if link.isStopping {
                if connected { sayGoodbye() }
                return "stopping"
            }
            let socket = client.descriptor
            guard socket >= 0 else { return refusal ?? client.failure ?? "the connection was lost" }
            // libmosquitto counts keepalive in whole seconds: a second more, so the ping is due when we wake.
            let due = min(lastRead, lastWrite) + Int64(FleetLink.keepAliveSeconds + 1) * 1000
            var fds = [
                pollfd(fd: socket, events: Int16(POLLIN) | (client.wantsWrite ? Int16(POLLOUT) : 0), revents: 0),
                pollfd(fd: link.wake.descriptor, events: Int16(POLLIN), revents: 0)
            ]
            if poll(&fds, 2, Int32(clamping: max(0, due - now()))) < 0 && errno != EINTR {
                return "poll failed: \(String(cString: strerror(errno)))"
            }
            if fds[1].revents != 0 { link.wake.consume() }
            if fds[0].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                client.read()
                lastRead = now()
            }
            if fds[0].revents & Int16(POLLOUT) != 0 {
                client.write()
                lastWrite = now()
            }
            if now() >= due {
                client.keepAlive()
                lastRead = now()
                lastWrite = lastRead
            }
            for event in client.takeEvents() {
                switch event {
                case .connected: linkUp()
                case let .refused(reason): refusal = reason
                case let .disconnected(reason):
                    connected = false
                    return refusal ?? client.failure ?? reason
                case let .message(topic, payload):
                    if topic == link.topics.command { command(payload) }
                }
            }
            if connected { sendOutbox() }
        }
    }

    private func linkUp() {
        connected = true
        delay.connected()
        link.setStanding(.connected)
        DaemonLog.info(
            "MQTT: connected to \(client.options.host) port \(client.options.port) (\(client.libraryVersion)); topics under \(link.topics.prefix)"
        )
        outageLogged = false
        client.subscribe(link.topics.command)
        client.publish(topic: link.topics.availability, payload: "online", retained: true)
        for message in retained { client.publish(topic: message.topic, payload: message.payload, retained: true) }
        lastWrite = now()
    }

    /// Sends what the appliance posted, unless libmosquitto still holds unsent bytes: then the
    /// outbox (bounded) waits, so libmosquitto's own queue cannot grow behind a slow broker.
    private func sendOutbox() {
        guard !client.wantsWrite else { return }
        let (messages, dropped) = link.takeOutbox()
        if dropped > 0 {
            DaemonLog.warning(
                "MQTT: \(dropped) recognition events or command replies were dropped while the broker was away (the history keeps every recognition)"
            )
        }
        for message in messages {
            if message.retained {
                // Calm mode and the catalog are posted with every state change; the broker has them.
                if retained.contains(message) { continue }
                retained.removeAll { $0.topic == message.topic }
                retained.append(message)
            }
            client.publish(topic: message.topic, payload: message.payload, retained: message.retained)
        }
        if !messages.isEmpty { lastWrite = now() }
    }

    /// A clean end: `offline` said by the kiosk itself (a clean disconnect does not fire the will).
    private func sayGoodbye() {
        sendOutbox()
        client.publish(topic: link.topics.availability, payload: "offline", retained: true)
        client.disconnect()
        connected = false
    }

    /// Waits until the next attempt or `stop`; false when stopping.
    private func sleep(milliseconds: Int64) -> Bool {
        let until = now() + milliseconds
        while !link.isStopping {
            let left = until - now()
            if left <= 0 { return true }
            var entry = pollfd(fd: link.wake.descriptor, events: Int16(POLLIN), revents: 0)
            // Posts wake this too; the outbox keeps them (bounded) until the link is back.
            if poll(&entry, 1, Int32(clamping: left)) > 0 { link.wake.consume() }
        }
        return false
    }

    private func now() -> Int64 { SystemClock.monotonicMilliseconds() }
}
