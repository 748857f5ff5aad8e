import SoundtraceProtocol

/// `status`, `ping` and `commands`: what the daemon is doing and whether it answers.
enum StatusCommands {
    static let status = DaemonCommand(
        name: "status",
        summary: "Shows what soundtraced is doing: listening or idle, the last outcome, the catalog, the microphone and calm mode.",
        argument: .none,
        jsonHelp: "one JSON object with the daemon's status keys in camelCase",
        body: runStatus)

    static let ping = DaemonCommand(
        name: "ping",
        summary: "Checks that soundtraced answers and speaks protocol 1 (and, if one is given, that the token is right; "
            + "a daemon with no token set accepts any from this machine).",
        argument: .none,
        jsonHelp: "one JSON object: daemon, protocol",
        body: runPing)

    static let commands = DaemonCommand(
        name: "commands",
        summary: "Lists the protocol commands this connection may use (read-only ones unless it has control).",
        argument: .none,
        jsonHelp: "one JSON object: commands, an array of names",
        body: runCommands)

    private static func runStatus(_ c: DaemonContext) throws(ClientError) -> ExitCode {
        let client = try c.connect()
        let reply = try client.request("status")
        if c.json {
            c.console.print(ReplyJSON.object(reply))
            return .success
        }
        c.console.print(text(reply, endpoint: client.endpoint, style: c.style))
        return .success
    }

    static func text(_ r: ProtocolReply, endpoint: String, style: TextStyle) -> String {
        var lines = [style.bold("soundtraced at \(endpoint)")]
        func add(_ label: String, _ value: String) { lines.append("  " + (label.isEmpty ? "" : label + ":").padding(12) + value) }
        let state = r.value("state") ?? "unknown"
        if state == "listening", let session = r.value("session") {
            add("state", style.good("listening") + " (session \(session))")
        } else {
            add("state", state)
        }
        if let last = r.value("last_session"), let outcome = r.value("last_outcome") {
            var text = "\(last) "
            switch outcome {
            case "matched":
                text += style.good("match") + " " + (r.value("last_reference") ?? "")
                if let title = r.value("last_title") { text += " \"\(title)\"" }
            case "noMatch": text += style.notice("no match")
            case "failed": text += style.bad("failed")
            case "canceled": text += style.notice("canceled")
            default: text += outcome
            }
            if outcome != "matched", let message = r.value("last_message") { text += " — \(message)" }
            add("last", text)
        } else {
            add("last", "no session yet — press the button or run `soundtrace listen`")
        }
        if r.value("catalog") == "ok" {
            var parts = ["ok"]
            if let version = r.value("catalog_version") { parts.append("version \(version)") }
            if let count = r.value("catalog_references") { parts.append("\(count) references") }
            if let hash = r.value("catalog_hash") { parts.append("sha256 \(hash)") }
            add("catalog", parts.joined(separator: ", "))
            if let warning = r.value("catalog_warning") { add("", style.notice(warning)) }
        } else if let catalog = r.value("catalog") {
            add("catalog", style.bad(catalog) + (r.value("catalog_error").map { " — \($0)" } ?? ""))
        }
        if let problem = r.value("history_error") { add("history", style.bad(problem)) }
        if let device = r.value("device") {
            let health = r.value("device_health") ?? "unknown"
            var text = "\(device) (\(health == "failed" ? style.bad(health) : health))"
            if let error = r.value("device_error") { text += " — \(error)" }
            add("microphone", text)
        }
        if let window = r.value("window") { add("window", "\(window) s") }
        if let calm = r.value("calm") { add("calm mode", calm == "yes" ? "on (steady LEDs)" : "off") }
        if let problem = r.value("panel_error") { add("panel", "\(r.value("panel") ?? "console") — \(problem)") }
        if let mqtt = r.value("mqtt") { add("mqtt", mqtt == "connected" ? style.good(mqtt) : style.notice(mqtt)) }
        return lines.joined(separator: "\n")
    }

    private static func runPing(_ c: DaemonContext) throws(ClientError) -> ExitCode {
        let client = try c.connect()
        _ = try client.request("ping")
        if c.json {
            c.console.print(Text.jsonObject([("daemon", Text.json(client.endpoint)), ("protocol", String(ProtocolText.version))]))
        } else {
            c.console.print("soundtraced at \(client.endpoint) answers (protocol \(ProtocolText.version)).")
        }
        return .success
    }

    private static func runCommands(_ c: DaemonContext) throws(ClientError) -> ExitCode {
        let names = try c.request("commands", []).values("command")
        if c.json {
            c.console.print("{\"commands\": [" + names.map(Text.json).joined(separator: ", ") + "]}")
            return .success
        }
        let width = (names.map(\.count).max() ?? 0) + 2
        for name in names {
            // The summary comes from this client's table; a command it does not know is listed bare.
            c.console.print(ProtocolCommand.named(name).map { name.padding(width) + $0.summary } ?? name)
        }
        return .success
    }
}
