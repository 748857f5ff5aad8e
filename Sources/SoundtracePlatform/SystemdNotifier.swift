import Glibc

/// Tells systemd about the service's state through `$NOTIFY_SOCKET` (one datagram per message, no
/// libsystemd): readiness, watchdog pings, stopping. Without a socket every call does nothing, so
/// the daemon runs the same outside systemd.
public final class SystemdNotifier: @unchecked Sendable {
    // @unchecked: the descriptor and address are set once in init and only read afterwards;
    // sendto on a datagram socket is safe from any thread.
    private let descriptor: Int32
    private var address = sockaddr_un()
    private let addressLength: socklen_t
    /// How often systemd expects a watchdog ping, from `$WATCHDOG_USEC` (half of it, as advised).
    public let watchdogIntervalMilliseconds: Int?

    /// Reads `NOTIFY_SOCKET` and `WATCHDOG_USEC` from `environment` (the process's by default).
    public init(environment: [String: String]? = nil) {
        let variables = environment ?? Self.processEnvironment()
        if let usec = variables["WATCHDOG_USEC"].flatMap({ Int($0) }), usec > 0 {
            watchdogIntervalMilliseconds = max(1, usec / 2000)
        } else {
            watchdogIntervalMilliseconds = nil
        }
        guard let path = variables["NOTIFY_SOCKET"], !path.isEmpty,
            path.utf8.count < MemoryLayout.size(ofValue: address.sun_path)
        else {
            descriptor = -1
            addressLength = 0
            return
        }
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        // "@name" is an abstract socket: its name starts with a zero byte.
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: bytes) }
        addressLength = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Whether a notification socket was given.
    public var isActive: Bool { descriptor >= 0 }

    /// The daemon is ready: catalog loaded, database open, port bound.
    public func ready(status: String) { send("READY=1\nSTATUS=\(Self.oneLine(status))") }
    /// The daemon is alive (call every `watchdogIntervalMilliseconds`).
    public func watchdog() { send("WATCHDOG=1") }
    /// The daemon is shutting down.
    public func stopping() { send("STOPPING=1") }
    /// A status line for `systemctl status`.
    public func status(_ text: String) { send("STATUS=\(Self.oneLine(text))") }

    private func send(_ message: String) {
        guard descriptor >= 0 else { return }
        let bytes = Array(message.utf8)
        var target = address
        _ = withUnsafePointer(to: &target) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bytes.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), socketAddress, addressLength) }
            }
        }
    }

    private static func oneLine(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.value < 0x20 ? " " : Character($0) }.prefix(200))
    }

    private static func processEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC"] {
            if let value = getenv(name) { result[name] = String(cString: value) }
        }
        return result
    }
}
