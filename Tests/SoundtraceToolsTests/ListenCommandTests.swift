import Testing

@testable import SoundtraceTools

/// `listen`'s idle/session loop, Ctrl-C, and `cancel`, `session` and `watch`.
@Suite struct ListenCommandTests {
    typealias Step = FakeDaemon.Step

    /// The loop of docs/PROTOCOL.md: listen, then `idle state` and `session ID` until the state
    /// is no longer listening.
    static func loop(ending final: String, stillListeningRounds: Int = 0) -> [Step] {
        var steps = [Step(expect: "listen", reply: .text(Canned.listening))]
        for _ in 0..<stillListeningRounds {
            steps += [
                Step(expect: "idle state", reply: .text(Canned.changedState)),
                Step(expect: "session s-4", reply: .text(Canned.listening))
            ]
        }
        return steps + [
            Step(expect: "idle state", reply: .text(Canned.changedState)),
            Step(expect: "session s-4", reply: .text(final))
        ]
    }

    @Test func listenPrintsTheMatchLikeMatchDevice() throws {
        let (run, received) = try converse(Self.loop(ending: Canned.matched, stillListeningRounds: 2), ["listen"])
        #expect(run.status == .success)
        #expect(received == ["listen", "idle state", "session s-4", "idle state", "session s-4", "idle state", "session s-4"])
        #expect(
            run.out
                == "s-4: match harbor-lights \"Harbor Lights\" by Soundtrace Project at 12.345 s (score 57, heard 1.875 s, license CC0-1.0, history #12)\n"
        )
    }

    @Test func listenJSONHasMatchsShape() throws {
        let (run, _) = try converse(Self.loop(ending: Canned.matched), ["listen", "--json"])
        let daemon = run.out.split(separator: "\"")[3]
        #expect(
            run.out == """
                {"daemon": "\(daemon)", "sessionId": "s-4", "outcome": "match", "startedAt": "2026-11-29T15:40:00.500Z", \
                "referenceId": "harbor-lights", "title": "Harbor Lights", "creator": "Soundtrace Project", "license": "CC0-1.0", \
                "offsetSeconds": 12.345, "score": 57, "heardSeconds": 1.875, "eventId": 12, "saved": true}

                """)
    }

    @Test func aSessionWhoseRecognitionWasDeletedSaysSo() throws {
        let (run, _) = try converse([Step(expect: "session s-4", reply: .text(Canned.matchedDeleted))], ["session", "s-4"])
        #expect(run.status == .success)
        #expect(run.out.contains("(score 57, heard 1.875 s, license CC0-1.0, deleted from the history)"), "\(run.out)")
        #expect(!run.out.contains("history #"))
        let (json, _) = try converse([Step(expect: "session s-4", reply: .text(Canned.matchedDeleted))], ["session", "s-4", "--json"])
        #expect(json.out.contains("\"eventId\": null, \"saved\": true, \"deleted\": true}"), "\(json.out)")
    }

    @Test func aMatchTheDaemonCouldNotSaveSaysSo() throws {
        let (run, _) = try converse(Self.loop(ending: Canned.matchedNotSaved), ["listen"])
        #expect(run.status == .success)
        #expect(run.out.hasSuffix("s-4: not saved in the history: cannot record the match: the disk is full; free space\n"))
        let (json, _) = try converse(Self.loop(ending: Canned.matchedNotSaved), ["listen", "--json"])
        #expect(
            json.out.contains(
                "\"eventId\": null, \"saved\": false, \"saveError\": \"cannot record the match: the disk is full; free space\"}"))
    }

    @Test func listenNoMatchIsSuccessAndSaysWhy() throws {
        let (text, _) = try converse(Self.loop(ending: Canned.noMatch), ["listen"])
        #expect(text.status == .success)
        #expect(text.out == "s-4: no match (heard audio that is not in the catalog)\n")
        let (json, _) = try converse(Self.loop(ending: Canned.noMatch), ["listen", "--json"])
        #expect(json.status == .success)
        #expect(
            json.out.hasSuffix(
                "\"outcome\": \"noMatch\", \"startedAt\": \"2026-11-29T15:40:00.500Z\", \"referenceId\": null, \"title\": null, \"creator\": null, \"offsetSeconds\": null, \"score\": 0, \"reason\": \"notInCatalog\", \"heardSeconds\": 10.000, \"message\": \"heard audio that is not in the catalog\"}\n"
            ))
    }

    @Test func listenFailureExitsFourWithTheFault() throws {
        let (text, _) = try converse(Self.loop(ending: Canned.failed), ["listen"])
        #expect(text.status == .deviceFailed)
        #expect(text.out == "s-4: failed: the microphone was unplugged while listening; plug it back in and listen again\n")
        let (json, _) = try converse(Self.loop(ending: Canned.failed), ["listen", "--json"])
        #expect(json.status == .deviceFailed)
        #expect(json.out.contains("\"outcome\": \"failed\""))
        #expect(
            json.out.hasSuffix(
                "\"errorCode\": \"deviceDisconnected\", \"error\": \"the microphone was unplugged while listening; plug it back in and listen again\"}\n"
            ))
    }

    @Test func aDaemonThatStopsWhileListeningIsNotACtrlC() throws {
        let (text, _) = try converse(Self.loop(ending: Canned.canceledByShutdown), ["listen"])
        #expect(text.status == .unreachable)
        #expect(text.out == "s-4: canceled: soundtraced stopped before a result; see journalctl -u soundtraced\n")
        let (json, _) = try converse(Self.loop(ending: Canned.canceledByShutdown), ["listen", "--json"])
        #expect(json.status == .unreachable)
        #expect(json.out.contains("\"outcome\": \"canceled\"") && json.out.contains("\"reason\": \"shutdown\""), "\(json.out)")
    }

    @Test func ctrlCWhileWaitingCancelsOnTheDaemon() throws {
        let interrupt = InterruptSignal()
        let steps = [
            Step(expect: "listen", reply: .text(Canned.listening)),
            // The daemon holds the idle; Ctrl-C arrives while the client waits in it.
            Step(expect: "idle state", reply: .hold, action: { interrupt.raise() }),
            Step(expect: "noidle", reply: .text("OK\n")),
            Step(expect: "cancel s-4", reply: .text(Canned.canceled))
        ]
        let (run, received) = try converse(steps, ["listen", "--json"], interrupt: interrupt)
        #expect(run.status == .canceled)
        #expect(received == ["listen", "idle state", "noidle", "cancel s-4"])
        #expect(run.out.contains("\"sessionId\": \"s-4\", \"outcome\": \"canceled\""))
    }

    @Test func ctrlCAfterTheSessionEndedDoesNotCancelANewerOne() throws {
        let interrupt = InterruptSignal()
        let steps = [
            Step(expect: "listen", reply: .text(Canned.listening)),
            Step(expect: "idle state", reply: .hold, action: { interrupt.raise() }),
            // The session matched just before the noidle: the cancel names it, so the daemon
            // cancels nothing and answers with the match, which is printed.
            Step(expect: "noidle", reply: .text(Canned.changedState)),
            Step(expect: "cancel s-4", reply: .text(Canned.matched))
        ]
        let (run, received) = try converse(steps, ["listen"], interrupt: interrupt)
        #expect(received == ["listen", "idle state", "noidle", "cancel s-4"])
        #expect(run.status == .success)
        #expect(run.out.hasPrefix("s-4: match harbor-lights"))
    }

    @Test func aQuietIdleIsRenewedBeforeTheDaemonDropsIt() throws {
        var limits = DaemonRun.testLimits
        limits.idleRenewMilliseconds = 100
        let steps = [
            Step(expect: "listen", reply: .text(Canned.listening)),
            Step(expect: "idle state", reply: .hold),
            Step(expect: "noidle", reply: .text("OK\n")),
            Step(expect: "idle state", reply: .text(Canned.changedState)),
            Step(expect: "session s-4", reply: .text(Canned.matched))
        ]
        let (run, _) = try converse(steps, ["listen"], limits: limits)
        #expect(run.status == .success)
        #expect(run.out.hasPrefix("s-4: match"))
    }

    @Test func listenWhileBusyIsRefused() throws {
        let busy = "ACK [54@0] {listen} already listening (session s-3); wait for it or run `soundtrace cancel`\n"
        let (run, _) = try converse([("listen", busy)], ["listen"])
        #expect(run.status == .refused)
        #expect(run.err == "soundtrace listen: already listening (session s-3); wait for it or run `soundtrace cancel`\n")
        #expect(run.out.isEmpty)
    }

    @Test func cancelAndSession() throws {
        let canceled = try converse([("cancel", Canned.canceled)], ["cancel"]).run
        #expect(canceled.out == "Canceled session s-4.\n")
        let nothing = try converse([("cancel", "state: idle\nOK\n")], ["cancel"]).run
        #expect(nothing.status == .success)
        #expect(nothing.out == "Nothing was listening; nothing to cancel.\n")
        let nothingJSON = try converse([("cancel", "state: idle\nOK\n")], ["cancel", "--json"]).run
        #expect(nothingJSON.out == "{\"canceled\": false, \"sessionId\": null}\n")
        // A bare number is the same session id.
        let (session, received) = try converse([("session s-4", Canned.noMatch)], ["session", "4"])
        #expect(received == ["session s-4"])
        #expect(session.out == "s-4: no match (heard audio that is not in the catalog)\n")
        #expect(session.status == .success)
        let sessionJSON = try converse([("session s-4", Canned.canceled)], ["session", "s-4", "--json"]).run
        #expect(sessionJSON.status == .success, "a query succeeds whatever the session's outcome")
        #expect(
            sessionJSON.out.hasSuffix(
                "\"sessionId\": \"s-4\", \"outcome\": \"canceled\", \"startedAt\": \"2026-11-29T15:40:00.500Z\", \"referenceId\": null, \"title\": null, \"creator\": null, \"offsetSeconds\": null, \"score\": 0, \"message\": \"canceled\"}\n"
            ))
        let listening = try converse([("session s-4", Canned.listening)], ["session", "s-4"]).run
        #expect(listening.out == "s-4: still listening (started 2026-11-29 15:40:00 UTC)\n")
    }

    @Test func watchPrintsOneLinePerChangeUntilCtrlC() throws {
        let interrupt = InterruptSignal()
        let steps = [
            Step(expect: "status", reply: .text(Canned.status)),
            Step(expect: "idle state", reply: .text(Canned.changedState)),
            Step(expect: "status", reply: .text(Canned.statusListening)),
            Step(expect: "idle state", reply: .text(Canned.changedState)),
            Step(expect: "status", reply: .text(Canned.statusMatched)),
            // A change that leaves the line as it was prints nothing.
            Step(expect: "idle state", reply: .text(Canned.changedState)),
            Step(expect: "status", reply: .text(Canned.statusMatched)),
            Step(expect: "idle state", reply: .hold, action: { interrupt.raise() }),
            Step(expect: "noidle", reply: .text("OK\n"))
        ]
        let (run, _) = try converse(steps, ["watch"], interrupt: interrupt)
        #expect(run.status == .success)
        #expect(
            run.out == """
                15:40:02  idle  s-3 no match: heard audio that is not in the catalog
                15:40:02  listening  s-4
                15:40:02  idle  s-4 match harbor-lights "Harbor Lights"

                """)
        let jsonInterrupt = InterruptSignal()
        let jsonSteps = [
            Step(expect: "status", reply: .text(Canned.statusMatched)),
            Step(expect: "idle state", reply: .hold, action: { jsonInterrupt.raise() }),
            Step(expect: "noidle", reply: .text("OK\n"))
        ]
        let json = try converse(jsonSteps, ["watch", "--json"], interrupt: jsonInterrupt).run
        #expect(
            json.out
                == "{\"time\": \"2026-11-29T15:40:02.375Z\", \"state\": \"idle\", \"sessionId\": \"s-4\", \"outcome\": \"match\", \"referenceId\": \"harbor-lights\", \"title\": \"Harbor Lights\", \"message\": null}\n"
        )
    }

    @Test func watchReportsALostConnection() throws {
        let steps = [Step(expect: "status", reply: .text(Canned.status)), Step(expect: "idle state", reply: .close)]
        let (run, _) = try converse(steps, ["watch"])
        #expect(run.status == .unreachable)
        #expect(run.err.hasSuffix("closed the connection\n"))
    }
}
