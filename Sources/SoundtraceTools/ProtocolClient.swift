import Glibc
import SoundtraceClock
import SoundtraceProtocol

/// One TCP conversation with soundtraced: connect with a timeout, check the greeting, then
/// request/reply with bounded, strictly parsed replies. Blocking calls wait in `poll`, never in a
/// sleep loop; a wait can also end on an `InterruptSignal` (Ctrl-C).
final class ProtocolClient {
    /// Time and size bounds of a conversation.
    struct Limits: Sendable {
        /// Connecting and receiving the greeting.
        var connectTimeoutMilliseconds = 3_000
        /// Any reply except `idle`'s, which may wait as long as nothing changes.
        var replyTimeoutMilliseconds = 10_000
        /// The most bytes one reply may take; a daemon page is far smaller (100 records).
        var maxReplyBytes = 1 << 20
        /// How long an `idle` may wait before the client renews it (`noidle`, then `idle` again):
        /// the daemon closes a connection after 300 s without a line, even one waiting in idle.
        var idleRenewMilliseconds = 240_000
    }

    /// What ended a wait for a reply.
    enum Waited: Equatable {
        case reply(ProtocolReply)
        case interrupted
        /// Nothing arrived for `quietAfterMilliseconds`; the reply is still owed.
        case quiet
    }

    /// `HOST:PORT` as people write it, for messages.
    let endpoint: String
    let limits: Limits
    private let descriptor: Int32
    private var input: [UInt8] = []
    /// The pairs of a reply still being read, kept across an interrupted wait.
    private var pending: [ProtocolReply.Pair] = []
    private var pendingBytes = 0

    private init(endpoint: String, descriptor: Int32, limits: Limits) {
        self.endpoint = endpoint
        self.descriptor = descriptor
        self.limits = limits
    }

    deinit { close(descriptor) }

    static func endpointText(host: String, port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Connects to `host:port` and checks that a soundtraced of protocol 1 greets.
    static func connect(host: String, port: Int, limits: Limits = Limits()) throws(ClientError) -> ProtocolClient {
        let endpoint = endpointText(host: host, port: port)
        let fd = try SocketConnector.connect(
            host: host, port: port, timeoutMilliseconds: limits.connectTimeoutMilliseconds, endpoint: endpoint)
        return try attached(descriptor: fd, endpoint: endpoint, limits: limits)
    }

    /// A conversation on a connected stream socket, which the client then owns: the greeting is
    /// checked as `connect` checks it. Also how bench/fuzz feeds the reply parser a socketpair.
    static func attached(descriptor: Int32, endpoint: String, limits: Limits = Limits()) throws(ClientError) -> ProtocolClient {
        let client = ProtocolClient(endpoint: endpoint, descriptor: descriptor, limits: limits)
        try client.readGreeting()
        return client
    }

    private func readGreeting() throws(ClientError) {
        let event: LineEvent
        do {
            event = try readLine(
                deadline: Self.deadline(limits.connectTimeoutMilliseconds),
                timeoutMilliseconds: limits.connectTimeoutMilliseconds, quietAt: nil, interrupt: nil)
        } catch let .broken(_, detail) {
            // A silent peer (an HTTP server waits for a request) or one that hangs up is not a
            // soundtraced either.
            // A soundtraced stuck in a device open that never returns accepts and says nothing too.
            throw .notSoundtrace(
                endpoint: endpoint,
                detail: "no greeting: it \(detail) (a soundtraced that is stuck does the same: see journalctl -u soundtraced)")
        }
        guard case let .line(line) = event else { return }
        switch ProtocolGreeting(line: line) {
        case .current:
            return
        case let .refused(ack):
            throw .refused(ack)
        case let .otherVersion(version):
            let shown = ProtocolText.sanitized(String(version.prefix(20)))
            throw .notSoundtrace(
                endpoint: endpoint, detail: "it speaks Soundtrace protocol \(shown); use a soundtrace and soundtraced of the same release")
        case .other:
            throw .notSoundtrace(endpoint: endpoint, detail: "it greeted with \"\(ProtocolText.sanitized(String(line.prefix(60))))\"")
        }
    }

    /// Presents the LAN token; a wrong one is refused with the daemon's message.
    func authenticate(token: String) throws(ClientError) {
        let line: ProtocolLine
        do { line = try ProtocolLine("token", [token]) } catch { throw .badRequest(error) }
        _ = try request(line)
    }

    /// Sends `line` and returns the reply, or throws the daemon's ACK as `.refused`.
    func request(_ line: ProtocolLine) throws(ClientError) -> ProtocolReply {
        try send(line)
        guard case let .reply(reply) = try awaitReply(timeoutMilliseconds: limits.replyTimeoutMilliseconds, interrupt: nil) else {
            throw .broken(endpoint: endpoint, detail: "reply wait ended without a reply")
        }
        return reply
    }

    /// A request built from a command and arguments (see `ProtocolLine`).
    func request(_ command: String, _ arguments: [String] = []) throws(ClientError) -> ProtocolReply {
        let line: ProtocolLine
        do { line = try ProtocolLine(command, arguments) } catch { throw .badRequest(error) }
        return try request(line)
    }

    /// Writes one request built from a command and arguments.
    func send(_ command: String, _ arguments: [String] = []) throws(ClientError) {
        let line: ProtocolLine
        do { line = try ProtocolLine(command, arguments) } catch { throw .badRequest(error) }
        try send(line)
    }

    /// Writes one request line.
    func send(_ line: ProtocolLine) throws(ClientError) {
        var bytes = line.bytes[...]
        let deadline = Self.deadline(limits.replyTimeoutMilliseconds)
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                bytes = bytes.dropFirst(written)
                continue
            }
            if written < 0 && (errno == EAGAIN || errno == EINTR) {
                var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                guard poll(&entry, 1, Self.remaining(deadline)) > 0 || errno == EINTR else {
                    throw .broken(
                        endpoint: endpoint, detail: "did not take a request within \(Self.secondsText(limits.replyTimeoutMilliseconds))")
                }
                continue
            }
            throw .broken(endpoint: endpoint, detail: "closed the connection (\(String(cString: strerror(errno))))")
        }
    }

    /// Reads one whole reply. `timeoutMilliseconds` nil waits without a bound (idle); a raised
    /// `interrupt` or `quietAfterMilliseconds` of silence ends the wait early, keeping any partly
    /// read reply for the next call.
    func awaitReply(timeoutMilliseconds: Int?, interrupt: InterruptSignal?, quietAfterMilliseconds: Int? = nil) throws(ClientError)
        -> Waited
    {
        let deadline = timeoutMilliseconds.map(Self.deadline)
        let quietAt = quietAfterMilliseconds.map(Self.deadline)
        while true {
            let line: String
            switch try readLine(deadline: deadline, timeoutMilliseconds: timeoutMilliseconds ?? 0, quietAt: quietAt, interrupt: interrupt) {
            case .interrupted: return .interrupted
            case .quiet: return .quiet
            case let .line(text): line = text
            }
            pendingBytes += line.utf8.count + 1
            guard pendingBytes <= limits.maxReplyBytes else {
                throw .broken(endpoint: endpoint, detail: "sent a reply larger than \(limits.maxReplyBytes / 1024) KiB; stopped reading it")
            }
            switch ProtocolReplyLine.parse(line) {
            case let .pair(pair):
                pending.append(pair)
            case .ok:
                defer {
                    pending = []
                    pendingBytes = 0
                }
                return .reply(ProtocolReply(pairs: pending))
            case let .ack(ack):
                // An error is one line on its own; after pairs it would mean a confused peer.
                guard pending.isEmpty else {
                    throw .broken(
                        endpoint: endpoint,
                        detail: "sent an error line in the middle of a reply: \(ProtocolText.sanitized(String(line.prefix(80))))")
                }
                pendingBytes = 0
                throw .refused(ack)
            case nil:
                throw .broken(
                    endpoint: endpoint,
                    detail: "sent a line that is not part of protocol 1: \"\(ProtocolText.sanitized(String(line.prefix(80))))\"")
            }
        }
    }

    private enum LineEvent {
        case line(String)
        case interrupted, quiet
    }

    /// The next line without its newline, unless `interrupt` is raised or `quietAt` passes first.
    private func readLine(deadline: UInt64?, timeoutMilliseconds: Int, quietAt: UInt64?, interrupt: InterruptSignal?) throws(ClientError)
        -> LineEvent
    {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let newline = input.firstIndex(of: UInt8(ascii: "\n")) {
                let line = input[..<newline]
                input.removeSubrange(...newline)
                switch ProtocolReplyLine.text(line) {
                case let .success(text):
                    return .line(text)
                case .failure(.notUTF8):
                    throw .broken(endpoint: endpoint, detail: "sent a line that is not UTF-8 text")
                case .failure(.controlCharacter):
                    throw .broken(endpoint: endpoint, detail: "sent a line with control characters, which protocol 1 never sends")
                }
            }
            // A line without an end is bounded like a reply.
            guard input.count <= limits.maxReplyBytes else {
                throw .broken(endpoint: endpoint, detail: "sent a line longer than \(limits.maxReplyBytes / 1024) KiB; stopped reading it")
            }
            var entries = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            if let interrupt { entries.append(pollfd(fd: interrupt.descriptor, events: Int16(POLLIN), revents: 0)) }
            let wait = [deadline, quietAt].compactMap { $0 }.min().map(Self.remaining) ?? -1
            let ready = poll(&entries, nfds_t(entries.count), wait)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .broken(endpoint: endpoint, detail: "could not be read from (\(String(cString: strerror(errno))))")
            }
            if entries.count > 1, entries[1].revents != 0 { return .interrupted }
            if ready == 0, let quietAt, Self.remaining(quietAt) == 0 { return .quiet }
            if ready == 0 {
                // poll rounds to milliseconds; only a passed deadline is a timeout.
                guard let deadline, Self.remaining(deadline) == 0 else { continue }
                throw .broken(endpoint: endpoint, detail: "did not answer within \(Self.secondsText(timeoutMilliseconds))")
            }
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count > 0 {
                input += chunk[..<count]
            } else if count == 0 {
                throw .broken(endpoint: endpoint, detail: "closed the connection")
            } else if errno != EAGAIN && errno != EINTR {
                throw .broken(endpoint: endpoint, detail: "closed the connection (\(String(cString: strerror(errno))))")
            }
        }
    }

    /// A bound for messages: whole seconds, or milliseconds below one second (tests use short bounds).
    static func secondsText(_ milliseconds: Int) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }

    private static func now() -> UInt64 { UInt64(SystemClock.monotonicMilliseconds()) }

    private static func deadline(_ milliseconds: Int) -> UInt64 { now() + UInt64(max(0, milliseconds)) }

    private static func remaining(_ deadline: UInt64) -> Int32 {
        let current = now()
        return current >= deadline ? 0 : Int32(min(deadline - current, UInt64(Int32.max)))
    }
}
