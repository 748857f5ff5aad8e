import Glibc
import SoundtraceCore
import SoundtraceClock

/// A TCP server for a line protocol, on one thread with `poll()`: it accepts clients up to a cap
/// that keeps a slot for this machine and limits each network address (`ClientAdmission`; the
/// rest are refused with a visible error line), reads newline-terminated lines of bounded length,
/// stops reading a client's lines while its replies pile up unread (back-pressure, as MPD and Redis
/// do: a pipelining client loses nothing and memory stays bounded), and closes clients that stay
/// idle too long or take too long to finish a line. With no client connected it sleeps in `poll`
/// without a timeout. `send`, `close` and `stop` may be called from any thread; events are
/// delivered on the server's thread.
public final class LineServer: @unchecked Sendable {
    // @unchecked: the client table is touched only on the server thread inside `run`; other
    // threads reach it through `requests`, guarded by `lock`, and the wake signal.

    public struct Limits: Sendable {
        public var maxLineBytes = ProtocolRequest.maxLineBytes
        public var maxClients = 8
        /// Slots of `maxClients` that only clients on this machine (loopback) may take, so clients
        /// from the network can never lock out the box's own CLI.
        public var reservedLocalSlots = 1
        /// Connections one network address may hold at once (loopback is not limited).
        public var maxClientsPerAddress = 4
        public var idleTimeoutMilliseconds = 300_000
        /// How long an unfinished line may wait for its newline. A client dripping a byte every
        /// few seconds is never idle, so without this it would hold its slot for ever.
        public var lineTimeoutMilliseconds = 10_000
        /// Unread output over which the server reads no more lines from that client until the
        /// client has read its replies down below it (back-pressure).
        public var maxPendingBytes = 256 * 1024
        /// How many times `maxPendingBytes` a client's unread output may reach before it is
        /// disconnected. Back-pressure keeps a client that reads its replies under about
        /// `maxPendingBytes` plus one reply; only output it did not ask for line by line (server
        /// pushes, delayed answers) can pass that, so this bounds a client that never reads.
        public static let disconnectFactor = 4
        public var disconnectPendingBytes: Int { maxPendingBytes * Self.disconnectFactor }
        public init() {}
    }

    /// A connected client, with whether it came over loopback (which decides its permission).
    public struct Client: Hashable, Sendable {
        public let id: Int
        public let isLoopback: Bool
        public let peer: String
    }

    public enum Event: Sendable {
        case connected(Client)
        case line(Client, [UInt8])
        case disconnected(Client, reason: String)
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case invalidAddress(String)
        case cannotListen(address: String, port: Int, reason: String)
        public var description: String {
            switch self {
            case let .invalidAddress(a): return "cannot listen on '\(a)': not an IPv4 or IPv6 address; set bind to e.g. 127.0.0.1"
            case let .cannotListen(a, p, r): return "cannot listen on \(a) port \(p): \(r); choose another port or stop what uses it"
            }
        }
    }

    public let limits: Limits
    private let greeting: String
    /// Whether a peer address is on this machine; tests stand in other loopback addresses for LAN hosts.
    private let isLocalPeer: @Sendable (String) -> Bool
    private let listener: Int32
    public let port: Int
    private let wake = WakeSignal()
    /// Made last in `init`, once nothing can throw: a throwing initializer does not run `deinit`,
    /// so a mutex made earlier leaked when the address was refused (found by LeakSanitizer).
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    private var requests: [Request] = []
    private enum Request { case send(Int, [UInt8]), close(Int), idleExempt(Int, Bool), stop }

    private final class Connection {
        let client: Client
        let descriptor: Int32
        var input: LineBuffer
        var output: [UInt8] = []
        var lastActivity: Int64
        var closeAfterFlush = false
        /// Why the connection closes once flushed (for the `disconnected` event).
        var closeReason = "closed"
        /// Since when the bytes held form an unfinished line (nil: none, or only whole lines held back).
        var partialLineSince: Int64?
        /// The client shut down its sending side: it is closed once it has its replies.
        var inputEnded = false
        /// A client waiting for the server (MPD's `idle`) is not idle itself.
        var idleExempt = false
        init(client: Client, descriptor: Int32, now: Int64, maxLineBytes: Int) {
            self.client = client
            self.descriptor = descriptor
            lastActivity = now
            input = LineBuffer(maxLineBytes: maxLineBytes)
        }
    }

    /// Binds and listens (`port` 0 picks a free port, reported in `port`).
    public convenience init(address: String, port: Int, limits: Limits = Limits(), greeting: String) throws(Failure) {
        try self.init(address: address, port: port, limits: limits, greeting: greeting, isLocalPeer: SocketAddress.isLoopback)
    }

    init(address: String, port: Int, limits: Limits, greeting: String, isLocalPeer: @escaping @Sendable (String) -> Bool) throws(Failure) {
        self.limits = limits
        self.greeting = greeting
        self.isLocalPeer = isLocalPeer
        var storage = sockaddr_storage()
        var length: socklen_t = 0
        let family: Int32
        if let v4 = SocketAddress.ipv4(address, port: port) {
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: v4, as: sockaddr_in.self) }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
            family = AF_INET
        } else if let v6 = SocketAddress.ipv6(address, port: port) {
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: v6, as: sockaddr_in6.self) }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
            family = AF_INET6
        } else {
            throw .invalidAddress(address)
        }
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .cannotListen(address: address, port: port, reason: String(cString: strerror(errno))) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, listen(fd, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw .cannotListen(address: address, port: port, reason: reason)
        }
        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) } }
        self.port = Int(UInt16(bigEndian: withUnsafeBytes(of: &actual) { $0.load(fromByteOffset: 2, as: UInt16.self) }))
        listener = fd
        lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
    }

    deinit {
        Glibc.close(listener)
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// Queues `text` for `client` (dropped if it is gone). A client whose queue passes
    /// `Limits.disconnectPendingBytes` is closed.
    public func send(_ text: String, to client: Client) { enqueue(.send(client.id, Array(text.utf8))) }
    /// Closes `client` once what is queued for it has been written.
    public func close(_ client: Client) { enqueue(.close(client.id)) }
    /// Exempts `client` from the idle timeout while it waits for the server to answer (an `idle`
    /// command), or ends the exemption; its idle time counts from the end of the exemption.
    public func setIdleExempt(_ client: Client, _ exempt: Bool) { enqueue(.idleExempt(client.id, exempt)) }
    /// Makes `run` return after closing every client.
    public func stop() { enqueue(.stop) }

    private func enqueue(_ request: Request) {
        pthread_mutex_lock(lock)
        requests.append(request)
        pthread_mutex_unlock(lock)
        wake.signal()
    }

    /// Serves until `stop()`, calling `handler` on this thread for every event.
    public func run(_ handler: (Event) -> Void) {
        var connections: [Int: Connection] = [:]
        var nextID = 1
        var stopping = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        func drop(_ connection: Connection, _ reason: String) {
            Glibc.close(connection.descriptor)
            connections[connection.client.id] = nil
            handler(.disconnected(connection.client, reason: reason))
        }
        // Says why in the protocol's error form, then closes once that is written.
        func closeTelling(_ c: Connection, _ line: String, reason: String) {
            c.output += Array((line + "\n").utf8)
            c.input.removeAll()
            c.partialLineSince = nil
            c.closeAfterFlush = true
            c.closeReason = reason
        }
        // Requests from other threads, and from the handler on this one.
        func applyRequests() {
            pthread_mutex_lock(lock)
            let pending = requests
            requests.removeAll()
            pthread_mutex_unlock(lock)
            for request in pending {
                switch request {
                case let .send(id, bytes):
                    guard let c = connections[id] else { continue }
                    c.output += bytes
                    if c.output.count > limits.disconnectPendingBytes { drop(c, "too much unread output") }
                case let .close(id):
                    connections[id]?.closeAfterFlush = true
                case let .idleExempt(id, exempt):
                    connections[id]?.idleExempt = exempt
                    connections[id]?.lastActivity = Self.milliseconds()
                case .stop:
                    stopping = true
                }
            }
        }
        // Hands a client's complete lines to the handler one at a time while its unread output is
        // under the limit. The replies a line produced are queued before the next line is looked
        // at, so one chunk of pipelined commands cannot pile up more than one reply past the
        // limit; lines left over wait in the buffer, and the client is not read meanwhile.
        func dispatchLines(_ c: Connection) {
            while !stopping, connections[c.client.id] != nil, !c.closeAfterFlush, c.output.count < limits.maxPendingBytes,
                  let next = c.input.next() {
                switch next {
                case let .line(line):
                    handler(.line(c.client, line))
                    applyRequests()
                case .tooLong:
                    closeTelling(c, "ACK [2@0] {} line longer than \(limits.maxLineBytes) bytes", reason: "line too long")
                }
            }
        }
        // Starts the unfinished line's clock when one is left after dispatching. `newLine`: the
        // bytes just read finished the previous one, so what is left began now. Whole lines held
        // back by back-pressure do not count: the client is not being read.
        func notePartialLine(_ c: Connection, now: Int64, newLine: Bool) {
            if c.closeAfterFlush || c.input.count == 0 || c.input.hasLine {
                c.partialLineSince = nil
            } else if newLine || c.partialLineSince == nil {
                c.partialLineSince = now
            }
        }
        // An unfinished line's clock stands still while the server does not read the client (its
        // replies pile up unread), since the client cannot finish the line meanwhile.
        func lineClockStopped(_ c: Connection) -> Bool {
            c.closeAfterFlush || c.output.count >= limits.maxPendingBytes
        }
        // The earliest moment a connection may need closing: its idle time or its unfinished line.
        func deadline(_ c: Connection) -> Int64? {
            let idle = c.idleExempt ? nil : c.lastActivity + Int64(limits.idleTimeoutMilliseconds)
            let line = lineClockStopped(c) ? nil : c.partialLineSince.map { $0 + Int64(limits.lineTimeoutMilliseconds) }
            return [idle, line].compactMap { $0 }.min()
        }
        // Connections with nothing left to do: every reply written and the client gone, or closed
        // by the server once its last words are out.
        func dropFinished() {
            for c in Array(connections.values) where c.output.isEmpty && (c.closeAfterFlush || c.inputEnded) {
                drop(c, c.closeAfterFlush ? c.closeReason : "client closed")
            }
        }
        // A closing client is still read (and what it sends discarded): closing a socket with
        // unread input resets it, and the client could lose its last reply.
        func readsInput(_ c: Connection) -> Bool {
            !c.inputEnded && (c.closeAfterFlush || c.output.count < limits.maxPendingBytes)
        }
        while true {
            wake.consume()
            applyRequests()
            if stopping {
                for c in connections.values { drop(c, "server stopping") }
                return
            }
            dropFinished()

            let now = Self.milliseconds()
            var timeout: Int32 = -1
            if let earliest = connections.values.compactMap(deadline).min() {
                timeout = Int32(max(0, min(Int64(Int32.max), earliest - now)))
            }
            let order = Array(connections.values)
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)]
            fds += order.map {
                pollfd(fd: $0.descriptor, events: (readsInput($0) ? Int16(POLLIN) : 0) | ($0.output.isEmpty ? 0 : Int16(POLLOUT)), revents: 0)
            }
            if poll(&fds, nfds_t(fds.count), timeout) < 0 && errno != EINTR { continue }

            let afterPoll = Self.milliseconds()
            for (index, c) in order.enumerated() {
                let events = fds[index + 2].revents
                guard !stopping, connections[c.client.id] != nil else { continue }
                if events & Int16(POLLOUT) != 0, !c.output.isEmpty {
                    let written = c.output.withUnsafeBytes { Glibc.send(c.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if written > 0 {
                        c.output.removeFirst(written)
                        // A client reading its replies is not idle, even while its lines wait.
                        c.lastActivity = afterPoll
                        dispatchLines(c)
                        notePartialLine(c, now: afterPoll, newLine: false)
                    } else if errno != EAGAIN { drop(c, "write failed"); continue }
                }
                guard !stopping, connections[c.client.id] != nil else { continue }
                if events & (Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)) != 0 {
                    // Hang-up or error while not reading: the client is gone, its replies with it.
                    guard readsInput(c) else { drop(c, "client closed"); continue }
                    let count = recv(c.descriptor, &buffer, buffer.count, 0)
                    if count < 0 && errno != EAGAIN && errno != EINTR { drop(c, "client closed"); continue }
                    if count == 0 {
                        // The client is done sending (perhaps a pipelined batch); it still gets its replies.
                        c.inputEnded = true
                        c.input.removeAll()
                        c.partialLineSince = nil
                    } else if count > 0 {
                        c.lastActivity = afterPoll
                        // A connection on its way out reads nothing more.
                        if !c.closeAfterFlush { c.input.append(buffer[..<count]) }
                        dispatchLines(c)
                        notePartialLine(c, now: afterPoll, newLine: buffer[..<count].contains(UInt8(ascii: "\n")))
                    }
                }
                guard connections[c.client.id] != nil else { continue }
                if c.partialLineSince != nil, lineClockStopped(c) {
                    // Restarted, so the client has the whole time once it is read again.
                    c.partialLineSince = c.closeAfterFlush ? nil : afterPoll
                } else if let since = c.partialLineSince, afterPoll - since >= Int64(limits.lineTimeoutMilliseconds) {
                    closeTelling(c, "ACK [2@0] {} line not finished within \(Self.duration(limits.lineTimeoutMilliseconds)); send each command as one line ending in a newline", reason: "line timeout")
                } else if !c.idleExempt, afterPoll - c.lastActivity >= Int64(limits.idleTimeoutMilliseconds) {
                    drop(c, "idle timeout")
                }
            }
            if fds[0].revents & Int16(POLLIN) != 0 {
                var peer = sockaddr_storage()
                var peerLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let fd = withUnsafeMutablePointer(to: &peer) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener, $0, &peerLength) }
                }
                if fd >= 0 {
                    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                    let name = SocketAddress.describe(&peer)
                    let local = isLocalPeer(name)
                    // A client that closed just before this one connected was read to its end in
                    // this same round: its slot is free now, not at the next round (a client
                    // reconnecting at once to a full server was refused by its own old connection).
                    dropFinished()
                    let occupants = connections.values.map {
                        ClientAdmission.Occupant(id: $0.client.id, peer: $0.client.peer, isLocal: $0.client.isLoopback,
                                                 waitingSince: $0.idleExempt ? $0.lastActivity : nil)
                    }
                    var admitted = true
                    switch ClientAdmission(limits: limits).decide(peer: name, isLocal: local, occupants: occupants) {
                    case .admit:
                        break
                    case let .admitReplacing(id, reason):
                        // Closed at once rather than after a flush, so the cap holds. A client
                        // waiting in `idle` has read its replies: the reason fits its socket buffer.
                        if let waiting = connections[id] {
                            Self.sendNow(waiting.output + Array((reason + "\n").utf8), to: waiting.descriptor)
                            drop(waiting, "made room for a local client")
                        }
                    case let .refuse(reason):
                        Self.sendNow(Array((reason + "\n").utf8), to: fd)
                        Glibc.close(fd)
                        admitted = false
                    }
                    if admitted {
                        let client = Client(id: nextID, isLoopback: local, peer: name)
                        nextID += 1
                        let c = Connection(client: client, descriptor: fd, now: afterPoll, maxLineBytes: limits.maxLineBytes)
                        c.output = Array((greeting + "\n").utf8)
                        connections[client.id] = c
                        handler(.connected(client))
                    }
                }
            }
        }
    }

    /// What can be written without waiting (a refusal or a last word before closing).
    private static func sendNow(_ bytes: [UInt8], to descriptor: Int32) {
        _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
    }

    /// "10 s", or milliseconds when that is not whole seconds (short limits in tests).
    private static func duration(_ milliseconds: Int) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }

    private static func milliseconds() -> Int64 { SystemClock.monotonicMilliseconds() }
}
