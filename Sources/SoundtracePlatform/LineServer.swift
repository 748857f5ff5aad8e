import Glibc
import SoundtraceCore

/// A TCP server for a line protocol, on one thread with `poll()`: it accepts clients up to a cap
/// (refusing the rest with a visible error line), reads newline-terminated lines of bounded length,
/// stops reading a client's lines while its replies pile up unread (back-pressure, as MPD and Redis
/// do: a pipelining client loses nothing and memory stays bounded), and closes clients that stay
/// idle too long. With no client connected it sleeps in `poll` without a timeout. `send`, `close`
/// and `stop` may be called from any thread; events are delivered on the server's thread.
public final class LineServer: @unchecked Sendable {
    // @unchecked: the client table is touched only on the server thread inside `run`; other
    // threads reach it through `requests`, guarded by `lock`, and the wake signal.

    public struct Limits: Sendable {
        public var maxLineBytes = ProtocolRequest.maxLineBytes
        public var maxClients = 8
        public var idleTimeoutMilliseconds = 300_000
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
    private let listener: Int32
    public let port: Int
    private let wake = WakeSignal()
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var requests: [Request] = []
    private enum Request { case send(Int, [UInt8]), close(Int), idleExempt(Int, Bool), stop }

    private final class Connection {
        let client: Client
        let descriptor: Int32
        var input: LineBuffer
        var output: [UInt8] = []
        var lastActivity: Int64
        var closeAfterFlush = false
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
    public init(address: String, port: Int, limits: Limits = Limits(), greeting: String) throws(Failure) {
        self.limits = limits
        self.greeting = greeting
        pthread_mutex_init(lock, nil)
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
                    c.output += Array("ACK [2@0] {} line longer than \(limits.maxLineBytes) bytes\n".utf8)
                    c.input.removeAll()
                    c.closeAfterFlush = true
                }
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
            for c in Array(connections.values) where c.output.isEmpty && (c.closeAfterFlush || c.inputEnded) {
                drop(c, c.closeAfterFlush ? "closed" : "client closed")
            }

            let now = Self.milliseconds()
            var timeout: Int32 = -1
            if let oldest = connections.values.filter({ !$0.idleExempt }).map(\.lastActivity).min() {
                let due = oldest + Int64(limits.idleTimeoutMilliseconds) - now
                timeout = Int32(max(0, min(Int64(Int32.max), due)))
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
                    } else if count > 0 {
                        c.lastActivity = afterPoll
                        // A connection on its way out reads nothing more.
                        if !c.closeAfterFlush { c.input.append(buffer[..<count]) }
                        dispatchLines(c)
                    }
                }
                if connections[c.client.id] != nil, !c.idleExempt, afterPoll - c.lastActivity >= Int64(limits.idleTimeoutMilliseconds) {
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
                    let (name, loopback) = SocketAddress.describe(&peer)
                    if connections.count >= limits.maxClients {
                        let refusal = Array("ACK [56@0] {} too many clients (\(limits.maxClients)); try again later\n".utf8)
                        _ = refusal.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                        Glibc.close(fd)
                    } else {
                        let client = Client(id: nextID, isLoopback: loopback, peer: name)
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

    private static func milliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }
}
