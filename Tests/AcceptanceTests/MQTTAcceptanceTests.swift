import Foundation
import Glibc
import SoundtraceTestSupport
import Testing

/// The MQTT link of the real `soundtraced` against a real `mosquitto` broker on a loopback port:
/// what it publishes, the commands it takes, and a broker that goes away, refuses the password or
/// outlives a killed daemon.
@Suite(.serialized) struct MQTTAcceptanceTests {
    let mics = Microphones.shared

    private func daemon(_ name: String, _ configuration: String, device: String = "st_acc_ref_a") throws -> DaemonProcess {
        let state = DaemonProcess.stateDirectory(name)
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let config = state + ".conf"
        try configuration.write(toFile: config, atomically: true, encoding: .utf8)
        return try DaemonProcess(stateDirectory: state, device: device, config: config)
    }

    /// `status`'s `mqtt` value once it satisfies `accept`, within `seconds`.
    private func waitForStatus(_ daemon: DaemonProcess, seconds: Int = 15, _ accept: (String) -> Bool) throws -> String {
        let client = try daemon.connect()
        let deadline = ProtocolConnection.now() + seconds * 1000
        while true {
            let value = try client.command("status").value("mqtt") ?? "(none)"
            if accept(value) { return value }
            guard ProtocolConnection.now() < deadline else { throw TestFailure("status said mqtt: \(value) for \(seconds) s") }
            usleep(50_000)
        }
    }

    /// The files of the shared libraries a running daemon has mapped.
    static func mappedLibraries(_ daemon: DaemonProcess) throws -> Set<String> {
        // Read to the end: /proc files report a size of 0, and a sized read stops after one page.
        let file = try #require(FileHandle(forReadingAtPath: "/proc/\(daemon.child.pid)/maps"))
        defer { try? file.close() }
        let maps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        return Set(
            maps.split(separator: "\n").compactMap { line in line.split(separator: " ").last.map(String.init) }.filter {
                $0.contains(".so")
            })
    }

    @Test func stateRecognitionsAndCommandsTravelThroughTheBroker() throws {
        let broker = try MosquittoBroker(name: "commands")
        let prefix = "kiosks/hall-1"
        let subscriber = try MQTTSubscriber(broker, prefix: prefix)
        let daemon = try daemon("mqtt-commands", broker.configuration(prefix: prefix))
        defer { daemon.stop() }
        _ = try subscriber.waitFor("online") { $0.topic == prefix + "/availability" && $0.payload == "online" }
        _ = try subscriber.waitFor("idle") { $0.topic == prefix + "/state" && $0.payload == "idle" }
        let catalog = try subscriber.waitFor("the catalog") { $0.topic == prefix + "/catalog" }
        #expect(catalog.payload.contains(#""hash":"\#(mics.catalog.manifest.hash)""#), "\(catalog)")
        #expect(try waitForStatus(daemon) { $0 == "connected" } == "connected")
        // Plain TCP goes through the MQTT library compiled into the binary: neither Debian's
        // libmosquitto nor the OpenSSL it is linked against is mapped (docs/BENCHMARKS.md, "The MQTT link").
        let mapped = try Self.mappedLibraries(daemon)
        #expect(!mapped.contains { $0.contains("libmosquitto") || $0.contains("libssl") || $0.contains("libcrypto") }, "\(mapped)")

        // A listen from the command topic: a session like any other, its recognition published.
        var seen = subscriber.messages.count
        try broker.publish(prefix + "/command", "listen")
        let reply = try subscriber.waitFor("the listen reply", after: seen) { $0.topic == prefix + "/reply" }
        #expect(reply.payload.hasPrefix(#"{"command":"listen","ok":true,"session":"s-1""#), "\(reply)")
        let reference = mics.catalog.references[1].audio
        let event = try subscriber.waitFor("the recognition", after: seen) { $0.topic == prefix + "/event" }
        #expect(!event.retained)
        #expect(event.payload.hasPrefix(#"{"session":"s-1","outcome":"matched","time":""#), "\(event)")
        #expect(event.payload.contains(#""reference":"\#(reference.id)","title":"#), "\(event)")
        #expect(event.payload.hasSuffix(#","event":1}"#), "\(event)")
        let last = try subscriber.waitFor("the last outcome", after: seen) { $0.topic == prefix + "/last" }
        #expect(last.payload.contains(#""outcome":"matched""#) && last.payload.contains(reference.id), "\(last)")
        _ = try subscriber.waitFor("idle again", after: seen) { $0.topic == prefix + "/state" && $0.payload == "idle" }
        // The same session over the protocol.
        let client = try daemon.connect()
        #expect(try client.command("history").values("reference") == [reference.id])

        seen = subscriber.messages.count
        try broker.publish(prefix + "/command", "calm on")
        _ = try subscriber.waitFor("calm on", after: seen) { $0.topic == prefix + "/calm" && $0.payload == "on" }
        #expect(try client.command("status").value("calm") == "yes")
        try broker.publish(prefix + "/command", "format disk")
        let refusal = try subscriber.waitFor("the refusal", after: seen) {
            $0.topic == prefix + "/reply" && $0.payload.contains(#""ok":false"#)
        }
        #expect(refusal.payload.contains("unknown command \\\"format disk\\\""), "\(refusal)")
        // A command padded far past its limit is refused whole, not read as the word it starts with.
        seen = subscriber.messages.count
        try broker.publish(prefix + "/command", "listen" + String(repeating: " ", count: 100_000))
        let tooLong = try subscriber.waitFor("the refusal of a long command", after: seen) {
            $0.topic == prefix + "/reply" && $0.payload.contains(#""ok":false"#)
        }
        #expect(tooLong.payload.contains("a command is at most 256 bytes"), "\(tooLong)")
        #expect(try client.command("status").value("state") == "idle")
        // A clean stop says offline itself (a clean disconnect does not fire the last will).
        seen = subscriber.messages.count
        #expect(daemon.stop() == 0)
        _ = try subscriber.waitFor("offline", after: seen) { $0.topic == prefix + "/availability" && $0.payload == "offline" }
    }

    @Test func aBrokerRestartIsSurvivedAndTheOutageLoggedOnce() throws {
        let broker = try MosquittoBroker(name: "restart")
        let prefix = "kiosks/hall-2"
        let daemon = try daemon("mqtt-restart", broker.configuration(prefix: prefix))
        defer { daemon.stop() }
        _ = try waitForStatus(daemon) { $0 == "connected" }
        broker.stop()
        let down = try waitForStatus(daemon) { $0.hasPrefix("disconnected") }
        #expect(down.contains("connection"), "\(down)")
        // Listening and the history carry on while the broker is away.
        let client = try daemon.connect()
        let started = try client.command("listen")
        let outcome = try client.waitForOutcome(try #require(started.value("session")))
        #expect(outcome.value("state") == "matched", "\(outcome)")
        // Several attempts fail meanwhile (1 s, 2 s); the log says so once.
        usleep(3_500_000)
        try broker.start()
        _ = try waitForStatus(daemon, seconds: 20) { $0 == "connected" }
        // The restarted broker forgot every retained message: the daemon published them again,
        // with the outcome of the session it ran while the broker was away.
        // (A subscriber may see them arrive live; one that comes after finds them retained.)
        _ = try MQTTSubscriber(broker, prefix: prefix).waitFor("the last outcome") { $0.topic == prefix + "/last" }
        let late = try MQTTSubscriber(broker, prefix: prefix)
        let last = try late.waitFor("the last outcome") { $0.topic == prefix + "/last" }
        #expect(last.retained && last.payload.contains(#""session":"s-1","outcome":"matched""#), "\(last)")
        _ = try late.waitFor("online") { $0.topic == prefix + "/availability" && $0.payload == "online" && $0.retained }
        let log = daemon.log
        #expect(log.components(separatedBy: "no link to the broker").count == 2, "\(log)")
        #expect(log.components(separatedBy: "MQTT: connected to").count == 3, "\(log)")
    }

    @Test func aWrongPasswordIsAClearErrorInStatusAndTheLog() throws {
        let broker = try MosquittoBroker(name: "password", account: ("kiosk", "right horse battery"))
        let prefix = "kiosks/hall-3"
        let wrong = DaemonProcess.stateDirectory("mqtt-wrong") + ".password"
        try "staple\n".write(toFile: wrong, atomically: true, encoding: .utf8)
        let daemon = try daemon(
            "mqtt-wrong", broker.configuration(prefix: prefix, extra: "mqtt_username = kiosk\nmqtt_password_file = \(wrong)\n"))
        defer { daemon.stop() }
        let status = try waitForStatus(daemon) { $0 != "disconnected (connecting)" }
        #expect(status == "disconnected (the broker refused the connection: Connection Refused: not authorised)", "\(status)")
        usleep(3_500_000)
        let log = daemon.log
        #expect(log.components(separatedBy: "Connection Refused: not authorised").count == 2, "\(log)")
        // The protocol answers as ever.
        #expect(try daemon.connect().command("status").value("state") == "idle")

        let right = DaemonProcess.stateDirectory("mqtt-right") + ".password"
        try "right horse battery\n".write(toFile: right, atomically: true, encoding: .utf8)
        let good = try self.daemon(
            "mqtt-right", broker.configuration(prefix: prefix + "b", extra: "mqtt_username = kiosk\nmqtt_password_file = \(right)\n"))
        defer { good.stop() }
        #expect(try waitForStatus(good) { $0 == "connected" } == "connected")
    }

    @Test func homeAssistantFindsTheKioskAndLosesItWhenDiscoveryIsTurnedOff() throws {
        let broker = try MosquittoBroker(name: "discovery")
        let prefix = "kiosks/hall-5"
        let entities = [("sensor", "state"), ("sensor", "last"), ("button", "listen")].map {
            "homeassistant/\($0)/kiosks_hall-5/\($1)/config"
        }
        let assistant = try MQTTSubscriber(broker, prefix: "homeassistant")
        let daemon = try daemon("mqtt-discovery", broker.configuration(prefix: prefix))
        for topic in entities {
            let config = try assistant.waitFor(topic) { $0.topic == topic && !$0.payload.isEmpty }
            #expect(config.payload.contains(#""availability_topic":"kiosks/hall-5/availability""#), "\(config)")
            #expect(config.payload.contains(#""device":{"identifiers":["kiosks_hall-5"]"#), "\(config)")
        }
        let button = try assistant.waitFor("the button") { $0.topic == entities[2] }
        #expect(button.payload.contains(#""command_topic":"kiosks/hall-5/command","payload_press":"listen""#), "\(button)")
        #expect(daemon.stop() == 0)

        // The same kiosk with mqtt_discovery = no takes its entities back: empty retained messages.
        let seen = assistant.messages.count
        let quiet = try self.daemon("mqtt-discovery-off", broker.configuration(prefix: prefix, extra: "mqtt_discovery = no\n"))
        defer { quiet.stop() }
        for topic in entities {
            _ = try assistant.waitFor("the removal of \(topic)", after: seen) { $0.topic == topic && $0.payload.isEmpty }
        }
        // Home Assistant starting now finds none of them.
        let late = try MQTTSubscriber(broker, prefix: "homeassistant")
        usleep(500_000)
        #expect(late.messages.allSatisfy { !$0.topic.hasSuffix("/config") }, "\(late.messages)")
    }

    @Test func aTLSBrokerIsReachedWithItsCAAndRefusedWithAnother() throws {
        let broker = try MosquittoBroker(name: "tls", tls: true)
        let prefix = "kiosks/hall-6"
        let good = try daemon(
            "mqtt-tls", broker.configuration(prefix: prefix, extra: "mqtt_tls_ca_file = \(broker.directory)/ca.pem\n"))
        defer { good.stop() }
        #expect(try waitForStatus(good) { $0 == "connected" } == "connected")
        #expect(good.log.contains("MQTT: connected to 127.0.0.1"), "\(good.log)")
        // TLS is Debian's libmosquitto1 with its OpenSSL, loaded for this link only.
        let mapped = try Self.mappedLibraries(good)
        #expect(mapped.contains { $0.contains("libmosquitto.so") } && mapped.contains { $0.contains("libssl") }, "\(mapped)")

        // A CA that did not sign the broker's certificate: refused, and status says what to check.
        let stranger = broker.directory + "/stranger"
        try FileManager.default.createDirectory(atPath: stranger, withIntermediateDirectories: true)
        try MosquittoBroker.makeCertificates(in: stranger, serverToo: false)
        let wrong = try daemon(
            "mqtt-tls-wrong", broker.configuration(prefix: prefix + "b", extra: "mqtt_tls_ca_file = \(stranger)/ca.pem\n"))
        defer { wrong.stop() }
        let status = try waitForStatus(wrong) { $0 != "disconnected (connecting)" }
        // The handshake fails inside the connect or on the first read, as timing has it; either way
        // status names the broker and what to check.
        #expect(status.contains("127.0.0.1 port \(broker.port)"), "\(status)")
        #expect(
            status.contains("A TLS error occurred (is the broker's certificate signed by the CA in mqtt_tls_ca_file \(stranger)/ca.pem"),
            "\(status)")
        // Plain TCP to the TLS port does not connect either.
        let plain = try daemon("mqtt-tls-plain", broker.configuration(prefix: prefix + "c"))
        defer { plain.stop() }
        usleep(1_500_000)
        #expect(try waitForStatus(plain) { $0 != "connected" } != "connected")
    }

    @Test func availabilityTurnsOfflineWhenTheDaemonIsKilled() throws {
        let broker = try MosquittoBroker(name: "kill")
        let prefix = "kiosks/hall-4"
        let subscriber = try MQTTSubscriber(broker, prefix: prefix)
        let daemon = try daemon("mqtt-kill", broker.configuration(prefix: prefix))
        _ = try subscriber.waitFor("online") { $0.topic == prefix + "/availability" && $0.payload == "online" }
        daemon.child.send(SIGKILL)
        _ = daemon.child.waitForExit()
        // The broker publishes the last will; a client arriving later finds it retained.
        _ = try subscriber.waitFor("the last will") { $0.topic == prefix + "/availability" && $0.payload == "offline" }
        let late = try MQTTSubscriber(broker, prefix: prefix)
        let availability = try late.waitFor("retained availability") { $0.topic == prefix + "/availability" }
        #expect(availability.retained && availability.payload == "offline", "\(availability)")
    }
}
