import SoundtraceProtocol

/// `watch`: one line per state change, until Ctrl-C. It sleeps in `idle state` between changes.
enum WatchCommand {
    static let command = DaemonCommand(
        name: "watch",
        summary: """
            Prints the daemon's state now and then one line per change (time in UTC, state, and for a
            finished session its outcome), until Ctrl-C.
            """,
        argument: .none,
        jsonHelp: "one JSON object per line: time, state, sessionId, outcome, referenceId, title, message",
        details: """
            exit status: 0 when stopped with Ctrl-C, 5 when the connection is lost, 6 when refused,
            7 when the lines cannot be written.
            """,
        body: run)

    private static func run(_ c: DaemonContext) throws(ClientError) -> ExitCode {
        let interrupt = c.environment.interrupt ?? InterruptSignal()
        let release = c.environment.interrupt == nil ? interrupt.catchProcessInterrupts() : nil
        defer { release?() }
        let client = try c.connect()
        var previous: Line?
        while true {
            let line = Line(try client.request("status"))
            // Idle also wakes for changes that leave what this prints as it was (device health, say).
            if line != previous {
                c.console.print(
                    c.json
                        ? line.json(time: c.environment.clock.wallMilliseconds())
                        : line.text(time: c.environment.clock.wallMilliseconds(), style: c.style))
            }
            previous = line
            // Nobody reads on (`watch | grep -m1 match`), or the output cannot be kept: stop.
            if c.console.outputEnded != nil { return .success }
            if try client.waitForStateChange(interrupt: interrupt) == .interrupted { return .success }
        }
    }

    /// What one watch line says, from a `status` reply.
    struct Line: Equatable {
        let state: String
        let session: String?
        /// The outcome of the most recent finished session, when idle after one.
        let outcome: String?
        let reference: String?
        let title: String?
        let message: String?

        init(_ r: ProtocolReply) {
            state = r.value("state") ?? "unknown"
            let listening = state == "listening"
            session = listening ? r.value("session") : r.value("last_session")
            outcome = listening ? nil : r.value("last_outcome")
            reference = listening ? nil : r.value("last_reference")
            title = listening ? nil : r.value("last_title")
            message = listening ? nil : r.value("last_message")
        }

        func text(time: Int64, style: TextStyle) -> String {
            var text = "\(TimeText.clock(time))  "
            if state == "listening" { return text + style.good("listening") + (session.map { "  \($0)" } ?? "") }
            text += state
            guard let session, let outcome else { return text }
            text += "  \(session) "
            switch outcome {
            case "matched":
                text += style.good("match") + (reference.map { " \($0)" } ?? "") + (title.map { " \"\($0)\"" } ?? "")
            case "noMatch": text += style.notice("no match")
            case "canceled": text += style.notice("canceled")
            case "failed": text += style.bad("failed")
            default: text += outcome
            }
            if outcome != "matched", let message { text += ": \(message)" }
            return text
        }

        func json(time: Int64) -> String {
            let outcomeName = outcome.map { $0 == "matched" ? "match" : $0 }
            return Text.jsonObject([
                ("time", Text.json(TimeText.iso(time))), ("state", Text.json(state)),
                ("sessionId", session.map(Text.json) ?? "null"), ("outcome", outcomeName.map(Text.json) ?? "null"),
                ("referenceId", reference.map(Text.json) ?? "null"), ("title", title.map(Text.json) ?? "null"),
                ("message", message.map(Text.json) ?? "null")
            ])
        }
    }
}
