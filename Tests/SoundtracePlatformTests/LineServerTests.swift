import Foundation
import Glibc
import SoundtraceProtocol
import Testing

@testable import SoundtracePlatform

/// A blocking loopback client with a 5 s receive timeout (a bound, not a synchronization sleep).
final class TestClient {
    let fd: Int32

    /// `source`: the loopback address to connect from (127.0.0.0/8 is all this machine's), so that
    /// a test can have clients from several addresses.
    init(port: Int, from source: String = "127.0.0.1") throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close(fd) }

    func send(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Everything until the peer closes (or the timeout).
    func readToEnd() -> String {
        var all: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            all += buffer.prefix(n)
        }
        return String(decoding: all, as: UTF8.self)
    }

    /// Whether something (a line, or the end) arrives within `milliseconds`.
    func waitReadable(milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }

    /// One line (without the newline).
    func readLine() -> String? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while recv(fd, &byte, 1, 0) == 1 {
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        return nil
    }
}

@Suite(.serialized) struct LineServerTests {
    final class Recorder: @unchecked Sendable {
        // @unchecked: `events` and `clients` are touched only while `lock` is held (the server
        // thread appends while the test reads). The readers hand out copies in buffers of their
        // own: a copy sharing the recorder's buffer would be read after the lock is released, and
        // ThreadSanitizer cannot see the Swift runtime's reference counting that makes the next
        // append copy or reuse that buffer safely, so it would report a race on it.
        let lock = NSCondition()
        private var events: [String] = []
        var clients: [LineServer.Client] = []
        /// `hold` parks the server thread on this until the test signals it.
        let gate = DispatchSemaphore(value: 0)
        func add(_ text: String) {
            lock.lock()
            events.append(text)
            lock.broadcast()
            lock.unlock()
        }
        var connected: [LineServer.Client] {
            lock.lock()
            defer { lock.unlock() }
            return clients.map { $0 }
        }
        /// What the server thread recorded so far.
        var recorded: [String] {
            lock.lock()
            defer { lock.unlock() }
            return events.map { $0 }
        }

        /// Waits until the server thread records `event` (false after 5 s: the test then fails).
        func waitFor(_ event: String) -> Bool {
            let deadline = Date().addingTimeInterval(5)
            lock.lock()
            defer { lock.unlock() }
            while !events.contains(event) {
                if !lock.wait(until: deadline) { return events.contains(event) }
            }
            return true
        }
    }

    /// Starts a server that answers `ping` with OK, `hold` with OK once the test signals
    /// `recorder.gate` (the server thread waits meanwhile), `guide N` with a long reply (numbered N) and
    /// anything else with an ACK, on a thread. `local`: which peers count as this machine (tests
    /// let other loopback addresses stand for LAN hosts).
    func start(
        _ limits: LineServer.Limits = LineServer.Limits(),
        local: @escaping @Sendable (String) -> Bool = SocketAddress.isLoopback
    ) throws -> (LineServer, Recorder, Thread) {
        let server = try LineServer(address: "127.0.0.1", port: 0, limits: limits, greeting: ProtocolText.greeting, isLocalPeer: local)
        let recorder = Recorder()
        let thread = Thread {
            server.run { event in
                switch event {
                case let .connected(client):
                    recorder.lock.lock()
                    recorder.clients.append(client)
                    recorder.lock.unlock()
                    recorder.add("connected loopback=\(client.isLoopback)")
                case let .line(client, bytes):
                    switch ProtocolRequest.parse(bytes[...]) {
                    case let .success(request) where request.command == "ping":
                        server.send(ProtocolText.reply([]), to: client)
                    case let .success(request) where request.command == "hold":
                        recorder.add("holding")
                        recorder.gate.wait()
                        server.send(ProtocolText.reply([]), to: client)
                    case let .success(request) where request.command == "later":
                        // Answered later, from the test's thread, as the daemon answers a deferred listen.
                        server.setAwaitingAnswer(client, true)
                        recorder.add("later")
                    case let .success(request) where request.command == "guide":
                        recorder.add("guide \(request.arguments.first ?? "")")
                        let text = "\(request.arguments.first ?? "") " + String(repeating: "g", count: 90)
                        server.send(ProtocolText.reply(Array(repeating: ("line", text), count: Self.guideLines)), to: client)
                    case .success(let request):
                        server.send(ProtocolText.reply(ProtocolError(.unknownCommand, command: request.command, "unknown")), to: client)
                    case .failure:
                        server.close(client)
                    }
                case let .disconnected(_, reason):
                    recorder.add("disconnected \(reason)")
                }
            }
            recorder.add("stopped")
        }
        thread.start()
        return (server, recorder, thread)
    }

    @Test func greetsAnswersAndClosesOnJunk() throws {
        let (server, recorder, _) = try start()
        defer { server.stop() }
        let client = try TestClient(port: server.port)
        #expect(client.readLine() == "OK SOUNDTRACE 1")
        client.send("ping\n")
        #expect(client.readLine() == "OK")
        client.send("frobnicate\n")
        #expect(client.readLine() == "ACK [5@0] {frobnicate} unknown")
        client.send("GET / HTTP/1.1\r\n")
        #expect(client.readToEnd() == "")
        #expect(recorder.recorded.first == "connected loopback=true")
    }

    @Test func aLineTooLongIsRefusedAndTheClientClosed() throws {
        let (server, _, _) = try start()
        defer { server.stop() }
        let client = try TestClient(port: server.port)
        _ = client.readLine()
        client.send(String(repeating: "x", count: 5000))
        #expect(client.readToEnd() == "ACK [2@0] {} line longer than 1024 bytes\n")
    }

    @Test func aMaximalLineEndingInCRLFIsALine() throws {
        let (server, _, _) = try start()
        defer { server.stop() }
        let client = try TestClient(port: server.port)
        _ = client.readLine()
        // `ping` padded with spaces to exactly the limit, then "\r\n": the terminator does not count.
        let longest = "ping" + String(repeating: " ", count: ProtocolRequest.maxLineBytes - 4)
        client.send(longest + "\r\n")
        #expect(client.readLine() == "OK")
        client.send(longest + " \r\n")
        #expect(client.readToEnd() == "ACK [2@0] {} line longer than 1024 bytes\n")
    }

    @Test func clientsBeyondTheCapAreRefusedVisibly() throws {
        var limits = LineServer.Limits()
        limits.maxClients = 2
        let (server, _, _) = try start(limits)
        defer { server.stop() }
        let a = try TestClient(port: server.port)
        let b = try TestClient(port: server.port)
        #expect(a.readLine() == "OK SOUNDTRACE 1")
        #expect(b.readLine() == "OK SOUNDTRACE 1")
        let c = try TestClient(port: server.port)
        #expect(c.readToEnd() == "ACK [56@0] {} too many clients (2); try again later\n")
        // The first two still work.
        a.send("ping\n")
        #expect(a.readLine() == "OK")
    }

    @Test func idleClientsAreClosed() throws {
        var limits = LineServer.Limits()
        limits.idleTimeoutMilliseconds = 300
        let (server, recorder, _) = try start(limits)
        defer { server.stop() }
        let client = try TestClient(port: server.port)
        let started = ContinuousClock.now
        _ = client.readLine()
        #expect(client.readToEnd() == "")
        #expect(ContinuousClock.now - started >= .milliseconds(250))
        #expect(recorder.waitFor("disconnected idle timeout"))
    }

    @Test func aClientWaitingForTheServerIsNotIdle() throws {
        var limits = LineServer.Limits()
        limits.idleTimeoutMilliseconds = 300
        let (server, recorder, _) = try start(limits)
        defer { server.stop() }
        let client = try TestClient(port: server.port)
        _ = client.readLine()
        recorder.lock.lock()
        let connected = recorder.clients.first
        recorder.lock.unlock()
        let target = try #require(connected)
        server.setIdleExempt(target, true)
        usleep(800_000)  // well past the idle limit: an exempt client stays
        server.send("still here\n", to: target)
        #expect(client.readLine() == "still here")
        // Once the wait is over, the idle time counts again from then.
        server.setIdleExempt(target, false)
        let released = ContinuousClock.now
        #expect(client.readToEnd() == "")
        #expect(ContinuousClock.now - released >= .milliseconds(250))
        #expect(recorder.waitFor("disconnected idle timeout"))
    }

    @Test func aClientThatDoesNotReadIsDroppedNotBuffered() throws {
        var limits = LineServer.Limits()
        limits.maxPendingBytes = 64 * 1024
        let (server, recorder, _) = try start(limits)
        defer { server.stop() }
        let client = try TestClient(port: server.port)
        _ = client.readLine()
        recorder.lock.lock()
        let connected = recorder.clients.first
        recorder.lock.unlock()
        let target = try #require(connected)
        let chunk = String(repeating: "y", count: 1000) + "\n"
        // Far more than the socket buffers and the queue limit together, never read by the client.
        for _ in 0..<4000 { server.send(chunk, to: target) }
        #expect(recorder.waitFor("disconnected too much unread output"))
    }

    static let guideLines = 20

    @Test func aClientThatPipelinesGetsEveryReplyInOrder() throws {
        var limits = LineServer.Limits()
        limits.maxPendingBytes = 16 * 1024
        let (server, recorder, _) = try start(limits)
        defer { server.stop() }
        let client = try TestClient(port: server.port)
        _ = client.readLine()
        // 400 commands in one write, each answered with ~2 KiB: 50 times the limit and 12 times
        // the disconnect bound. Handled all at once they would pile up and drop the client; the
        // server instead holds the lines back while the replies wait unread.
        let count = 400
        client.send((1...count).map { "guide \($0)\n" }.joined())
        var answered = 0
        while answered < count, let line = client.readLine() {
            if line == "OK" {
                answered += 1
                continue
            }
            let expected = "line: \(answered + 1) " + String(repeating: "g", count: 90)
            guard line == expected else {
                Issue.record("reply \(answered + 1) got \(line.prefix(40))")
                break
            }
        }
        #expect(answered == count)
        client.send("ping\n")
        #expect(client.readLine() == "OK")
        #expect(!recorder.recorded.contains { $0.hasPrefix("disconnected") })
    }

    @Test func aClientThatSendsItsBatchAndShutsDownStillGetsItsReplies() throws {
        var limits = LineServer.Limits()
        limits.maxPendingBytes = 16 * 1024
        let (server, recorder, _) = try start(limits)
        defer { server.stop() }
        let client = try TestClient(port: server.port)
        _ = client.readLine()
        client.send((1...100).map { "guide \($0)\n" }.joined())
        shutdown(client.fd, Int32(SHUT_WR))
        let replies = client.readToEnd()
        #expect(replies.components(separatedBy: "\n").filter { $0 == "OK" }.count == 100)
        #expect(replies.hasSuffix("line: 100 " + String(repeating: "g", count: 90) + "\nOK\n"))
        #expect(recorder.waitFor("disconnected client closed"))
    }

    /// `printf 'listen\n' | nc`: a client that shuts down its sending side right after a command
    /// whose answer the handler holds back (a `listen` waiting for a slow device) is kept until
    /// that answer is written, then closed.
    @Test func aClientThatShutsDownIsKeptForAnAnswerHeldBack() throws {
        let (server, recorder, _) = try start()
        defer { server.stop() }
        let client = try TestClient(port: server.port)
        _ = client.readLine()
        client.send("later\n")
        shutdown(client.fd, Int32(SHUT_WR))
        #expect(recorder.waitFor("later"))
        recorder.lock.lock()
        let connected = recorder.clients.first
        recorder.lock.unlock()
        let target = try #require(connected)
        // The end of its input is read meanwhile; the connection stays (nothing arrives, not even the end).
        #expect(!client.waitReadable(milliseconds: 300))
        server.send(ProtocolText.reply([("answer", "late")]), to: target)
        server.setAwaitingAnswer(target, false)
        #expect(client.readToEnd() == "answer: late\nOK\n")
        #expect(recorder.waitFor("disconnected client closed"))
    }

    @Test func stopEndsRun() throws {
        let (server, recorder, _) = try start()
        _ = try TestClient(port: server.port)
        server.stop()
        #expect(recorder.waitFor("stopped"))
    }

    @Test func badAddressesAndBusyPortsAreClearErrors() throws {
        #expect(throws: LineServer.Failure.invalidAddress("not-an-ip")) {
            try LineServer(address: "not-an-ip", port: 0, greeting: "x")
        }
        let first = try LineServer(address: "127.0.0.1", port: 0, greeting: "x")
        do {
            _ = try LineServer(address: "127.0.0.1", port: first.port, greeting: "x")
            Issue.record("a second listener on the same port succeeded")
        } catch {
            #expect(error.description.contains("port \(first.port)") && error.description.contains("choose another port"))
        }
    }
}
