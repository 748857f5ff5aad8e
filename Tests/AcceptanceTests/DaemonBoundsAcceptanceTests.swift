import Foundation
import Glibc
import Testing

/// The real `soundtraced` under clients that would hold it hostage or flood its log: waiting
/// clients giving way to one from this machine, a slot kept for this machine and a share per LAN
/// address, a line dripped a byte at a time cut off with a reason, and listen/cancel churn leaving
/// a short log.
@Suite(.serialized) struct DaemonBoundsAcceptanceTests {
    let mics = Microphones.shared

    /// Sends `ping` and `idle` in one write and returns once `ping` is answered: the daemon reads
    /// both lines together and handles them in order, so the client then waits in `idle`.
    private func startWaiting(_ connection: ProtocolConnection) throws {
        try connection.sendRaw(Array("ping\nidle\n".utf8))
        #expect(try connection.reply() == .ok([]))
    }

    @Test func waitingClientsCannotLockOutTheBoxAndADrippedLineIsCutOff() throws {
        let state = DaemonProcess.stateDirectory("waiting")
        let config = state + "-config"
        try "max_clients = 3\nline_timeout_seconds = 1\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(stateDirectory: state, config: config)
        defer { daemon.stop() }
        let waiting = try (0..<3).map { _ in try daemon.connect() }
        for connection in waiting { try startWaiting(connection) }

        // Every slot is held by a client in `idle` (exempt from the idle timeout), and still the
        // box's own CLI gets in: the client that has waited longest gives way, told why.
        let local = try daemon.connect()
        #expect(local.greetingLine == "OK SOUNDTRACE 1")
        #expect(try local.command("status").value("state") == "idle")
        let told = try waiting[0].readLine(timeoutMilliseconds: 5000)
        #expect(
            told
                == "ACK [56@0] {} every slot (3) is taken and a client on this machine needs one: closing this waiting connection; reconnect to wait again"
        )
        #expect(waiting[0].isClosedByServer())
        #expect(try waiting[1].command("noidle") == .ok([]))

        // A byte every 300 ms: never idle, but the line is never finished either.
        let started = ProtocolConnection.now()
        var answer: String?
        for byte in Array("status".utf8) + Array(repeating: UInt8(ascii: " "), count: 30) {
            try local.sendRaw([byte])
            if let line = try? local.readLine(timeoutMilliseconds: 300) {
                answer = line
                break
            }
        }
        #expect(answer == "ACK [2@0] {} line not finished within 1 s; send each command as one line ending in a newline")
        #expect(ProtocolConnection.now() - started >= 900)
        #expect(local.isClosedByServer())
        // The slot it held is free again.
        #expect(try daemon.connect().command("ping") == .ok([]))
    }

    @Test(.enabled(if: LocalAddress.nonLoopbackIPv4 != nil, "needs an IPv4 address other than loopback to connect from"))
    func aLANAddressGetsItsShareButNeverTheLastSlot() throws {
        let lan = try #require(LocalAddress.nonLoopbackIPv4)
        let state = DaemonProcess.stateDirectory("lan-slots")
        let tokenFile = state + "-token"
        try "\(DaemonAcceptanceTests.strongToken)\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let config = state + "-config"
        try "token_file = \(tokenFile)\nmax_clients = 6\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(stateDirectory: state, extra: ["--bind", "0.0.0.0"], config: config)
        defer { daemon.stop() }
        var held = [try daemon.connect()]
        for _ in 0..<4 {
            let connection = try ProtocolConnection(host: lan, port: daemon.port)
            #expect(connection.greetingLine == "OK SOUNDTRACE 1")
            held.append(connection)
        }
        // A fifth from the same address: over its share of 4.
        let fifth = try ProtocolConnection(host: lan, port: daemon.port)
        #expect(fifth.greetingLine == "ACK [56@0] {} too many connections from \(lan) (4); close one and try again")
        #expect(fifth.isClosedByServer())

        // One of them goes (the daemon hangs up on junk), another local client comes: 5 of 6 taken.
        try held[4].send("GET / HTTP/1.1")
        #expect(held[4].isClosedByServer())
        held.append(try daemon.connect())
        // The address is within its share now, but the last slot is kept for this machine.
        let sixth = try ProtocolConnection(host: lan, port: daemon.port)
        #expect(sixth.greetingLine == "ACK [56@0] {} too many clients (5 for the network, 1 kept for this machine); try again later")
        #expect(sixth.isClosedByServer())
        let last = try daemon.connect()
        #expect(try last.command("ping") == .ok([]))
        #expect(try held[1].command("ping") == .ok([]))
    }

    @Test func listenCancelChurnLeavesABoundedLog() throws {
        let state = DaemonProcess.stateDirectory("churn")
        // A fixed microphone, not the switch, which DaemonAcceptanceTests plug while this runs.
        let daemon = try DaemonProcess(stateDirectory: state, device: "st_acc_silence")
        let client = try daemon.connect()
        var cycles = 0
        let started = ProtocolConnection.now()
        while ProtocolConnection.now() - started < 3000 {
            _ = try client.command("listen")
            _ = try client.command("cancel")
            cycles += 1
        }
        #expect(daemon.stop() == 0)
        // Each cycle alone logs two lines and shows two states, so without coalescing the log and
        // the console would each hold at least 2 × cycles lines.
        try #require(cycles >= 50, "only \(cycles) listen/cancel cycles in 3 s: too few to tell")
        // The churn spans at most two windows of the coalescer (10 s each, at most 36 lines: 30
        // lines and 6 summary lines), plus the start and stop lines.
        let bound = 2 * 36 + 10
        let log = daemon.log.split(separator: "\n")
        #expect(log.count <= bound, "\(log.count) log lines for \(cycles) cycles:\n\(log.suffix(20).joined(separator: "\n"))")
        #expect(log.contains { $0.hasPrefix("soundtraced: left out ") && $0.contains("more lines like \"session s-") }, "\(log.suffix(20))")
        #expect(log.last == "soundtraced: stopped")
        let console = daemon.output.split(separator: "\n")
        #expect(
            console.count <= bound, "\(console.count) console lines for \(cycles) cycles:\n\(console.suffix(20).joined(separator: "\n"))")
        #expect(console.contains { $0.hasPrefix("left out ") }, "\(console.suffix(20))")
    }
}

/// This machine's addresses, for tests that need a client the daemon sees as coming from the LAN.
enum LocalAddress {
    /// The first IPv4 address of an interface that is up and not loopback, if there is one.
    static let nonLoopbackIPv4: String? = {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return nil }
        defer { freeifaddrs(list) }
        var entry = list
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            let flags = Int32(current.pointee.ifa_flags)
            guard let address = current.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0
            else { continue }
            var ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            guard inet_ntop(AF_INET, &ipv4, &text, socklen_t(text.count)) != nil else { continue }
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return nil
    }()
}
