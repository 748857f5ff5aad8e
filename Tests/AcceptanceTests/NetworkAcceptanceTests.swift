import Foundation
import Glibc
import SoundtraceTestSupport
import Testing

/// The real `soundtraced` in network namespaces: an appliance with no network at all (only its own
/// loopback), and one served on a LAN to a client in another namespace across a veth pair, as a
/// phone or laptop would reach it. Needs root; skipped, with the reason, where namespaces are refused.
@Suite(.serialized) struct NetworkAcceptanceTests {
    let mics = Microphones.shared

    /// 32 characters of base64, as `head -c 24 /dev/urandom | base64` writes.
    static let token = "q7Vd2LkP9wZx4TnR0sYb8MfHc3GjUe1A"

    @Test(
        .enabled(
            if: NetworkNamespaces.unshareRefusal == nil,
            "needs a network namespace from `unshare --net` (root); this machine refused it (why: stderr)"))
    func aWholeRecognitionNeedsNoNetworkButItsOwnLoopback() throws {
        let ip = try SystemTool.path("ip")
        let nsenter = try SystemTool.path("nsenter")
        // A fresh namespace holds one interface, `lo`, and it is down: bring it up, then exec the daemon.
        let launcher = [
            try SystemTool.path("unshare"), "--net", "--", try SystemTool.path("sh"),
            "-c", "\(ip) link set lo up && exec \"$0\" \"$@\""
        ]
        let daemon = try DaemonProcess(
            stateDirectory: DaemonProcess.stateDirectory("offline"), device: "st_acc_ref_b",
            launcher: launcher)
        defer { daemon.stop() }
        let namespace = "/proc/\(daemon.child.pid)/ns/net"
        let inside = [nsenter, "--net=\(namespace)", "--"]

        // It really runs in another namespace, which has loopback and nothing else: no other link,
        // no address but loopback's, no route out.
        let ours = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/net")
        let its = try FileManager.default.destinationOfSymbolicLink(atPath: namespace)
        #expect(its != ours, "the daemon shares the test's network namespace \(ours)")
        let links = try SystemTool.must(inside + [ip, "-o", "link", "show"])
        #expect(links.split(separator: "\n").count == 1 && links.hasPrefix("1: lo:"), "\(links)")
        let addresses = try SystemTool.must(inside + [ip, "-o", "-4", "address", "show"])
        #expect(
            addresses.split(separator: "\n").map { $0.split(separator: " ").prefix(4).joined(separator: " ") } == [
                "1: lo inet 127.0.0.1/8"
            ],
            "\(addresses)")
        let route = try SystemTool.run(inside + [ip, "route", "get", "192.0.2.1"])
        #expect(route.status != 0 && route.output.contains("unreachable"), "\(route)")

        // A whole recognition, over the protocol from inside the namespace…
        let client = try daemon.connect(networkNamespace: namespace)
        #expect(client.greetingLine == "OK SOUNDTRACE 1")
        let started = try client.command("listen")
        let session = try #require(started.value("session"), "\(started)")
        let outcome = try client.waitForOutcome(session)
        let reference = mics.catalog.references[4].audio
        #expect(outcome.value("state") == "matched", "\(outcome)")
        #expect(outcome.value("reference") == reference.id)
        #expect(outcome.value("saved") == "yes")
        let event = try #require(outcome.value("event"), "\(outcome)")

        // …and with the companion CLI run in the namespace, as on the box itself.
        let cli = try SystemTool.run(
            inside + [Microphones.binary, "listen", "--json", "--port", String(daemon.port)],
            environment: mics.environment)
        #expect(cli.status == 0, "\(cli.output)")
        let object = try JSONSerialization.jsonObject(with: Data(cli.output.utf8)) as? [String: Any]
        #expect(object?["outcome"] as? String == "match", "\(cli.output)")
        #expect(object?["referenceId"] as? String == reference.id)
        let history = try client.command("history")
        #expect(history.values("reference") == [reference.id, reference.id], "\(history)")
        #expect(history.values("id").last == event)
        #expect(!daemon.log.contains("error:") && !daemon.log.contains("warning:"), "\(daemon.log)")
        #expect(daemon.stop() == 0)
    }

    @Test(
        .enabled(
            if: NetworkNamespaces.vethRefusal == nil,
            "needs network namespaces from `ip netns add` and a veth pair (root); this machine refused them (why: stderr)"))
    func aLANClientReadsFreelyButControlsOnlyWithTheRightTokenAndWrongOnesArePaced() throws {
        let lan = try VethLAN()
        defer { lan.remove() }
        let state = DaemonProcess.stateDirectory("lan")
        let tokenFile = state + "-token"
        try "\(Self.token)\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let config = state + "-config"
        try "bind = \(lan.serverAddress)\ntoken_file = \(tokenFile)\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            stateDirectory: state, device: "st_acc_ref_a", config: config,
            launcher: lan.exec(in: lan.server))
        defer { daemon.stop() }
        #expect(daemon.log.contains("serving protocol 1 on \(lan.serverAddress) port \(daemon.port)"), "\(daemon.log)")
        let clientNamespace = VethLAN.path(lan.client)
        func connect() throws -> ProtocolConnection {
            try daemon.connect(host: lan.serverAddress, networkNamespace: clientNamespace)
        }

        // Without the token a LAN client reads everything and controls nothing.
        let reader = try connect()
        #expect(reader.greetingLine == "OK SOUNDTRACE 1")
        let status = try reader.command("status")
        #expect(status.value("state") == "idle" && status.value("catalog") == "ok", "\(status)")
        #expect(try reader.command("catalog 0:1").values("reference") == [mics.catalog.references[0].audio.id])
        #expect(try reader.command("history") == .ok([]))
        let readable = try reader.command("commands").values("command")
        #expect(readable.contains("status") && readable.contains("token") && !readable.contains("listen"), "\(readable)")
        let reference = mics.catalog.references[1].audio
        for command in ["listen", "cancel", "favorite \(reference.id)", "delete 1"] {
            let word = command.split(separator: " ")[0]
            #expect(try reader.command(command).ackLine?.hasPrefix("ACK [4@0] {\(word)}") == true, "\(command)")
        }

        // A wrong token is refused after a second, and leaves the connection read-only.
        var before = ProtocolConnection.now()
        let wrong = try reader.command("token \(Self.token.lowercased())")
        #expect(wrong.ackLine?.hasPrefix("ACK [3@0] {token} wrong token (2 tries left") == true, "\(wrong)")
        #expect(ProtocolConnection.now() - before >= 900)
        #expect(try reader.command("listen").ackLine?.hasPrefix("ACK [4@0] {listen}") == true)
        #expect(daemon.log.contains("wrong token from \(lan.clientAddress)"), "\(daemon.log)")

        // Reconnecting does not skip the pacing: the address's next attempt, on a new connection and
        // even with the right token, waits out the pause its wrong one earned.
        let controller = try connect()
        before = ProtocolConnection.now()
        #expect(try controller.command("token \(Self.token)") == .ok([.init(key: "permission", value: "control")]))
        #expect(ProtocolConnection.now() - before >= 900, "the right token after a wrong one came back at once")
        #expect(try controller.command("commands").values("command").contains("listen"))

        // With the token it controls: a whole recognition from the LAN, which every client sees.
        let started = try controller.command("listen")
        let session = try #require(started.value("session"), "\(started)")
        let outcome = try controller.waitForOutcome(session)
        #expect(outcome.value("state") == "matched", "\(outcome)")
        #expect(outcome.value("reference") == reference.id)
        #expect(try reader.command("history").values("session") == [session])
        #expect(try controller.command("favorite \(reference.id)").value("favorite") == "yes")
        #expect(try reader.command("favorites").values("reference") == [reference.id])

        // The right token cleared the address's record: the next right one is answered at once.
        let another = try connect()
        before = ProtocolConnection.now()
        #expect(try another.command("token \(Self.token)") == .ok([.init(key: "permission", value: "control")]))
        #expect(ProtocolConnection.now() - before < 900)
        #expect(daemon.stop() == 0)
    }
}
