import SoundtraceProtocol

/// `listen`, `cancel` and `session`: starting a recognition on the box and following it.
enum ListenCommands {
    static let listen = DaemonCommand(
        name: "listen",
        summary: """
            Starts a listening session on soundtraced's microphone, waits for its outcome and prints it
            like `soundtrace match --device` does. Ctrl-C cancels the session on the daemon.
            """,
        argument: .none,
        jsonHelp: "one JSON object: daemon, sessionId, outcome (match, noMatch, canceled or failed), …",
        details: """
            exit status: 0 for a match or no match, 4 when the session failed (capture device, or its
            catalog file rewritten in place), 5 when soundtraced cannot be reached or stopped while
            listening, 6 when it refused (busy, no catalog or device, permission), 130 when canceled.
            """,
        body: runListen)

    static let cancel = DaemonCommand(
        name: "cancel",
        summary: "Cancels the session soundtraced is listening in, if any (like a second button press).",
        argument: .none,
        jsonHelp: "one JSON object: canceled (true or false) and sessionId",
        body: runCancel)

    static let session = DaemonCommand(
        name: "session",
        summary: "Shows one recent listening session (the daemon keeps the last 32): its state and outcome.",
        argument: .session,
        jsonHelp: "one JSON object shaped like `listen --json`",
        body: runSession)

    private static func runListen(_ c: DaemonContext) throws(ClientError) -> ExitCode {
        let interrupt = c.environment.interrupt ?? InterruptSignal()
        let release = c.environment.interrupt == nil ? interrupt.catchProcessInterrupts() : nil
        defer { release?() }
        let client = try c.connect()
        guard !interrupt.isRaised else {
            c.console.error("soundtrace listen: interrupted before listening started; nothing to cancel")
            return .canceled
        }
        var record = try sessionRecord(client.request("listen"), client)
        if record.isListening {
            c.console.progress("listening on soundtraced at \(client.endpoint), session \(record.id)… (Ctrl-C cancels)")
        }
        while record.isListening {
            // A Ctrl-C that came while a request was answered is honoured here, before waiting.
            var interrupted = interrupt.isRaised
            if !interrupted { interrupted = try client.waitForStateChange(interrupt: interrupt) == .interrupted }
            if interrupted {
                record = try cancel(record, on: client)
                break
            }
            record = try sessionRecord(client.request("session", [record.id]), client)
        }
        c.console.endProgress()
        c.console.print(c.json ? record.json(daemon: client.endpoint) : record.text(style: c.style))
        return record.exitCode
    }

    /// Cancels our session if it is still listening and reads how it ended. `cancel ID` names the
    /// session, so a late Ctrl-C never ends a newer session someone else started; a session that
    /// ended meanwhile is reported as it ended.
    private static func cancel(_ record: SessionRecord, on client: ProtocolClient) throws(ClientError) -> SessionRecord {
        let reply = try client.request("cancel", [record.id])
        if let ended = SessionRecord(reply), ended.id == record.id, !ended.isListening { return ended }
        return try sessionRecord(client.request("session", [record.id]), client)
    }

    private static func sessionRecord(_ reply: ProtocolReply, _ client: ProtocolClient) throws(ClientError) -> SessionRecord {
        guard let record = SessionRecord(reply) else {
            throw .broken(endpoint: client.endpoint, detail: "sent a session without its session id or state")
        }
        return record
    }

    private static func runCancel(_ c: DaemonContext) throws(ClientError) -> ExitCode {
        let reply = try c.request("cancel", [])
        let record = SessionRecord(reply)
        if c.json {
            c.console.print(
                Text.jsonObject([
                    ("canceled", record == nil ? "false" : "true"),
                    ("sessionId", record.map { Text.json($0.id) } ?? "null")
                ]))
        } else if let record {
            c.console.print("Canceled session \(record.id).")
        } else {
            c.console.print("Nothing was listening; nothing to cancel.")
        }
        return .success
    }

    private static func runSession(_ c: DaemonContext) throws(ClientError) -> ExitCode {
        let client = try c.connect()
        let record = try sessionRecord(client.request("session", c.arguments), client)
        c.console.print(c.json ? record.json(daemon: client.endpoint) : record.text(style: c.style))
        return .success
    }
}
