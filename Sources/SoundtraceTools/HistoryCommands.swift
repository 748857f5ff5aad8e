import SoundtraceProtocol

/// `history`, `show`, `share` and `delete`: the recognitions saved on the box.
enum HistoryCommands {
    static let history = DaemonCommand(
        name: "history",
        summary: "Lists recognitions, newest first: a page START:END (index 0 is the newest, at most 100; default 0:100).",
        argument: .optionalRange,
        jsonHelp: "one JSON object: recognitions, an array of {id, sessionId, referenceId, title, …}",
        body: runHistory)

    static let show = DaemonCommand(
        name: "show",
        summary: "Shows one recognition with its reference's metadata.",
        argument: .recognition,
        jsonHelp: "one JSON object with the recognition's fields and a metadata object",
        body: runShow)

    static let share = DaemonCommand(
        name: "share",
        summary: "Prints one recognition as a line of plain text to paste (never audio).",
        argument: .recognition,
        jsonHelp: "one JSON object: text",
        body: runShare)

    static let delete = DaemonCommand(
        name: "delete",
        summary: """
            Deletes one recognition from the history, after asking on a terminal. Without a terminal
            (a script, a pipe) it refuses unless --yes is given.
            """,
        argument: .recognition,
        flags: [("--yes", "delete without asking")],
        jsonHelp: "one JSON object: deleted (the id)",
        details: "exit status: 0 when deleted, 130 when the question is answered no, 6 when there is no such recognition.",
        body: runDelete)

    private static func runHistory(_ c: DaemonContext) throws(ClientError) -> ExitCode {
        let records = try c.request("history", c.arguments).records(startingWith: "id")
        if c.json {
            c.console.print(ReplyJSON.list("recognitions", records))
        } else if records.isEmpty {
            if let range = c.arguments.first, !range.hasPrefix("0:") {
                c.console.print("No recognitions in \(range); the history is shorter (try `soundtrace history` for the newest).")
            } else {
                c.console.print("No recognitions yet — press the button or run `soundtrace listen`.")
            }
        } else {
            for record in records { c.console.print(line(record, style: c.style)) }
        }
        return .success
    }

    /// `#12  2026-11-29 15:40:02 UTC  "Harbor Lights" by Soundtrace Project at 12.345 s  harbor-lights  ★`
    static func line(_ r: ProtocolReply, style: TextStyle) -> String {
        var text = style.bold("#\(r.value("id") ?? "?")")
        if let time = r.value("matched_at") { text += "  " + TimeText.readable(time) }
        text += "  \"\(r.value("title") ?? r.value("reference") ?? "?")\""
        if let creator = r.value("creator") { text += " by \(creator)" }
        if let offset = r.value("offset") { text += " at \(offset) s" }
        if let reference = r.value("reference") { text += "  " + style.dim(reference) }
        if r.value("favorite") == "yes" { text += "  " + style.notice("★") }
        return text
    }

    private static func runShow(_ c: DaemonContext) throws(ClientError) -> ExitCode {
        let reply = try c.request("show", c.arguments)
        c.console.print(c.json ? ReplyJSON.object(reply) : Fields.text(reply, style: c.style))
        return .success
    }

    private static func runShare(_ c: DaemonContext) throws(ClientError) -> ExitCode {
        let reply = try c.request("share", c.arguments)
        let text = reply.value("text") ?? ""
        c.console.print(c.json ? Text.jsonObject([("text", Text.json(text))]) : text)
        return .success
    }

    private static func runDelete(_ c: DaemonContext) throws(ClientError) -> ExitCode {
        let id = c.arguments[0]
        let confirmed = c.flags.contains("--yes")
        // Refused before connecting: a script must say --yes, and must not hang on a question.
        guard confirmed || c.environment.standardInputIsTerminal else {
            c.console.error(
                "soundtrace delete: refusing to delete recognition \(id) without confirmation: standard input is not a terminal; pass --yes to delete it"
            )
            return .usage
        }
        let client = try c.connect()
        if !confirmed {
            // `show` first: the question names what will go, and an unknown id fails before asking.
            let shown = try client.request("show", [id])
            let title = shown.value("title").map { " (\"\($0)\")" } ?? ""
            c.console.prompt("Delete recognition \(id)\(title)? [y/N] ")
            let answer = (c.environment.readAnswer() ?? "").lowercased()
            guard answer == "y" || answer == "yes" else {
                c.console.error("Nothing deleted.")
                return .canceled
            }
        }
        let reply = try client.request("delete", [id])
        let deleted = reply.value("deleted") ?? id
        c.console.print(
            c.json ? Text.jsonObject([("deleted", ReplyJSON.value(deleted, key: "deleted"))]) : "Deleted recognition \(deleted).")
        return .success
    }
}
