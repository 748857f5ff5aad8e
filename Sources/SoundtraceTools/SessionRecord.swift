import SoundtraceProtocol

/// A session as `listen`, `cancel` and `session ID` describe it, printed the way
/// `match --device` prints a live session: the same text line and the same JSON shape.
struct SessionRecord: Equatable {
    let reply: ProtocolReply
    let id: String
    /// `listening`, `matched`, `noMatch`, `canceled` or `failed`.
    let state: String

    /// The record in `reply`, or nil when it lacks a session id or state.
    init?(_ reply: ProtocolReply) {
        guard let id = reply.value("session"), let state = reply.value("state") else { return nil }
        self.reply = reply
        self.id = id
        self.state = state
    }

    var isListening: Bool { state == "listening" }

    /// `match`'s outcome names: match, noMatch, canceled, failed (a newer state passes through).
    var outcome: String { state == "matched" ? "match" : state }

    /// The exit status `match --device` gives the same outcome.
    var exitCode: ExitCode {
        switch state {
        case "matched", "noMatch": return .success
        // Canceled because soundtraced stopped: the daemon went away, as a closed connection does.
        case "canceled": return reply.value("reason") == "shutdown" ? .unreachable : .canceled
        case "failed": return .deviceFailed
        // Still listening (a `session` query) or a state this client does not know: not a failure.
        default: return .success
        }
    }

    func text(style: TextStyle) -> String {
        let r = reply
        switch state {
        case "matched":
            var details = ["score \(r.value("score") ?? "?")"]
            if let heard = r.value("heard") { details.append("heard \(heard) s") }
            if let license = r.value("license") { details.append("license \(license)") }
            if let event = r.value("event") { details.append("history #\(event)") }
            if r.value("saved") == "deleted" { details.append("deleted from the history") }
            let title = r.value("title").map { " \"\($0)\"" } ?? ""
            let creator = r.value("creator").map { " by \($0)" } ?? ""
            let line =
                "\(id): \(style.good("match")) \(r.value("reference") ?? "?")\(title)\(creator) at \(r.value("offset") ?? "?") s (\(details.joined(separator: ", ")))"
            // A result the box could not keep must not look like one it kept.
            guard r.value("saved") == "no" else { return line }
            return line + "\n\(id): \(style.bad("not saved in the history")): \(r.value("save_error") ?? "no reason given")"
        case "noMatch":
            return "\(id): \(style.notice("no match")) (\(r.value("message") ?? r.value("reason") ?? "no reason given"))"
        case "canceled":
            guard reply.value("reason") == "shutdown" else { return "\(id): \(style.notice("canceled"))" }
            return "\(id): \(style.bad("canceled")): soundtraced stopped before a result; see journalctl -u soundtraced"
        case "failed":
            return "\(id): \(style.bad("failed")): \(r.value("message") ?? r.value("reason") ?? "no reason given")"
        case "listening":
            return "\(id): still listening (started \(TimeText.readable(r.value("started_at") ?? "?")))"
        default:
            return "\(id): \(state)"
        }
    }

    /// The JSON object of `match --device --json`, with `daemon` (HOST:PORT) in place of `device`
    /// and the daemon's extra facts (startedAt, eventId). The daemon does not report a runner-up
    /// score, so `runnerUpScore` is absent.
    func json(daemon: String) -> String {
        let r = reply
        func decimal(_ key: String) -> String { r.value(key).flatMap { ReplyJSON.isDecimal($0) ? $0 : nil } ?? "null" }
        func string(_ key: String) -> String { r.value(key).map(Text.json) ?? "null" }
        var pairs: [(String, String)] = [
            ("daemon", Text.json(daemon)), ("sessionId", Text.json(id)), ("outcome", Text.json(outcome)),
            ("startedAt", string("started_at"))
        ]
        if state == "matched" {
            pairs += [
                ("referenceId", string("reference")), ("title", string("title")), ("creator", string("creator")),
                ("license", string("license")), ("offsetSeconds", decimal("offset")),
                ("score", r.value("score").flatMap { Int($0) }.map(String.init) ?? "0"),
                ("heardSeconds", decimal("heard")), ("eventId", r.value("event").flatMap { Int($0) }.map(String.init) ?? "null"),
                ("saved", r.value("saved") == "no" ? "false" : "true")
            ]
            if let problem = r.value("save_error") { pairs.append(("saveError", Text.json(problem))) }
            if r.value("saved") == "deleted" { pairs.append(("deleted", "true")) }
            return Text.jsonObject(pairs)
        }
        pairs += [("referenceId", "null"), ("title", "null"), ("creator", "null"), ("offsetSeconds", "null"), ("score", "0")]
        switch state {
        case "noMatch":
            pairs += [("reason", string("reason")), ("heardSeconds", decimal("heard")), ("message", string("message"))]
        case "failed":
            // match --device names a capture fault errorCode/error; the daemon's reason/message are the same facts.
            pairs += [("errorCode", string("reason")), ("error", string("message"))]
        case "canceled":
            if r.value("reason") != nil { pairs.append(("reason", string("reason"))) }
            if r.value("message") != nil { pairs.append(("message", string("message"))) }
        default:
            break
        }
        return Text.jsonObject(pairs)
    }
}
