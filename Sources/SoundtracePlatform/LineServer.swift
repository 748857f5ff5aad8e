import Glibc
import SoundtraceClock
import SoundtraceProtocol

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
    let greeting: String
    /// Whether a peer address is on this machine; tests stand in other loopback addresses for LAN hosts.
    let isLocalPeer: @Sendable (String) -> Bool
    let listener: Int32
    public let port: Int
    let wake = WakeSignal()
    /// Made last in `init`, once nothing can throw: a throwing initializer does not run `deinit`,
    /// so a mutex made earlier leaked when the address was refused (found by LeakSanitizer).
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    private var requests: [Request] = []
    private enum Request {
        case send(Int, [UInt8])
        case close(Int)
        case idleExempt(Int, Bool)
        case awaitingAnswer(Int, Bool)
        case stop
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
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
        }
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
    /// Keeps `client` open while its answer is held back (a `listen` waiting for the device),
    /// even once it has finished sending: a client that shuts down its sending side after its last
    /// command (`printf 'listen\n' | nc`) still gets that answer. Send the answer before ending this.
    public func setAwaitingAnswer(_ client: Client, _ awaiting: Bool) { enqueue(.awaitingAnswer(client.id, awaiting)) }
    /// Makes `run` return after closing every client.
    public func stop() { enqueue(.stop) }

    private func enqueue(_ request: Request) {
        pthread_mutex_lock(lock)
        requests.append(request)
        pthread_mutex_unlock(lock)
        wake.signal()
    }

    /// Requests from other threads, and from the handler on this one, applied to `table`.
    func applyRequests(to table: LineConnections, _ handler: (Event) -> Void) {
        pthread_mutex_lock(lock)
        let pending = requests
        requests.removeAll()
        pthread_mutex_unlock(lock)
        for request in pending {
            switch request {
            case let .send(id, bytes):
                guard let c = table[id] else { continue }
                c.output += bytes
                if c.output.count > limits.disconnectPendingBytes { table.drop(c, "too much unread output", handler) }
            case let .close(id):
                table[id]?.closeAfterFlush = true
            case let .idleExempt(id, exempt):
                table[id]?.idleExempt = exempt
                table[id]?.lastActivity = Self.milliseconds()
            case let .awaitingAnswer(id, awaiting):
                table[id]?.awaitingAnswer = awaiting
            case .stop:
                table.stopping = true
            }
        }
    }

    static func milliseconds() -> Int64 { SystemClock.monotonicMilliseconds() }
}
