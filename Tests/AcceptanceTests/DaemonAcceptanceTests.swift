import CLinux
import Foundation
import Glibc
import SoundtraceTestSupport
import Testing

/// The appliance end to end: the real `soundtraced` binary, real SQLite files, the simulated
/// microphones (an ALSA file PCM whose recording the test swaps between sessions), and the
/// protocol spoken over TCP.
@Suite(.serialized) struct DaemonAcceptanceTests {
    let mics = Microphones.shared

    private func listenToEnd(_ connection: ProtocolConnection) throws -> ProtocolConnection.Reply {
        let started = try connection.command("listen")
        let session = try #require(started.value("session"), "listen: \(started)")
        #expect(started.value("state") == "listening")
        return try connection.waitForOutcome(session)
    }

    @Test func recordingsFromAnotherDeviceBecomeHistoryEventsAndNothingElseDoes() throws {
        let state = DaemonProcess.stateDirectory("events")
        let daemon = try DaemonProcess(stateDirectory: state)
        defer { daemon.stop() }
        let client = try daemon.connect()
        #expect(client.greetingLine == "OK SOUNDTRACE 1")

        var events: [String] = []
        for (pcm, index) in [("st_acc_ref_a", 1), ("st_acc_ref_b", 4)] {
            try mics.plug(pcm)
            let outcome = try listenToEnd(client)
            #expect(outcome.value("state") == "matched", "\(outcome)")
            #expect(outcome.value("reference") == mics.catalog.references[index].audio.id)
            let offset = Double(outcome.value("offset") ?? "") ?? -100
            #expect(abs(offset - (mics.starts[pcm] ?? 0)) <= 1.0, "offset \(offset)")
            events.append(try #require(outcome.value("event")))
        }
        for (pcm, reason) in [("st_acc_silence", "silence"), ("st_acc_noise", "notInCatalog"), ("st_acc_outside", "notInCatalog")] {
            try mics.plug(pcm)
            let outcome = try listenToEnd(client)
            #expect(outcome.value("state") == "noMatch", "\(pcm): \(outcome)")
            #expect(outcome.value("reason") == reason)
            #expect(outcome.value("event") == nil)
        }
        let history = try client.command("history")
        #expect(history.values("id") == events.reversed())
        #expect(history.values("reference") == [mics.catalog.references[4].audio.id, mics.catalog.references[1].audio.id])
        let status = try client.command("status")
        #expect(status.value("state") == "idle")
        #expect(status.value("last_outcome") == "noMatch")
        #expect(status.value("device_health") == "ok")
        // The microphone's audio lived only in memory: the state folder holds the database alone.
        let files = try FileManager.default.contentsOfDirectory(atPath: state)
        #expect(files.allSatisfy { $0.hasPrefix("history.db") }, "\(files)")
        #expect(daemon.stop() == 0)
    }

    @Test func deletionsAndFavoritesSurviveARestartAndSessionIdsAreNotReused() throws {
        let state = DaemonProcess.stateDirectory("restart")
        var daemon = try DaemonProcess(stateDirectory: state)
        var client = try daemon.connect()
        try mics.plug("st_acc_ref_a")
        let first = try listenToEnd(client)
        let firstEvent = try #require(first.value("event"), "\(first)")
        let second = try listenToEnd(client)
        let secondEvent = try #require(second.value("event"), "\(second)")
        let favorite = mics.catalog.references[4].audio.id
        #expect(try client.command("favorite \(favorite)").value("changed") == "yes")
        #expect(try client.command("favorite \(favorite)").value("changed") == "no")
        #expect(try client.command("delete \(firstEvent)").value("deleted") == firstEvent)
        #expect(try client.command("delete \(firstEvent)").ackLine?.hasPrefix("ACK [50@0] {delete}") == true)
        #expect(daemon.stop() == 0)

        daemon = try DaemonProcess(stateDirectory: state)
        defer { daemon.stop() }
        client = try daemon.connect()
        #expect(try client.command("history").values("id") == [secondEvent])
        #expect(try client.command("favorites").values("reference") == [favorite])
        #expect(try client.command("show \(secondEvent)").value("favorite") == "no")
        let third = try listenToEnd(client)
        #expect(third.value("state") == "matched")
        #expect(third.value("session") != second.value("session"), "a restarted daemon reused session id \(third)")
        #expect(try client.command("history").values("id").count == 2)
        let share = try client.command("share \(secondEvent)").value("text") ?? ""
        #expect(share.contains(mics.catalog.references[1].audio.title), "\(share)")
    }

    @Test func aRecognitionDeletedAfterARelaunchStaysDeletedAndItsIdsAreNotReused() throws {
        let state = DaemonProcess.stateDirectory("delete-relaunch")
        let reference = mics.catalog.references[1].audio
        // First run: two recognitions.
        var daemon = try DaemonProcess(stateDirectory: state, device: "st_acc_ref_a")
        var client = try daemon.connect()
        var events: [String] = []
        var sessions: [String] = []
        for _ in 0..<2 {
            let outcome = try listenToEnd(client)
            #expect(outcome.value("state") == "matched" && outcome.value("reference") == reference.id, "\(outcome)")
            events.append(try #require(outcome.value("event"), "\(outcome)"))
            sessions.append(try #require(outcome.value("session")))
        }
        #expect(daemon.stop() == 0)

        // Relaunched on the same database: both are there. The newest (whose session holds the
        // highest id so far) is deleted over the protocol, the other with the companion CLI.
        daemon = try DaemonProcess(stateDirectory: state, device: "st_acc_ref_a")
        client = try daemon.connect()
        let before = try client.command("history")
        #expect(before.values("id") == events.reversed() && before.values("session") == sessions.reversed(), "\(before)")
        #expect(try client.command("delete \(events[1])") == .ok([.init(key: "deleted", value: events[1])]))
        let (deleted, said) = try companion(["delete", events[0], "--yes"], port: daemon.port)
        #expect(deleted == 0, "\(said)")
        #expect(try client.command("history") == .ok([]))
        #expect(daemon.stop() == 0)

        // Relaunched again: still gone, and the next session and recognition get ids never used.
        daemon = try DaemonProcess(stateDirectory: state, device: "st_acc_ref_a")
        defer { daemon.stop() }
        client = try daemon.connect()
        #expect(try client.command("history") == .ok([]))
        for event in events {
            #expect(try client.command("show \(event)").ackLine?.hasPrefix("ACK [50@0] {show}") == true)
            #expect(try client.command("delete \(event)").ackLine?.hasPrefix("ACK [50@0] {delete}") == true)
        }
        let (_, listing) = try companion(["history"], port: daemon.port)
        #expect(listing.contains("No recognitions yet"), "\(listing)")
        let next = try listenToEnd(client)
        #expect(next.value("state") == "matched", "\(next)")
        let session = try #require(next.value("session"))
        #expect(!sessions.contains(session), "session id \(session) was used before the deletion")
        #expect((Self.number(session) ?? 0) > sessions.compactMap(Self.number).max() ?? Int.max, "\(session) after \(sessions)")
        let event = try #require(next.value("event"))
        #expect((Int(event) ?? 0) > events.compactMap { Int($0) }.max() ?? Int.max, "event \(event) after \(events)")
        #expect(try client.command("history").values("id") == [event])
    }

    /// The number in a session id `s-N`.
    private static func number(_ session: String) -> Int? {
        session.hasPrefix("s-") ? Int(session.dropFirst(2)) : nil
    }

    @Test func aCorruptCatalogStillServesAndAReloadBringsListeningBack() throws {
        let state = DaemonProcess.stateDirectory("corrupt")
        let catalogPath = state + "-catalog"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Microphones.catalogPath))
        // In the references section, which start-up checks (its structure checksum).
        bytes[200] ^= 0x40
        try bytes.write(to: URL(fileURLWithPath: catalogPath))
        let daemon = try DaemonProcess(stateDirectory: state, catalog: catalogPath)
        defer { daemon.stop() }
        let client = try daemon.connect()
        let status = try client.command("status")
        #expect(status.value("catalog") == "unavailable")
        #expect(status.value("catalog_error")?.contains("do not match their checksum") == true, "\(status)")
        #expect(status.value("catalog_error")?.contains("catalog build") == true, "\(status)")
        let refused = try client.command("listen")
        #expect(refused.ackLine?.hasPrefix("ACK [56@0] {listen} no usable catalog") == true, "\(refused)")
        #expect(try client.command("history") == .ok([]))
        #expect(try client.command("guide").values("line").first?.contains("No catalog is loaded") == true)
        #expect(try client.command("catalog").ackLine?.hasPrefix("ACK [56@0]") == true)

        // The owner rebuilds the catalog and reloads: listening works without a restart.
        try FileManager.default.removeItem(atPath: catalogPath)
        try FileManager.default.copyItem(atPath: Microphones.catalogPath, toPath: catalogPath)
        kill(daemon.child.pid, SIGHUP)
        #expect(try client.command("idle catalog", timeoutMilliseconds: 10_000) == .ok([.init(key: "changed", value: "catalog")]))
        #expect(try client.command("status").value("catalog") == "ok")
        try mics.plug("st_acc_ref_b")
        #expect(try listenToEnd(client).value("state") == "matched")
        // A later corrupt file, put there by renaming as docs/CATALOG.md asks, keeps the good
        // catalog in service, with a warning, and it still recognizes.
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: catalogPath), options: .atomic)
        kill(daemon.child.pid, SIGHUP)
        _ = try client.command("idle catalog", timeoutMilliseconds: 10_000)
        let after = try client.command("status")
        #expect(after.value("catalog") == "ok")
        #expect(after.value("catalog_warning")?.contains("still serving the previous catalog") == true, "\(after)")
        #expect(try listenToEnd(client).value("state") == "matched")
    }

    @Test func aCatalogWhoseBulkIsDamagedIsServedUntilTheBackgroundCheckFindsIt() throws {
        // Start-up checks the structure only; the content hash is checked after ready.
        let state = DaemonProcess.stateDirectory("bulk")
        let catalogPath = state + "-catalog"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Microphones.catalogPath))
        bytes[bytes.count - 2000] ^= 0x40  // in the levels, the last bulk section
        try bytes.write(to: URL(fileURLWithPath: catalogPath))
        let daemon = try DaemonProcess(stateDirectory: state, catalog: catalogPath)
        defer { daemon.stop() }
        let client = try daemon.connect()
        // Changes count from the connection on: a check that ended before it shows in `status`.
        if try client.command("status").value("catalog") == "ok" {
            #expect(try client.command("idle catalog", timeoutMilliseconds: 10_000) == .ok([.init(key: "changed", value: "catalog")]))
        }
        let status = try client.command("status")
        #expect(status.value("catalog") == "unavailable")
        #expect(status.value("catalog_error")?.contains("does not match its SHA-256") == true, "\(status)")
        let refused = try client.command("listen")
        #expect(refused.ackLine?.contains("does not match its SHA-256") == true, "\(refused)")
        #expect(daemon.log.contains("catalog unusable"), "\(daemon.log)")
    }

    @Test func aSoundCatalogIsVerifiedAfterReady() throws {
        let state = DaemonProcess.stateDirectory("verified")
        let daemon = try DaemonProcess(stateDirectory: state)
        defer { daemon.stop() }
        let client = try daemon.connect()
        // The check logs when it ends; a listen meanwhile is served (the structure was checked).
        let deadline = ProtocolConnection.now() + 10_000
        while !daemon.log.contains("catalog content verified"), ProtocolConnection.now() < deadline { usleep(20_000) }
        #expect(daemon.log.contains("catalog content verified against its SHA-256"), "\(daemon.log)")
        #expect(try client.command("status").value("catalog") == "ok")
    }

    @Test func aCatalogRewrittenInPlaceIsNoLongerUsed() throws {
        // The daemon maps the catalog: bytes rewritten under the mapping are not what was validated.
        let state = DaemonProcess.stateDirectory("rewritten")
        let catalogPath = state + "/mapped.catalog"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Microphones.catalogPath, toPath: catalogPath)
        let daemon = try DaemonProcess(stateDirectory: state, catalog: catalogPath)
        defer { daemon.stop() }
        let client = try daemon.connect()
        #expect(try client.command("status").value("catalog") == "ok")
        // In place, the same size: the mapping would now read the other file's bytes.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: catalogPath))
        bytes[bytes.count / 2] ^= 0x40
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: catalogPath))
        try handle.write(contentsOf: bytes)
        try handle.close()
        let refused = try client.command("listen")
        #expect(refused.ackLine?.contains("rewritten in place") == true, "\(refused)")
        #expect(try client.command("status").value("catalog") == "unavailable")
    }

    @Test func eightClientsRacingListenAndCancelLeaveOneResultPerSession() throws {
        let state = DaemonProcess.stateDirectory("race")
        // Room for the eight racers and one client that checks between bursts.
        let config = state + "-config"
        try "max_clients = 9\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(stateDirectory: state, config: config)
        defer { daemon.stop() }
        try mics.plug("st_acc_ref_a")
        let failures = Failures()
        let sessions = Failures()
        let canceled = Failures()
        let port = daemon.port
        let client = try daemon.connect()
        // How long one uncontested match takes with this build on this machine (a sanitized
        // daemon is several times slower): the later bursts pace their rounds by it.
        let warmUpStarted = ProtocolConnection.now()
        let warmUp = try listenToEnd(client)
        let matchMilliseconds = max(1, ProtocolConnection.now() - warmUpStarted)
        try #require(warmUp.value("state") == "matched", "\(warmUp)")
        let warmUpSession = try #require(warmUp.value("session"))
        // Bursts of twelve rounds from eight clients at once. A race that neither matched nor
        // canceled anything would prove nothing, so it goes on (up to five bursts) until both
        // outcomes have happened. How often each wins depends on the machine's speed: the first
        // burst fires its rounds back to back; in the later ones each client pauses a random
        // 0 to 2 match-times between rounds, so that on a slow machine (or build) a session can
        // also live long enough to match while the others still race their cancels against it.
        var bursts = 0
        var matchedYet = false
        repeat {
            bursts += 1
            let paced = bursts > 1
            DispatchQueue.concurrentPerform(iterations: 8) { worker in
                do {
                    let racer = try ProtocolConnection(port: port)
                    for round in 0..<12 {
                        if paced { usleep(useconds_t(Int.random(in: 0...(2 * matchMilliseconds)) * 1000)) }
                        let command = (worker + round) % 3 == 0 ? "cancel" : "listen"
                        let reply = try racer.command(command)
                        if let ack = reply.ackLine {
                            if command != "listen" || !ack.hasPrefix("ACK [54@0] {listen} already listening") {
                                failures.add("worker \(worker): \(ack)")
                            }
                        } else if let session = reply.value("session") {
                            // listen starts a session; cancel names the one it ended.
                            sessions.add(session)
                            if reply.value("state") != (command == "cancel" ? "canceled" : "listening") {
                                failures.add("worker \(worker): \(command) answered \(reply)")
                            } else if command == "cancel" {
                                canceled.add(session)
                            }
                        } else if command != "cancel" || reply.pairs != [.init(key: "state", value: "idle")] {
                            failures.add("worker \(worker): \(command) answered \(reply)")
                        }
                    }
                } catch {
                    failures.add("worker \(worker): \(error)")
                }
            }
            _ = try client.command("cancel")
            matchedYet = try client.command("history 0:1").value("session").map { $0 != warmUpSession } ?? false
        } while bursts < 5 && failures.items.isEmpty && (canceled.items.isEmpty || !matchedYet)
        #expect(failures.items.isEmpty, "\(failures.items)")
        // A session that had just matched may still be writing its match: it ends (and `status`
        // says idle) once the history holds it, and only then is the history compared.
        if let last = try client.command("status").value("session") { _ = try client.waitForOutcome(last) }
        #expect(try client.command("status").value("state") == "idle")
        let history = try client.command("history 0:100")
        #expect(history.values("session").last == warmUpSession, "\(history)")
        let recorded = history.values("session").filter { $0 != warmUpSession }
        let started = Set(sessions.items)
        #expect(Set(recorded).count == recorded.count, "a session was recorded twice: \(recorded)")
        // Both outcomes really happened during the race: sessions matched (and were recorded), and
        // racing cancels ended listening sessions. A canceled session has no recognition.
        #expect(
            !recorded.isEmpty,
            "no session matched in \(bursts) bursts (\(started.count) sessions, \(canceled.items.count) canceled; one match takes \(matchMilliseconds) ms)"
        )
        #expect(!canceled.items.isEmpty, "no cancel ended a session in \(bursts) bursts (\(started.count) sessions)")
        #expect(Set(canceled.items).count == canceled.items.count, "a session was canceled twice: \(canceled.items)")
        #expect(Set(canceled.items).isDisjoint(with: recorded), "canceled \(canceled.items.sorted()) recorded \(recorded.sorted())")
        // Every recorded session really matched, every matched session was recorded, and every
        // session a cancel ended says so (for the sessions the daemon still remembers: the last 32).
        var matched: Set<String> = []
        var known: Set<String> = []
        for session in started {
            let reply = try client.command("session \(session)")
            guard reply.ackLine == nil else { continue }
            known.insert(session)
            #expect(reply.value("state") != "listening", "\(session) is stuck: \(reply)")
            if reply.value("state") == "matched" { matched.insert(session) }
            if canceled.items.contains(session) { #expect(reply.value("state") == "canceled", "\(reply)") }
        }
        #expect(known.count >= min(32, started.count))
        #expect(Set(recorded).isSubset(of: started), "recorded \(recorded) started \(sessions.items)")
        #expect(matched == Set(recorded).intersection(known), "matched \(matched.sorted()) recorded \(recorded.sorted())")
        // And the appliance still works.
        #expect(try listenToEnd(client).value("state") == "matched")
    }

    @Test func onATerminalEnterIsTheButtonAndTheConsoleShowsTheState() throws {
        let master = posix_openpt(O_RDWR | O_NOCTTY)
        try #require(master >= 0)
        defer { close(master) }
        #expect(grantpt(master) == 0 && unlockpt(master) == 0)
        let terminal = String(cString: ptsname(master))
        try mics.plug("st_acc_ref_b")
        let daemon = try DaemonProcess(stateDirectory: DaemonProcess.stateDirectory("console"), stdin: terminal)
        defer { daemon.stop() }
        let client = try daemon.connect()
        _ = write(master, "\n", 1)
        #expect(try client.command("idle history", timeoutMilliseconds: 15_000) == .ok([.init(key: "changed", value: "history")]))
        let history = try client.command("history")
        #expect(history.value("reference") == mics.catalog.references[4].audio.id)
        #expect(history.value("session") == "s-1")
        #expect(daemon.output.contains("listening"), "\(daemon.output)")
        #expect(daemon.output.contains("MATCH — \"\(mics.catalog.references[4].audio.title)\""), "\(daemon.output)")
        #expect(daemon.output.contains("[Enter: listen]"))
    }

    @Test func aDeviceThatCannotOpenGivesAFailedSessionAndCancelByIdSparesOthers() throws {
        let state = DaemonProcess.stateDirectory("faults")
        let missing = try DaemonProcess(stateDirectory: state, device: "st_no_such_device")
        let client = try missing.connect()
        let failed = try client.command("listen")
        #expect(failed.value("state") == "failed", "\(failed)")
        #expect(failed.value("reason") == "deviceNotFound")
        #expect(failed.value("device") == "st_no_such_device")
        #expect(failed.value("message")?.contains("set the device with --device") == true)
        let status = try client.command("status")
        #expect(status.value("device_health") == "failed")
        #expect(status.value("state") == "idle")
        #expect(missing.stop() == 0)

        // A named cancel touches only its own session.
        let daemon = try DaemonProcess(stateDirectory: state)
        defer { daemon.stop() }
        let other = try daemon.connect()
        try mics.plug("st_acc_ref_a")
        let first = try listenToEnd(other)
        let firstId = try #require(first.value("session"))
        #expect(try other.command("cancel \(firstId)").value("state") == "matched")
        #expect(try other.command("cancel s-999").ackLine?.hasPrefix("ACK [50@0] {cancel}") == true)
        #expect(try other.command("cancel") == .ok([.init(key: "state", value: "idle")]))
    }

    /// A device whose open never returns (an ALSA plugin whose sound server does not answer) must
    /// not hang the daemon: `listen` answers a failed session within the bounded wait, `status`
    /// answers meanwhile from another client, a second `listen` fails at once, and once the open
    /// returns the next session opens the device anew. A stop while an open or a read hangs exits cleanly.
    @Test func aDeviceWhoseOpenHangsFailsTheSessionAndTheDaemonKeepsAnswering() throws {
        let state = DaemonProcess.stateDirectory("hanging")
        let daemon = try DaemonProcess(stateDirectory: state, device: Microphones.hangingPCM)
        let port = daemon.port
        let listenBox = ReplyBox()
        let statusBox = ReplyBox()
        let finishedSendingBox = ReplyBox()
        DispatchQueue.concurrentPerform(iterations: 3) { worker in
            let began = ProtocolConnection.now()
            if worker == 0 {
                listenBox.set(try? ProtocolConnection(port: port).command("listen"), after: ProtocolConnection.now() - began)
            } else if worker == 2 {
                // A client that shuts down its sending side after `listen` (`printf 'listen\n' | nc`)
                // is kept for the answer, which waits behind the first listen's open.
                usleep(300_000)
                guard let connection = try? ProtocolConnection(port: port), (try? connection.send("listen")) != nil else { return }
                connection.finishSending()
                finishedSendingBox.set(try? connection.reply(timeoutMilliseconds: 15_000), after: ProtocolConnection.now() - began)
                finishedSendingBox.closedAfter = (try? connection.readLine(timeoutMilliseconds: 5_000)) == .some(nil)
            } else {
                usleep(300_000)
                let asked = ProtocolConnection.now()
                statusBox.set(try? ProtocolConnection(port: port).command("status"), after: ProtocolConnection.now() - asked)
            }
        }
        let client = try daemon.connect()
        let failed = try #require(listenBox.value, "listen was not answered")
        #expect(failed.value("state") == "failed", "\(failed)")
        #expect(failed.value("reason") == "deviceNotAnswering")
        #expect(failed.value("message")?.contains("has not finished opening") == true)
        let finishedSending = try #require(finishedSendingBox.value, "a client that finished sending lost its listen's answer")
        #expect(finishedSending.value("reason") == "deviceNotAnswering", "\(finishedSending)")
        #expect(finishedSendingBox.closedAfter)
        let status = try #require(statusBox.value, "status was not answered while the device's open hung")
        #expect(status.value("state") != nil)
        // Answered while the listen still waited for the open, not after it: the open does not hold the protocol's thread.
        #expect(listenBox.milliseconds >= 4_500, "listen answered after \(listenBox.milliseconds) ms")
        #expect(statusBox.milliseconds < 2_000, "status answered after \(statusBox.milliseconds) ms")
        // While that open still hangs: refused at once, without a second open.
        let again = try client.command("listen")
        #expect(again.value("reason") == "deviceNotAnswering", "\(again)")
        #expect(try client.command("status").value("device_health") == "failed")

        // A writer lets the hung open return; its thread closes the device again.
        // Close-on-exec: a child another suite starts meanwhile must not keep the FIFO's write end
        // open, or the FIFO's next open would find a writer and not hang.
        var writer = open(mics.hangingFIFO, O_WRONLY | O_CLOEXEC)
        #expect(writer >= 0)
        defer { if writer >= 0 { close(writer) } }
        let deadline = ProtocolConnection.now() + 10_000
        while !daemon.log.contains("finished the open of session"), ProtocolConnection.now() < deadline { usleep(20_000) }
        #expect(daemon.log.contains("finished the open of session s-1"), "\(daemon.log)")
        let listening = try client.command("listen")
        #expect(listening.value("state") == "listening", "\(listening)")
        // The file plugin's reads block while the writer is silent, so the capture thread cannot
        // close the device: a stop still ends, after its bounded wait, and says why. A little
        // audio first, read to the end, so that the stop finds the thread inside a read (and not
        // between two, where it would see the cancel and close the device in time).
        let someAudio = [UInt8](repeating: 0, count: 3200)
        #expect(write(writer, someAudio, someAudio.count) == someAudio.count)
        var unread: Int32 = 1
        let drained = ProtocolConnection.now() + 10_000
        while ioctl(writer, UInt(FIONREAD), &unread) == 0, unread > 0, ProtocolConnection.now() < drained { usleep(10_000) }
        #expect(unread == 0, "the daemon did not read the FIFO")
        usleep(300_000)
        #expect(daemon.stop() == 0)
        #expect(daemon.log.contains("was not closed within 5.000 s of the stop"), "\(daemon.log)")
        close(writer)
        writer = -1

        // Stopped while an open hangs (a restart by the watchdog or a person): a clean exit.
        let hung = try DaemonProcess(stateDirectory: DaemonProcess.stateDirectory("hanging-stop"), device: Microphones.hangingPCM)
        let hungClient = try hung.connect()
        let hungListen = try hungClient.command("listen")
        #expect(hungListen.value("reason") == "deviceNotAnswering", "\(hungListen)")
        #expect(hung.stop() == 0)
    }

    /// A reply handed from a helper thread to the test's.
    private final class ReplyBox: @unchecked Sendable {
        // @unchecked: written by one worker of `concurrentPerform`, read after it returned.
        private(set) var value: ProtocolConnection.Reply?
        private(set) var milliseconds = 0
        /// Whether the server closed the connection after the reply.
        var closedAfter = false
        func set(_ reply: ProtocolConnection.Reply?, after milliseconds: Int) {
            value = reply
            self.milliseconds = milliseconds
        }
    }

    /// Runs the companion CLI against the daemon; returns its status and standard output.
    private func companion(_ arguments: [String], port: Int) throws -> (Int32, String) {
        let out = mics.directory + "/companion-\(UUID().uuidString).out"
        let child = try ChildProcess(
            path: Microphones.binary, arguments: arguments + ["--port", String(port)],
            environment: mics.environment, stdout: out, stderr: out + ".err")
        let status = child.waitForExit()
        return (status, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "")
    }

    @Test func theCompanionCLIDrivesTheRealDaemon() throws {
        let daemon = try DaemonProcess(stateDirectory: DaemonProcess.stateDirectory("companion"))
        defer { daemon.stop() }
        try mics.plug("st_acc_ref_b")
        let reference = mics.catalog.references[4].audio
        let (status, listen) = try companion(["listen", "--json"], port: daemon.port)
        #expect(status == 0, "\(listen)")
        let object = try JSONSerialization.jsonObject(with: Data(listen.utf8)) as? [String: Any]
        #expect(object?["outcome"] as? String == "match", "\(listen)")
        #expect(object?["referenceId"] as? String == reference.id)
        let event = try #require(object?["eventId"] as? Int, "\(listen)")
        let (_, history) = try companion(["history"], port: daemon.port)
        #expect(history.contains(reference.title), "\(history)")
        let (_, share) = try companion(["share", String(event)], port: daemon.port)
        #expect(share.contains("Heard \"\(reference.title)\""), "\(share)")
        #expect(try companion(["favorite", reference.id], port: daemon.port).0 == 0)
        #expect(try companion(["favorites"], port: daemon.port).1.contains(reference.id))
        // Off a terminal, delete needs --yes.
        #expect(try companion(["delete", String(event)], port: daemon.port).0 == 2)
        #expect(try companion(["delete", String(event), "--yes"], port: daemon.port).0 == 0)
        let (_, empty) = try companion(["history"], port: daemon.port)
        #expect(empty.contains("No recognitions yet"), "\(empty)")
        // A daemon answer of "no" is exit 6 with the daemon's words.
        #expect(try companion(["show", "999"], port: daemon.port).0 == 6)
        // Nothing listening there: exit 5 with the hint.
        #expect(try companion(["status"], port: 1).0 == 5)
    }

    @Test func theCatalogBrowserAndGuideAnswerWithAWorkingOrADeniedMicrophone() throws {
        let catalog = mics.catalog
        let ids = catalog.references.map(\.audio.id)
        let reference = catalog.references[2].audio
        // Both daemons serve the same copy of the catalog, which the service user may read (the
        // guide names the file's path).
        let catalogPath = mics.directory + "/browse.catalog"
        try? FileManager.default.removeItem(atPath: catalogPath)
        try FileManager.default.copyItem(atPath: Microphones.catalogPath, toPath: catalogPath)
        chmod(catalogPath, 0o644)

        let daemon = try DaemonProcess(stateDirectory: DaemonProcess.stateDirectory("browse"), device: "st_acc_ref_a", catalog: catalogPath)
        defer { daemon.stop() }
        let client = try daemon.connect()
        let listing = try client.command("catalog")
        #expect(listing.values("reference") == ids)
        #expect(listing.values("title") == catalog.references.map(\.audio.title))
        #expect(listing.values("creator") == catalog.references.map(\.audio.creator))
        #expect(listing.values("license") == catalog.references.map(\.audio.license))
        #expect(
            listing.values("duration").count == ids.count && listing.values("duration").allSatisfy { (Double($0) ?? 0) > 10 },
            "\(listing.values("duration"))")
        #expect(try client.command("catalog 1:3").values("reference") == Array(ids[1..<3]))
        #expect(try client.command("catalog \(ids.count):") == .ok([]))
        #expect(try client.command("catalog 0:101").ackLine?.hasPrefix("ACK [2@0] {catalog}") == true)
        let shown = try client.command("reference \(reference.id)")
        #expect(shown.value("title") == reference.title && shown.value("creator") == reference.creator, "\(shown)")
        #expect(shown.value("license") == reference.license && shown.value("source_file") == reference.sourceFile)
        #expect(shown.values("meta") == reference.metadata.map { "\($0.key)=\($0.value)" })
        #expect(shown.value("favorite") == "no")
        #expect(try client.command("reference no-such-recording").ackLine?.hasPrefix("ACK [50@0] {reference}") == true)
        // Not a reference id at all: a bad argument, as for `favorite`.
        for malformed in ["HARBOR", "ab", "-abc"] {
            #expect(try client.command("reference \(malformed)").ackLine?.hasPrefix("ACK [2@0] {reference}") == true, "\(malformed)")
        }
        let guide = try client.command("guide").values("line")
        #expect(
            guide.first?.hasPrefix("This appliance recognizes \(ids.count) recordings (catalog version \(catalog.manifest.version)")
                == true,
            "\(guide)")
        for audio in catalog.references.map(\.audio) {
            #expect(guide.contains { $0.contains(audio.title) && $0.contains("[\(audio.id)]") }, "\(audio.id) is not in \(guide)")
        }
        #expect(
            guide.contains { $0.contains("soundtrace catalog build") } && guide.contains { $0.contains("systemctl reload soundtraced") })
        #expect(guide.contains { $0.contains(catalogPath) }, "\(guide)")
        // A favorite shows in the browser.
        #expect(try client.command("favorite \(reference.id)").value("changed") == "yes")
        #expect(try client.command("reference \(reference.id)").value("favorite") == "yes")

        // The companion CLI browses the same.
        let (listed, json) = try companion(["catalog", "--json"], port: daemon.port)
        #expect(listed == 0, "\(json)")
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let references = object?["references"] as? [[String: Any]] ?? []
        #expect(references.map { $0["referenceId"] as? String ?? "" } == ids, "\(json)")
        let (_, printed) = try companion(["guide"], port: daemon.port)
        #expect(printed == guide.joined(separator: "\n") + "\n")
        #expect(daemon.stop() == 0)

        // A daemon whose microphone the service user may not open (a recording only root can read;
        // the daemon runs as `nobody`): listening fails as permission denied, and browsing goes on
        // answering exactly as before (less the favorite, which lives in the other daemon's history).
        let setpriv = try SystemTool.path("setpriv")
        let binary = mics.directory + "/soundtraced-as-nobody"
        try BuiltProducts.placeExecutable(DaemonProcess.binary, at: binary)
        let nobody = try #require(getpwnam("nobody"))
        let state = DaemonProcess.stateDirectory("browse-denied")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        #expect(chown(state, nobody.pointee.pw_uid, nobody.pointee.pw_gid) == 0)
        let denied = try DaemonProcess(
            stateDirectory: state, device: "st_acc_root_only", catalog: catalogPath,
            launcher: [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"], binary: binary)
        defer { denied.stop() }
        let browser = try denied.connect()
        let failed = try browser.command("listen")
        #expect(failed.value("state") == "failed" && failed.value("reason") == "permissionDenied", "\(failed)")
        let status = try browser.command("status")
        #expect(status.value("device_health") == "failed" && status.value("catalog") == "ok", "\(status)")
        #expect(try browser.command("catalog") == listing)
        #expect(try browser.command("reference \(reference.id)") == shown)
        #expect(try browser.command("guide").values("line") == guide)
        // While its device is denied, another session fails the same way and browsing still answers.
        #expect(try browser.command("listen").value("reason") == "permissionDenied")
        #expect(try browser.command("catalog 2:3").values("reference") == [reference.id])
        let (deniedListed, deniedJSON) = try companion(["catalog", "--json"], port: denied.port)
        #expect(deniedListed == 0 && deniedJSON == json)
        let (shownStatus, shownText) = try companion(["reference", reference.id], port: denied.port)
        #expect(shownStatus == 0 && shownText.contains(reference.title), "\(shownText)")
        #expect(try companion(["guide"], port: denied.port) == (0, printed))
        #expect(denied.stop() == 0)
    }

    @Test func aLANBindWithoutATokenIsRefusedAtStart() throws {
        let state = DaemonProcess.stateDirectory("lan")
        #expect(throws: (any Error).self) { try DaemonProcess(stateDirectory: state, extra: ["--bind", "0.0.0.0"]) }
        let log = (try? String(contentsOfFile: state + ".log", encoding: .utf8)) ?? ""
        #expect(log.contains("needs a token: set token_file"), "\(log)")
    }

    /// 32 characters of base64, as `head -c 24 /dev/urandom | base64` writes.
    static let strongToken = "q7Vd2LkP9wZx4TnR0sYb8MfHc3GjUe1A"

    @Test func aWeakTokenIsRefusedAtStartWithHowToMakeAStrongOne() throws {
        let state = DaemonProcess.stateDirectory("weak-token")
        let tokenFile = state + "-token"
        try "correct-horse-battery\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let config = state + "-config"
        try "token_file = \(tokenFile)\n".write(toFile: config, atomically: true, encoding: .utf8)
        #expect(throws: (any Error).self) { try DaemonProcess(stateDirectory: state, config: config) }
        let log = (try? String(contentsOfFile: state + ".log", encoding: .utf8)) ?? ""
        #expect(log.contains("too weak") && log.contains("/dev/urandom"), "\(log)")
    }

    @Test func wrongTokensAreDelayedAndTheThirdClosesTheConnection() throws {
        let state = DaemonProcess.stateDirectory("token")
        let tokenFile = state + "-token"
        try "\(Self.strongToken)\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let config = state + "-config"
        try "token_file = \(tokenFile)\nmax_clients = 3\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(stateDirectory: state, config: config)
        defer { daemon.stop() }
        let client = try daemon.connect()
        #expect(try client.command("token \(Self.strongToken)") == .ok([.init(key: "permission", value: "control")]))
        for attempt in 1...2 {
            let before = ProtocolConnection.now()
            try client.send("token guess\(attempt)")
            try client.send("ping")  // waits behind the delayed answer
            let reply = try client.reply()
            #expect(reply.ackLine?.hasPrefix("ACK [3@0] {token} wrong token (\(3 - attempt) tr") == true, "\(reply)")
            #expect(ProtocolConnection.now() - before >= 900)
            #expect(try client.reply() == .ok([]))
        }
        let third = try client.command("token guess3")
        #expect(third.ackLine?.contains("closing the connection") == true)
        #expect(client.isClosedByServer())
        // Other connections are unaffected.
        #expect(try daemon.connect().command("ping") == .ok([]))
    }

    @Test func protocolLimitsAndJunkInput() throws {
        let state = DaemonProcess.stateDirectory("limits")
        let config = state + "-config"
        try "max_clients = 3\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(stateDirectory: state, config: config)
        defer { daemon.stop() }

        let client = try daemon.connect()
        #expect(
            try client.command("frobnicate").ackLine
                == "ACK [5@0] {frobnicate} unknown command \"frobnicate\"; send `commands` for the list")
        #expect(try client.command("show").ackLine?.hasPrefix("ACK [2@0] {show} show takes 1 argument") == true)
        #expect(try client.command("show 0").ackLine?.hasPrefix("ACK [2@0] {show}") == true)
        #expect(try client.command("history 5:500").ackLine?.hasPrefix("ACK [2@0] {history} range") == true)
        #expect(try client.command("favorite NOT_AN_ID").ackLine?.hasPrefix("ACK [2@0] {favorite}") == true)
        #expect(try client.command("session s-999").ackLine?.hasPrefix("ACK [50@0] {session}") == true)
        #expect(try client.command("idle nonsense").ackLine?.hasPrefix("ACK [2@0] {idle} unknown subsystem") == true)
        // idle: other commands are refused while it waits; noidle ends it with its own answer only.
        try client.send("idle history")
        #expect(try client.command("status").ackLine == "ACK [2@0] {status} only noidle is allowed while idle")
        #expect(try client.command("noidle") == .ok([]))
        try client.send("noidle")  // ignored: no idle waits
        #expect(try client.command("ping") == .ok([]))

        let long = try daemon.connect()
        try long.send("status " + String(repeating: "x", count: 2000))
        #expect(try long.reply().ackLine?.contains("line longer than 1024 bytes") == true)
        #expect(long.isClosedByServer())

        let junk = try daemon.connect()
        try junk.sendRaw([0x00, 0xFF, 0xFE, 0x01, 0x0A])
        #expect(try junk.reply().ackLine?.hasPrefix("ACK [5@0]") == true)
        #expect(junk.isClosedByServer())

        let http = try daemon.connect()
        try http.send("GET / HTTP/1.1")
        #expect(try http.reply().ackLine?.contains("not a Soundtrace command") == true)
        #expect(http.isClosedByServer())

        // The client cap: three are connected (client, plus two below), the fourth is refused.
        let second = try daemon.connect()
        let third = try daemon.connect()
        let refused = try ProtocolConnection(port: daemon.port)
        #expect(refused.greetingLine == "ACK [56@0] {} too many clients (3); try again later")
        #expect(refused.isClosedByServer())
        #expect(try second.command("ping") == .ok([]))
        _ = third
    }

    @Test func readinessWatchdogAndStoppingReachTheNotifySocket() throws {
        let state = DaemonProcess.stateDirectory("notify")
        let socketPath = state + ".notify"
        let listener = try NotifyListener(path: socketPath)
        let daemon = try DaemonProcess(stateDirectory: state, environment: ["NOTIFY_SOCKET": socketPath, "WATCHDOG_USEC": "400000"])
        let ready = try listener.receive(timeoutMilliseconds: 5000)
        #expect(ready.hasPrefix("READY=1\nSTATUS="), "\(ready)")
        #expect(try listener.receive(timeoutMilliseconds: 2000) == "WATCHDOG=1")
        #expect(try listener.receive(timeoutMilliseconds: 2000) == "WATCHDOG=1")
        #expect(daemon.stop() == 0)
        var messages: [String] = []
        while let message = try? listener.receive(timeoutMilliseconds: 500) { messages.append(message) }
        #expect(messages.contains("STOPPING=1"), "\(messages)")
    }

    @Test func sigtermDuringASessionClosesTheDeviceAndExitsCleanly() throws {
        if let missing = TestPulseServer.missingRequirements() {
            Issue.record(Comment(rawValue: missing))
            return
        }
        let server = mics.daemonPulse
        try server.start()
        defer { server.stop() }
        let state = DaemonProcess.stateDirectory("sigterm")
        let daemon = try DaemonProcess(stateDirectory: state, device: mics.daemonPulsePCM)
        let client = try daemon.connect()
        #expect(try client.command("listen").value("state") == "listening")
        try waitForCaptureStreams(server, present: true)
        let signalled = ProtocolConnection.now()
        #expect(daemon.stop() == 0)
        #expect(ProtocolConnection.now() - signalled < 3000)
        #expect(daemon.log.contains("session s-1 canceled"), "\(daemon.log)")
        #expect(daemon.log.contains("stopped"))
        try waitForCaptureStreams(server, present: false)
    }

    private func waitForCaptureStreams(_ server: TestPulseServer, present: Bool) throws {
        let listing = mics.directory + "/daemon-source-outputs.txt"
        for _ in 0..<200 {
            try ChildProcess(
                path: try TestPulseServer.executable("pactl").orThrow("pactl missing"),
                arguments: ["list", "short", "source-outputs"], environment: server.environment,
                stdout: listing
            ).waitForExit()
            let text = (try? String(contentsOfFile: listing, encoding: .utf8)) ?? ""
            if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty != present { return }
            usleep(50_000)  // the server's stream list is the condition itself; at most 10 s
        }
        throw TestFailure("capture streams never became \(present ? "present" : "absent")")
    }
}

/// Strings collected from several threads.
final class Failures: @unchecked Sendable {
    // @unchecked: `items` is guarded by `lock`.
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ item: String) {
        lock.lock()
        list.append(item)
        lock.unlock()
    }
    var items: [String] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }
}

/// A datagram socket standing in for systemd's notification socket.
final class NotifyListener {
    private let descriptor: Int32
    private let path: String

    init(path: String) throws {
        self.path = path
        unlink(path)
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw TestFailure("cannot bind \(path): \(String(cString: strerror(errno)))") }
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    func receive(timeoutMilliseconds: Int) throws -> String {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, Int32(timeoutMilliseconds)) > 0 else { throw TestFailure("no notification within \(timeoutMilliseconds) ms") }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        return String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
    }
}
