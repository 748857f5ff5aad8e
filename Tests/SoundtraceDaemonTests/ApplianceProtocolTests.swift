import Foundation
import Glibc
import SoundtraceCore
import SoundtraceTestSupport
import Testing

@testable import SoundtraceDaemon
@testable import SoundtracePlatform

/// The appliance's protocol rules without a network or a microphone: replies are recorded, the
/// clock is a variable the test moves.
@Suite struct ApplianceProtocolTests {
    /// Replies as the appliance sent them, from any thread (a capture thread answers a deferred
    /// `listen`); `condition` guards everything.
    final class RecordingChannel: ClientChannel, @unchecked Sendable {
        // @unchecked: every property is read and written only while `condition` is locked.
        private let condition = NSCondition()
        private var sentLines: [Int: [String]] = [:]
        private var closedIds: Set<Int> = []
        private var exemptIds: Set<Int> = []
        private var steps: [String] = []
        struct Record {
            var sent: [Int: [String]]
            var closed: Set<Int>
            var exempt: Set<Int>
        }
        func locked<T>(_ body: (Record) -> T) -> T {
            condition.lock()
            defer { condition.unlock() }
            return body(Record(sent: sentLines, closed: closedIds, exempt: exemptIds))
        }
        var sent: [Int: [String]] { locked(\.sent) }
        var closed: Set<Int> { locked(\.closed) }
        var exempt: Set<Int> { locked(\.exempt) }
        /// Sends and awaiting-answer changes in the order they were asked for: "send 1",
        /// "await 1 on", "await 1 off".
        var order: [String] {
            condition.lock()
            defer { condition.unlock() }
            return steps
        }
        func send(_ text: String, to client: LineServer.Client) {
            condition.lock()
            steps.append("send \(client.id)")
            sentLines[client.id, default: []].append(text)
            condition.broadcast()
            condition.unlock()
        }
        func close(_ client: LineServer.Client) {
            condition.lock()
            closedIds.insert(client.id)
            condition.unlock()
        }
        func setIdleExempt(_ client: LineServer.Client, _ on: Bool) {
            condition.lock()
            if on { exemptIds.insert(client.id) } else { exemptIds.remove(client.id) }
            condition.unlock()
        }
        func setAwaitingAnswer(_ client: LineServer.Client, _ awaiting: Bool) {
            condition.lock()
            steps.append("await \(client.id) \(awaiting ? "on" : "off")")
            condition.unlock()
        }
        func take(_ client: LineServer.Client) -> [String] {
            condition.lock()
            defer { condition.unlock() }
            defer { sentLines[client.id] = [] }
            return sentLines[client.id] ?? []
        }
        /// Waits (at most 10 s) until `count` replies were sent to `client`; returns them.
        func waitFor(_ client: LineServer.Client, count: Int) -> [String] {
            condition.lock()
            defer { condition.unlock() }
            let deadline = Date(timeIntervalSinceNow: 10)
            while sentLines[client.id, default: []].count < count && condition.wait(until: deadline) {}
            return sentLines[client.id] ?? []
        }
    }

    let channel = RecordingChannel()
    let clock = ManualClock(1_000)
    let lan = LineServer.Client(id: 1, isLoopback: false, peer: "192.0.2.9:50000")
    let local = LineServer.Client(id: 2, isLoopback: true, peer: "127.0.0.1:50001")

    private func appliance(token: String? = "correct-horse-battery") -> Appliance {
        let clock = self.clock
        let environment = Appliance.Environment(
            device: "test", settings: .standard, token: token, makeSource: { _ in preconditionFailure("no capture in these tests") },
            clock: clock, timersChanged: {})
        let appliance = Appliance(
            environment: environment, channel: channel, indicator: nil,
            catalog: CatalogSlot(path: "/nowhere.catalog", catalog: nil, problem: "no file"),
            store: nil, storeProblem: "not opened in this test")
        appliance.clientConnected(lan)
        appliance.clientConnected(local)
        return appliance
    }

    private func say(_ appliance: Appliance, _ client: LineServer.Client, _ line: String) -> [String] {
        appliance.clientLine(client, Array(line.utf8))
        return channel.take(client)
    }

    @Test func lanClientsReadUntilTheyPresentTheToken() {
        let appliance = appliance()
        #expect(
            say(appliance, lan, "listen") == [
                "ACK [4@0] {listen} this connection may only read; present the token first (`token SECRET`)\n"
            ])
        let readable = say(appliance, lan, "commands").first ?? ""
        #expect(
            readable.contains("command: status\n") && !readable.contains("command: listen\n") && !readable.contains("command: delete\n"))
        #expect(say(appliance, lan, "token correct-horse-battery") == ["permission: control\nOK\n"])
        // Now it may control: listen gets as far as the missing catalog.
        #expect(say(appliance, lan, "listen").first?.hasPrefix("ACK [56@0] {listen} no usable catalog: no file") == true)
        #expect(say(appliance, local, "listen").first?.hasPrefix("ACK [56@0] {listen}") == true)
    }

    @Test func aWrongTokenIsAnsweredLateAndLinesWaitTheirTurn() {
        let appliance = appliance()
        #expect(say(appliance, lan, "token nope").isEmpty)
        #expect(say(appliance, lan, "ping").isEmpty)
        #expect(appliance.nextTimerDue() == 2_000)
        clock.now = 1_999
        appliance.fireTimers()
        #expect(channel.take(lan).isEmpty)
        clock.now = 2_000
        appliance.fireTimers()
        #expect(channel.take(lan) == ["ACK [3@0] {token} wrong token (2 tries left before the connection closes)\n", "OK\n"])
        #expect(appliance.nextTimerDue() == nil)
        _ = say(appliance, lan, "token nope")
        clock.now = 3_000
        appliance.fireTimers()
        _ = channel.take(lan)
        _ = say(appliance, lan, "token nope")
        // The third wrong token from this address waits twice as long as the second did.
        clock.now = 4_999
        appliance.fireTimers()
        #expect(channel.take(lan).isEmpty)
        clock.now = 5_000
        appliance.fireTimers()
        #expect(channel.take(lan) == ["ACK [3@0] {token} wrong token; closing the connection\n"])
        #expect(channel.closed.contains(lan.id))
    }

    @Test func reconnectingDoesNotResetTheWaitForTheNextGuess() {
        let appliance = appliance()
        for attempt in 0..<3 {
            _ = say(appliance, lan, "token nope")
            clock.now = appliance.nextTimerDue() ?? clock.now
            appliance.fireTimers()
            _ = channel.take(lan)
            #expect(attempt < 2 || channel.closed.contains(lan.id))
        }
        // A new connection from the same address (another port) waits its turn: 4 s after the
        // third answer, even for the right token, whose timing must not tell it apart.
        let again = LineServer.Client(id: 3, isLoopback: false, peer: "192.0.2.9:50002")
        appliance.clientConnected(again)
        let asked = clock.now
        #expect(say(appliance, again, "token correct-horse-battery").isEmpty)
        #expect(appliance.nextTimerDue() == asked + 4_000)
        clock.now = asked + 4_000
        appliance.fireTimers()
        #expect(channel.take(again) == ["permission: control\nOK\n"])
        // Another address is not held back by this one's guesses (beyond the shared spacing).
        let other = LineServer.Client(id: 4, isLoopback: false, peer: "198.51.100.7:40000")
        appliance.clientConnected(other)
        #expect(say(appliance, other, "token correct-horse-battery") == ["permission: control\nOK\n"])
    }

    @Test func idleAnswersChangesOnceAndNoidleOnlyWhileWaiting() {
        let appliance = appliance()
        #expect(say(appliance, local, "idle state").isEmpty)
        #expect(channel.exempt == [local.id])
        #expect(say(appliance, local, "noidle") == ["OK\n"])
        #expect(channel.exempt.isEmpty)
        #expect(say(appliance, local, "noidle").isEmpty)
        // A change before idle is answered at once, and only for the subsystems asked about.
        appliance.replaceCatalog(CatalogSlot(path: "/nowhere.catalog", catalog: nil, problem: "still no file"))
        #expect(say(appliance, local, "idle state history").isEmpty)
        #expect(say(appliance, local, "noidle") == ["OK\n"])
        #expect(say(appliance, local, "idle catalog") == ["changed: catalog\nOK\n"])
        #expect(say(appliance, local, "idle catalog").isEmpty)
        #expect(channel.exempt == [local.id])
        appliance.replaceCatalog(CatalogSlot(path: "/nowhere.catalog", catalog: nil, problem: "again"))
        #expect(channel.take(local) == ["changed: catalog\nOK\n"])
        #expect(channel.exempt.isEmpty)
    }

    @Test func noidleWithArgumentsIsRefusedLikeAnyWrongArgumentCount() {
        let appliance = appliance()
        let refusal = ["ACK [2@0] {noidle} noidle takes 0 arguments, got 1\n"]
        #expect(say(appliance, local, "noidle now") == refusal)
        #expect(say(appliance, local, "idle state").isEmpty)
        #expect(say(appliance, local, "noidle now") == refusal)
        // The idle still waits: a proper noidle ends it.
        #expect(channel.exempt == [local.id])
        #expect(say(appliance, local, "noidle") == ["OK\n"])
        #expect(channel.exempt.isEmpty)
    }

    @Test func junkClosesTheConnectionAndEmptyLinesAreIgnored() {
        let appliance = appliance()
        #expect(say(appliance, local, "").isEmpty)
        #expect(say(appliance, local, "GET / HTTP/1.1").first?.hasPrefix("ACK [5@0] {} 'GET' is not a Soundtrace command") == true)
        #expect(channel.closed.contains(local.id))
        #expect(say(appliance, local, "ping").isEmpty)
    }

    @Test func withoutHistoryTheHistoryCommandsSaySoAndStatusExplains() {
        let appliance = appliance()
        #expect(
            say(appliance, local, "history").first?.hasPrefix("ACK [52@0] {history} the history is unavailable: not opened in this test")
                == true)
        let status = say(appliance, local, "status").first ?? ""
        #expect(status.contains("catalog: unavailable\ncatalog_error: no file\n"))
        #expect(status.contains("history_error: not opened in this test\n"))
        #expect(status.hasPrefix("state: idle\n"))
        #expect(say(appliance, local, "cancel") == ["state: idle\nOK\n"])
    }
}

/// The guide's steps for adding a recording name the daemon's real catalog path (issue 17, 4).
@Suite struct GuideStepsTests {
    @Test func aDeployedPathIsInstalledOnto() {
        let steps = ApplianceState.addingSteps(catalogPath: "/usr/share/soundtrace/soundtrace.catalog").joined(separator: "\n")
        #expect(steps.contains("soundtrace catalog add FILE"))
        #expect(steps.contains("sudo install -m 0644 catalog/soundtrace.catalog /usr/share/soundtrace/soundtrace.catalog"))
        #expect(steps.contains("systemctl reload soundtraced"))
    }

    @Test func aRelativePathIsBuiltInPlaceNeverInstalledOntoItself() {
        var buffer = [CChar](repeating: 0, count: 4097)
        let folder = String(cString: getcwd(&buffer, buffer.count)!)
        let steps = ApplianceState.addingSteps(catalogPath: "catalog/soundtrace.catalog").joined(separator: "\n")
        #expect(steps.contains("soundtrace catalog build --out \(folder)/catalog/soundtrace.catalog"))
        #expect(!steps.contains("install -m"))
    }
}
