import Glibc
import SoundtraceTestSupport

/// A test's client of the line protocol over TCP: sends lines, reads replies with timeouts.
final class ProtocolConnection {
    enum Reply: Equatable {
        case ok([Pair])
        case ack(String)

        var pairs: [Pair] { if case let .ok(p) = self { return p } else { return [] } }
        var ackLine: String? { if case let .ack(line) = self { return line } else { return nil } }
        func value(_ key: String) -> String? { pairs.first { $0.key == key }?.value }
        func values(_ key: String) -> [String] { pairs.filter { $0.key == key }.map(\.value) }
    }

    struct Pair: Equatable {
        let key: String
        let value: String
    }

    private let descriptor: Int32
    private var buffer: [UInt8] = []

    /// Connects to `host`:`port`; with `networkNamespace` (`/run/netns/NAME`, `/proc/PID/ns/net`)
    /// the socket is made in that network namespace, so the test talks from inside it.
    init(host: String = "127.0.0.1", port: Int, networkNamespace: String? = nil) throws {
        if let networkNamespace {
            descriptor = try NetworkNamespaces.tcpSocket(in: networkNamespace)
        } else {
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        }
        guard descriptor >= 0 else { throw TestFailure("cannot make a socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw TestFailure("cannot connect to \(host):\(port): \(reason)")
        }
        greetingLine = try readLine(timeoutMilliseconds: 5000) ?? ""
    }

    private(set) var greetingLine = ""

    deinit { close(descriptor) }

    func send(_ line: String) throws { try sendRaw(Array((line + "\n").utf8)) }

    /// Shuts down the sending side, as `printf 'listen\n' | nc` does after its last line; replies
    /// can still be read.
    func finishSending() { shutdown(descriptor, Int32(SHUT_WR)) }

    func sendRaw(_ bytes: [UInt8]) throws {
        let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw TestFailure("send failed: \(String(cString: strerror(errno)))") }
    }

    /// One command and its reply.
    func command(_ line: String, timeoutMilliseconds: Int = 10_000) throws -> Reply {
        try send(line)
        return try reply(timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Reads one reply: pairs up to OK, or one ACK line.
    func reply(timeoutMilliseconds: Int = 10_000) throws -> Reply {
        var pairs: [Pair] = []
        while true {
            guard let line = try readLine(timeoutMilliseconds: timeoutMilliseconds) else {
                throw TestFailure("connection closed while waiting for a reply (got \(pairs))")
            }
            if line == "OK" { return .ok(pairs) }
            if line.hasPrefix("ACK ") { return .ack(line) }
            guard let colon = line.firstIndex(of: ":") else { throw TestFailure("not a reply line: \(line)") }
            pairs.append(Pair(key: String(line[..<colon]), value: String(line[line.index(colon, offsetBy: 2)...])))
        }
    }

    /// The next line, nil when the server closed the connection; throws on timeout.
    func readLine(timeoutMilliseconds: Int) throws -> String? {
        let deadline = Self.now() + timeoutMilliseconds
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return line
            }
            let remaining = deadline - Self.now()
            guard remaining > 0 else {
                throw TestFailure("no line within \(timeoutMilliseconds) ms (have \(String(decoding: buffer, as: UTF8.self)))")
            }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, Int32(remaining)) <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count <= 0 {
                return buffer.isEmpty
                    ? nil
                    : {
                        defer { buffer.removeAll() }
                        return String(decoding: buffer, as: UTF8.self)
                    }()
            }
            buffer += chunk.prefix(count)
        }
    }

    /// True when the server closes the connection within the timeout (after any pending lines).
    func isClosedByServer(timeoutMilliseconds: Int = 5000) -> Bool {
        let deadline = Self.now() + timeoutMilliseconds
        while true {
            do {
                guard try readLine(timeoutMilliseconds: max(1, deadline - Self.now())) != nil else { return true }
            } catch {
                return false
            }
        }
    }

    /// Waits for the session's outcome with `idle state` and `session ID`.
    func waitForOutcome(_ session: String, timeoutMilliseconds: Int = 40_000) throws -> Reply {
        let deadline = Self.now() + timeoutMilliseconds
        while true {
            let reply = try command("session \(session)")
            if reply.value("state") != "listening" { return reply }
            guard Self.now() < deadline else { throw TestFailure("session \(session) still listening after \(timeoutMilliseconds) ms") }
            _ = try command("idle state", timeoutMilliseconds: max(1, deadline - Self.now()))
        }
    }

    static func now() -> Int {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int(ts.tv_sec) * 1000 + Int(ts.tv_nsec) / 1_000_000
    }
}
