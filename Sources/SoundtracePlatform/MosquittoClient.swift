import CLibmosquitto
import CMosquitto
import Glibc

/// One connection to an MQTT broker through libmosquitto, driven by its owner's own `poll` loop
/// (`descriptor`, `wantsWrite`, `read`, `write`, `keepAlive`) rather than libmosquitto's thread:
/// that loop also waits on the daemon's wake-up descriptor, and sleeps until the keepalive is due.
/// Confined to the thread that made it; libmosquitto's callbacks run inside `read`, `write` and
/// `keepAlive` on that thread and only collect `events` for the owner to act on afterwards
/// (publishing from inside a callback would only queue).
public final class MosquittoClient {
    /// What the broker link reported.
    public enum Event: Equatable, Sendable {
        /// The broker accepted the connection (CONNACK 0).
        case connected
        /// The broker refused the connection: its reason (bad user name or password, not authorised, …).
        case refused(String)
        /// The connection ended; why.
        case disconnected(String)
        case message(topic: String, payload: [UInt8])
    }

    /// Who to reach and as whom.
    public struct Options: Sendable {
        public var host: String
        public var port: Int
        public var clientId: String
        public var username: String?
        public var password: String?
        public var tlsCAFile: String?
        /// Seconds between keepalive pings on an idle link; the broker drops a link silent for 1.5 of them.
        public var keepAliveSeconds: Int
        /// Bytes of a received message's payload kept for the owner; the rest is dropped here, so
        /// that a huge message on a subscribed topic is not copied (libmosquitto has held it whole).
        public var messageBytesKept = 4096
        /// Published (retained) by the broker when the link dies without a clean disconnect.
        public var willTopic: String?
        public var willPayload = ""

        public init(host: String, port: Int, clientId: String, keepAliveSeconds: Int) {
            self.host = host
            self.port = port
            self.clientId = clientId
            self.keepAliveSeconds = keepAliveSeconds
        }
    }

    /// Why a client could not be made or an attempt failed.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    public let options: Options
    private let library: UnsafePointer<soundtrace_mosquitto_library>
    private var handle: OpaquePointer?
    /// Collected by the callbacks; the owner takes them with `takeEvents`.
    private var events: [Event] = []

    /// Takes the MQTT library (Debian's libmosquitto, loaded on first use, for TLS; the built-in one
    /// otherwise) and prepares a client; nothing touches the network yet.
    public init(_ options: Options) throws(Failure) {
        self.options = options
        var error = [CChar](repeating: 0, count: 256)
        // Plain TCP uses the library compiled in; TLS needs Debian's, which brings OpenSSL.
        let tls = options.tlsCAFile != nil
        guard let library = soundtrace_mosquitto_load(tls ? 1 : 0, &error, error.count) else {
            let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw Failure(
                description: tls
                    ? "cannot load libmosquitto, which a TLS link (mqtt_tls_ca_file) needs: \(reason); install the libmosquitto1 package"
                    : "cannot use the built-in MQTT library: \(reason)")
        }
        self.library = library
        let lib = library.pointee
        // A clean session: commands sent while the kiosk was away are not replayed when it returns.
        guard let handle = lib.create(options.clientId, true, nil) else {
            throw Failure(description: "libmosquitto could not make a client: \(String(cString: strerror(errno)))")
        }
        self.handle = handle
        // The callbacks find this object through the user data; it destroys the handle first (deinit).
        lib.user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        lib.connect_callback_set(handle) { _, user, code in MosquittoClient.owner(user)?.connectAnswered(code) }
        lib.disconnect_callback_set(handle) { _, user, code in MosquittoClient.owner(user)?.linkEnded(code) }
        lib.message_callback_set(handle) { _, user, message in
            guard let message else { return }
            MosquittoClient.owner(user)?.received(message.pointee)
        }
        _ = lib.int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
        if let topic = options.willTopic {
            let payload = Array(options.willPayload.utf8)
            let rc = payload.withUnsafeBytes { lib.will_set(handle, topic, Int32(payload.count), $0.baseAddress, 1, true) }
            try check(rc, "setting the last will")
        }
        if let username = options.username {
            try check(lib.username_pw_set(handle, username, options.password), "setting the user name and password")
        }
        if let ca = options.tlsCAFile {
            try check(lib.tls_set(handle, ca, nil, nil, nil, nil), "reading the CA certificate \(ca) (mqtt_tls_ca_file)")
        }
    }

    deinit {
        if let handle { library.pointee.destroy(handle) }
    }

    /// Opens the TCP (or TLS) connection and sends CONNECT; the broker's answer arrives as an
    /// event of a later `read`. Blocks the calling thread for the name lookup and the TCP
    /// handshake (libmosquitto 2.0's non-blocking connect never sends CONNECT when the handshake is
    /// still in progress), so only the link's own thread calls it.
    public func connect() throws(Failure) {
        guard let handle else { return }
        let rc = library.pointee.connect(handle, options.host, Int32(options.port), Int32(options.keepAliveSeconds))
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            let cause = errno
            if rc == MOSQ_ERR_EAI.rawValue {
                throw Failure(description: "cannot resolve \(options.host): \(String(cString: gai_strerror(cause)))")
            }
            if rc == MOSQ_ERR_ERRNO.rawValue {
                throw Failure(description: "cannot connect to \(options.host) port \(options.port): \(String(cString: strerror(cause)))")
            }
            throw Failure(description: "cannot connect to \(options.host) port \(options.port): \(explained(rc))")
        }
        failure = nil
    }

    /// Why the connection's last read or write failed, when one did (a TLS handshake may fail
    /// there rather than in `connect`); nil after a new `connect`.
    public private(set) var failure: String?

    /// libmosquitto's sentence for `rc`, and for a TLS error what to check: it says no more than
    /// "a TLS error", and these are the usual causes.
    private func explained(_ rc: Int32) -> String {
        guard rc == MOSQ_ERR_TLS.rawValue, let ca = options.tlsCAFile else { return reason(rc) }
        return
            "\(reason(rc)) (is the broker's certificate signed by the CA in mqtt_tls_ca_file \(ca), does it name \(options.host), and does the port serve TLS?)"
    }

    private func noteFailure(_ rc: Int32) {
        guard rc != MOSQ_ERR_SUCCESS.rawValue, rc != MOSQ_ERR_NO_CONN.rawValue, rc != MOSQ_ERR_CONN_LOST.rawValue else { return }
        failure = "the connection to \(options.host) port \(options.port) failed: \(explained(rc))"
    }

    /// The connection's socket, -1 while there is none.
    public var descriptor: Int32 {
        guard let handle else { return -1 }
        return library.pointee.socket(handle)
    }

    /// Whether bytes wait to be written (poll for POLLOUT).
    public var wantsWrite: Bool {
        guard let handle else { return false }
        return library.pointee.want_write(handle)
    }

    /// Reads what the socket holds.
    public func read() { if let handle { noteFailure(library.pointee.loop_read(handle, 1)) } }

    /// Writes what waits.
    public func write() { if let handle { noteFailure(library.pointee.loop_write(handle, 1)) } }

    /// Sends the keepalive ping when it is due, or ends a link whose broker stopped answering.
    public func keepAlive() { if let handle { _ = library.pointee.loop_misc(handle) } }

    /// Queues a message (QoS 0) and writes what the socket takes now; false without a connection.
    @discardableResult
    public func publish(topic: String, payload: String, retained: Bool) -> Bool {
        guard let handle else { return false }
        let bytes = Array(payload.utf8)
        let rc = bytes.withUnsafeBytes { library.pointee.publish(handle, nil, topic, Int32(bytes.count), $0.baseAddress, 0, retained) }
        return rc == MOSQ_ERR_SUCCESS.rawValue
    }

    @discardableResult
    public func subscribe(_ topic: String) -> Bool {
        guard let handle else { return false }
        return library.pointee.subscribe(handle, nil, topic, 0) == MOSQ_ERR_SUCCESS.rawValue
    }

    /// Sends DISCONNECT: the broker then does not publish the last will.
    public func disconnect() { if let handle { _ = library.pointee.disconnect(handle) } }

    /// The events since the last call.
    public func takeEvents() -> [Event] {
        defer { events = [] }
        return events
    }

    /// "libmosquitto 2.0.11", for the log.
    public var libraryVersion: String {
        var major: Int32 = 0
        var minor: Int32 = 0
        var revision: Int32 = 0
        _ = library.pointee.lib_version(&major, &minor, &revision)
        return "libmosquitto \(major).\(minor).\(revision)"
    }

    private func check(_ rc: Int32, _ what: String) throws(Failure) {
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw Failure(description: "\(what) failed: \(reason(rc))") }
    }

    /// libmosquitto's sentence for `rc`, without its full stop (it goes inside a longer line).
    private func reason(_ rc: Int32) -> String {
        guard let text = library.pointee.strerror(rc) else { return "error \(rc)" }
        var sentence = String(cString: text)
        if sentence.hasSuffix(".") { sentence.removeLast() }
        return sentence
    }

    private static func owner(_ user: UnsafeMutableRawPointer?) -> MosquittoClient? {
        user.map { Unmanaged<MosquittoClient>.fromOpaque($0).takeUnretainedValue() }
    }

    private func connectAnswered(_ code: Int32) {
        if code == 0 {
            events.append(.connected)
        } else {
            var text = library.pointee.connack_string(code).map { String(cString: $0) } ?? "code \(code)"
            if text.hasSuffix(".") { text.removeLast() }
            events.append(.refused("the broker refused the connection: \(text)"))
        }
    }

    private func linkEnded(_ code: Int32) {
        events.append(.disconnected(code == 0 ? "disconnected" : reason(code)))
    }

    private func received(_ message: mosquitto_message) {
        guard let topic = message.topic else { return }
        let count = min(Int(max(0, message.payloadlen)), options.messageBytesKept)
        let payload = message.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
        events.append(.message(topic: String(cString: topic), payload: payload))
    }
}
