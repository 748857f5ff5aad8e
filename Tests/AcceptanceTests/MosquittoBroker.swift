import Foundation
import Glibc
import SoundtraceTestSupport

/// A real `mosquitto` broker (Debian's package) for one test, on a free loopback port, with a
/// generated configuration: anonymous, or one account from `mosquitto_passwd`. Nothing persists,
/// so a restart forgets every retained message, as a broker without persistence does.
final class MosquittoBroker {
    let port: Int
    let directory: String
    private var child: ChildProcess?

    static let binary = "/usr/sbin/mosquitto"

    /// Starts the broker; `account` (user, password) turns anonymous access off; `tls` serves TLS
    /// only, with a certificate for 127.0.0.1 signed by a CA made for this broker (`ca.pem` in
    /// `directory`).
    init(name: String, account: (String, String)? = nil, tls: Bool = false) throws {
        directory = Microphones.shared.directory + "/broker-\(name)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = try Self.freePort()
        var config = "listener \(port) 127.0.0.1\npersistence false\nlog_dest stderr\n"
        if tls {
            try Self.makeCertificates(in: directory)
            config += "cafile \(directory)/ca.pem\ncertfile \(directory)/server.pem\nkeyfile \(directory)/server.key\n"
        }
        if let (user, password) = account {
            let passwords = directory + "/passwords"
            let made = try ChildProcess(
                path: "/usr/bin/mosquitto_passwd", arguments: ["-c", "-b", passwords, user, password], environment: [:])
            guard made.waitForExit() == 0 else { throw TestFailure("mosquitto_passwd failed") }
            config += "allow_anonymous false\npassword_file \(passwords)\n"
        } else {
            config += "allow_anonymous true\n"
        }
        try config.write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
        try start()
    }

    deinit { stop() }

    /// Starts it (again) on the same port and waits until it accepts connections.
    func start() throws {
        child = try ChildProcess(
            path: Self.binary, arguments: ["-c", directory + "/mosquitto.conf"], environment: [:],
            stderr: directory + "/broker.log")
        let deadline = ProtocolConnection.now() + 10_000
        while ProtocolConnection.now() < deadline {
            if Self.accepts(port) { return }
            usleep(20_000)
        }
        throw TestFailure("mosquitto did not listen on port \(port) within 10 s")
    }

    /// Kills it: the test process may hold SIGTERM blocked, which children inherit, and a broker
    /// without persistence loses nothing more to SIGKILL.
    func stop() {
        guard let child else { return }
        child.send(SIGKILL)
        _ = child.waitForExit()
        self.child = nil
    }

    /// The `mqtt_*` lines of a daemon configuration for this broker.
    func configuration(prefix: String, extra: String = "") -> String {
        "mqtt_host = 127.0.0.1\nmqtt_port = \(port)\nmqtt_topic_prefix = \(prefix)\n" + extra
    }

    /// A CA (`ca.pem`) and a server certificate for 127.0.0.1 and localhost signed by it
    /// (`server.pem`, `server.key`), made with the openssl command; also a CA of its own.
    static func makeCertificates(in folder: String, serverToo: Bool = true) throws {
        func openssl(_ arguments: [String]) throws {
            let run = try ChildProcess(path: "/usr/bin/openssl", arguments: arguments, environment: [:], stderr: folder + "/openssl.log")
            guard run.waitForExit() == 0 else {
                throw TestFailure(
                    "openssl \(arguments.prefix(2).joined(separator: " ")) failed: \((try? String(contentsOfFile: folder + "/openssl.log", encoding: .utf8)) ?? "")"
                )
            }
        }
        try openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", folder + "/ca.key", "-out", folder + "/ca.pem", "-days", "2",
            "-subj", "/CN=Soundtrace test CA"
        ])
        guard serverToo else { return }
        try openssl([
            "req", "-newkey", "rsa:2048", "-nodes", "-keyout", folder + "/server.key", "-out", folder + "/server.csr", "-subj",
            "/CN=localhost"
        ])
        try "subjectAltName = IP:127.0.0.1, DNS:localhost\n".write(toFile: folder + "/server.ext", atomically: true, encoding: .utf8)
        try openssl([
            "x509", "-req", "-in", folder + "/server.csr", "-CA", folder + "/ca.pem", "-CAkey", folder + "/ca.key", "-CAcreateserial",
            "-out", folder + "/server.pem", "-days", "2", "-extfile", folder + "/server.ext"
        ])
        // mosquitto started as root reads its files as the mosquitto user.
        chmod(folder + "/server.key", 0o644)
    }

    /// Publishes one message with `mosquitto_pub`.
    func publish(_ topic: String, _ payload: String, retained: Bool = false) throws {
        let pub = try ChildProcess(
            path: "/usr/bin/mosquitto_pub",
            arguments: ["-h", "127.0.0.1", "-p", String(port), "-t", topic, "-m", payload] + (retained ? ["-r"] : []),
            environment: [:])
        guard pub.waitForExit() == 0 else { throw TestFailure("mosquitto_pub \(topic) \(payload) failed") }
    }

    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw TestFailure("no free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// `mosquitto_sub` on every topic under a prefix, its lines read back as messages.
final class MQTTSubscriber {
    struct Message: Equatable, CustomStringConvertible {
        let topic: String
        let retained: Bool
        let payload: String
        var description: String { "\(topic)\(retained ? " (retained)" : "") \(payload)" }
    }

    private let child: ChildProcess
    private let output: String

    init(_ broker: MosquittoBroker, prefix: String) throws {
        output = broker.directory + "/sub-\(UUID().uuidString.prefix(8)).log"
        // stdbuf: mosquitto_sub's stdout is a file, which stdio would otherwise write in blocks.
        child = try ChildProcess(
            path: "/usr/bin/stdbuf",
            arguments: [
                "-oL", "/usr/bin/mosquitto_sub", "-h", "127.0.0.1", "-p", String(broker.port), "-t", prefix + "/#", "-F", "%t\t%r\t%p"
            ],
            environment: [:], stdout: output)
        // mosquitto_sub says nothing when subscribed; a retained probe tells when it is.
        try broker.publish(prefix + "/probe", "ready", retained: true)
        _ = try waitFor("the subscription") { $0.topic == prefix + "/probe" }
    }

    deinit {
        child.send(SIGKILL)
        _ = child.waitForExit()
    }

    var messages: [Message] {
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3 else { return nil }
            return Message(topic: String(parts[0]), retained: parts[1] == "1", payload: String(parts[2]))
        }
    }

    /// The first message (oldest first) after the first `skip` that matches, waiting up to `seconds`.
    func waitFor(_ what: String, after skip: Int = 0, seconds: Int = 15, _ matches: (Message) -> Bool) throws -> Message {
        let deadline = ProtocolConnection.now() + seconds * 1000
        while true {
            if let found = messages.dropFirst(skip).first(where: matches) { return found }
            guard ProtocolConnection.now() < deadline else {
                throw TestFailure(
                    "no MQTT message for \(what) within \(seconds) s; got:\n\(messages.map(\.description).joined(separator: "\n"))")
            }
            usleep(20_000)
        }
    }
}
