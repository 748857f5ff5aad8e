import Glibc
import SoundtraceCore
import Testing

@testable import SoundtracePlatform

/// Who may hold the server's slots, and for how long: a slot kept for this machine, a share per
/// network address, waiting clients giving way to a local one, and unfinished lines cut off.
/// Clients from 127.0.0.2, 127.0.0.3, … stand for LAN hosts (the server is told only 127.0.0.1 is local).
extension LineServerTests {
    static let onlyFirstLoopbackIsLocal: @Sendable (String) -> Bool = { $0 == "127.0.0.1" }

    /// Makes `client` wait for the server as `idle` does, and returns once the server has applied
    /// that (the line sent after it has arrived).
    private func wait(_ server: LineServer, _ target: LineServer.Client, _ client: TestClient) {
        server.setIdleExempt(target, true)
        server.send("waiting\n", to: target)
        #expect(client.readLine() == "waiting")
    }

    @Test func clientsWaitingInIdleGiveWayToALocalClient() throws {
        var limits = LineServer.Limits()
        limits.maxClients = 3
        let (server, recorder, _) = try start(limits)
        defer { server.stop() }
        let clients = try (0..<3).map { _ in try TestClient(port: server.port) }
        for client in clients { #expect(client.readLine() == "OK SOUNDTRACE 1") }
        #expect(recorder.waitFor("connected loopback=true"))
        let targets = recorder.connected
        try #require(targets.count == 3)
        // Every slot is held by a client waiting for the server, which the idle timeout spares.
        for (target, client) in zip(targets, clients) { wait(server, target, client) }

        let local = try TestClient(port: server.port)
        #expect(local.readLine() == "OK SOUNDTRACE 1")
        // The one that has waited longest is told why and closed; the others keep waiting.
        #expect(
            clients[0].readToEnd()
                == "ACK [56@0] {} every slot (3) is taken and a client on this machine needs one: closing this waiting connection; reconnect to wait again\n"
        )
        #expect(recorder.waitFor("disconnected made room for a local client"))
        clients[1].send("ping\n")
        #expect(clients[1].readLine() == "OK")
        local.send("ping\n")
        #expect(local.readLine() == "OK")
    }

    /// Found by bench/protocol-stress: a slot freed by a client that closed was still counted when
    /// the next client's connection was accepted in the same round, so a client that reconnected at
    /// once to a full server was refused by its own old connection.
    @Test func aClientThatClosedFreesItsSlotForOneConnectingRightAfter() throws {
        var limits = LineServer.Limits()
        limits.maxClients = 2
        let (server, recorder, _) = try start(limits)
        // Released in any case, so that a failed expectation cannot leave the server thread parked.
        defer {
            recorder.gate.signal()
            server.stop()
        }
        let staying = try TestClient(port: server.port)
        var leaving: TestClient? = try TestClient(port: server.port)
        #expect(staying.readLine() == "OK SOUNDTRACE 1")
        #expect(leaving?.readLine() == "OK SOUNDTRACE 1")
        // The server thread is parked in the handler while one client closes and another connects,
        // so that it sees the end of the one and the arrival of the other in the same round.
        staying.send("hold\n")
        #expect(recorder.waitFor("holding"))
        leaving = nil
        let next = try TestClient(port: server.port)
        recorder.gate.signal()
        #expect(staying.readLine() == "OK")
        #expect(next.readLine() == "OK SOUNDTRACE 1")
        next.send("ping\n")
        #expect(next.readLine() == "OK")
        withExtendedLifetime(leaving) {}
    }

    @Test func networkClientsLeaveTheLastSlotToThisMachine() throws {
        var limits = LineServer.Limits()
        limits.maxClients = 3
        let (server, recorder, _) = try start(limits, local: Self.onlyFirstLoopbackIsLocal)
        defer { server.stop() }
        let first = try TestClient(port: server.port, from: "127.0.0.2")
        let second = try TestClient(port: server.port, from: "127.0.0.3")
        #expect(first.readLine() == "OK SOUNDTRACE 1")
        #expect(second.readLine() == "OK SOUNDTRACE 1")
        #expect(recorder.connected.map(\.isLoopback) == [false, false])
        // Both wait in idle: network clients never give way, but they cannot take the last slot either.
        for (target, client) in zip(recorder.connected, [first, second]) { wait(server, target, client) }
        let third = try TestClient(port: server.port, from: "127.0.0.4")
        #expect(third.readToEnd() == "ACK [56@0] {} too many clients (2 for the network, 1 kept for this machine); try again later\n")

        let local = try TestClient(port: server.port)
        #expect(local.readLine() == "OK SOUNDTRACE 1")
        local.send("ping\n")
        #expect(local.readLine() == "OK")
        // Now every slot is taken and no local client waits: the next one is refused, visibly.
        let another = try TestClient(port: server.port)
        #expect(another.readToEnd() == "ACK [56@0] {} too many clients (3); try again later\n")
        first.send("ping\n")
        #expect(first.readLine() == "OK")
        // Connections are held to the end (an optimized build may release them after their last use).
        withExtendedLifetime(second) {}
    }

    @Test func oneNetworkAddressHoldsAtMostItsShare() throws {
        var limits = LineServer.Limits()
        limits.maxClientsPerAddress = 2
        let (server, _, _) = try start(limits, local: Self.onlyFirstLoopbackIsLocal)
        defer { server.stop() }
        let held = try (0..<2).map { _ in try TestClient(port: server.port, from: "127.0.0.2") }
        for client in held { #expect(client.readLine() == "OK SOUNDTRACE 1") }
        // Held to the end: an optimized build may release connections after their last use.
        let over = try TestClient(port: server.port, from: "127.0.0.2")
        #expect(over.readToEnd() == "ACK [56@0] {} too many connections from 127.0.0.2 (2); close one and try again\n")
        // Other addresses, and this machine, are not affected.
        let neighbour = try TestClient(port: server.port, from: "127.0.0.3")
        #expect(neighbour.readLine() == "OK SOUNDTRACE 1")
        let locals = try (0..<3).map { _ in try TestClient(port: server.port) }
        for client in locals { #expect(client.readLine() == "OK SOUNDTRACE 1") }
        withExtendedLifetime((held, neighbour, locals)) {}
    }

    @Test func aLineNotFinishedInTimeIsCutOffWithAReason() throws {
        var limits = LineServer.Limits()
        limits.lineTimeoutMilliseconds = 400
        let (server, recorder, _) = try start(limits)
        defer { server.stop() }
        let client = try TestClient(port: server.port)
        _ = client.readLine()
        // Slow but finished lines are fine: the time counts per line, from its first byte.
        client.send("pi")
        usleep(250_000)
        client.send("ng\npi")
        #expect(client.readLine() == "OK")
        usleep(250_000)
        client.send("ng\n")
        #expect(client.readLine() == "OK")

        // One byte every 100 ms keeps the client from ever being idle, but the line never ends.
        let started = ContinuousClock.now
        for byte in "ping and then some more".utf8 {
            client.send(String(UnicodeScalar(byte)))
            if client.waitReadable(milliseconds: 100) { break }
        }
        #expect(client.readToEnd() == "ACK [2@0] {} line not finished within 400 ms; send each command as one line ending in a newline\n")
        #expect(ContinuousClock.now - started >= .milliseconds(350))
        #expect(recorder.waitFor("disconnected line timeout"))
    }
}
