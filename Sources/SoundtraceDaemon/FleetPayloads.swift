import SoundtraceCore
import SoundtraceFingerprint

/// What the kiosk publishes, as the README's "Many kiosks" lists it: small JSON objects with the
/// protocol's names and value forms (times in UTC with milliseconds, seconds with three
/// decimals). Never audio: a recognition is described by its reference and offset only.
enum FleetPayloads {
    /// The last session's outcome (`<prefix>/last`).
    static func last(_ record: SessionRecord, endedAt: Int64) -> String {
        var json = sessionFields(record, at: endedAt)
        switch record.session.state {
        case let .matched(result): addMatch(result, to: &json)
        case let .noMatch(reason):
            if case .silence = reason { json.add("reason", "silence") } else { json.add("reason", "notInCatalog") }
        case let .failed(fault):
            json.add("reason", fault.code)
            json.add("message", fault.description)
        case .listening, .canceled: break
        }
        return json.object
    }

    /// One recognition (`<prefix>/event`): the match, and the history event that recorded it
    /// (null when it could not be saved).
    static func event(_ record: SessionRecord, _ result: MatchResult, at time: Int64) -> String {
        var json = sessionFields(record, at: time)
        addMatch(result, to: &json)
        json.add("event", raw: record.eventId.map { String($0) } ?? "null")
        return json.object
    }

    /// The served catalog (`<prefix>/catalog`).
    static func catalog(_ slot: CatalogSlot) -> String {
        var json = JSONText()
        if let catalog = slot.catalog {
            json.add("status", "ok")
            json.add("version", raw: String(catalog.manifest.version))
            json.add("hash", catalog.manifest.hash)
            json.add("references", raw: String(catalog.references.count))
        } else {
            json.add("status", "unavailable")
            json.add("error", slot.problem ?? "no catalog loaded")
        }
        return json.object
    }

    /// A command's answer (`<prefix>/reply`): `ok`, and the session it started or ended, or why not.
    static func reply(_ command: String, ok: Bool, fields: [(String, String)]) -> String {
        var json = JSONText()
        json.add("command", command)
        json.add("ok", raw: ok ? "true" : "false")
        for (key, value) in fields { json.add(key, value) }
        return json.object
    }

    private static func sessionFields(_ record: SessionRecord, at time: Int64) -> JSONText {
        var json = JSONText()
        json.add("session", record.session.id)
        json.add("outcome", record.session.state.name)
        json.add("time", ProtocolValues.time(time))
        return json
    }

    private static func addMatch(_ result: MatchResult, to json: inout JSONText) {
        json.add("reference", result.reference.id)
        json.add("title", result.reference.title)
        json.add("creator", result.reference.creator)
        json.add("offset", raw: ProtocolValues.seconds(result.offsetMilliseconds))
        json.add("score", raw: String(result.score))
    }
}
