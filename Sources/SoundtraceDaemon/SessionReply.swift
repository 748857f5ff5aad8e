import SoundtraceCore

/// A session as the protocol describes it (`listen`, `cancel`, `session ID`): keys in a fixed
/// order, only those that apply.
enum SessionReply {
    static func pairs(_ record: SessionRecord, device: String) -> [(String, String)] {
        let session = record.session
        var pairs: [(String, String)] = [
            ("session", session.id), ("state", session.state.name),
            ("started_at", ProtocolValues.time(session.startedAt)), ("device", device)
        ]
        switch session.state {
        case let .matched(result):
            let reference = result.reference
            pairs += [
                ("reference", reference.id), ("title", reference.title), ("creator", reference.creator),
                ("license", reference.license), ("offset", ProtocolValues.seconds(result.offsetMilliseconds)),
                ("score", String(result.score)), ("runner_up", String(result.runnerUpScore)),
                ("heard", ProtocolValues.seconds(result.heardMilliseconds))
            ]
            if let event = record.eventId {
                pairs += [("event", String(event)), ("saved", "yes")]
            } else if record.deletedFromHistory {
                pairs.append(("saved", "deleted"))
            } else if let problem = record.saveError {
                pairs += [("saved", "no"), ("save_error", problem)]
            }
        case let .noMatch(reason):
            switch reason {
            case let .silence(heard):
                pairs += [("heard", ProtocolValues.seconds(heard)), ("reason", "silence")]
            case let .notInCatalog(heard):
                pairs += [("heard", ProtocolValues.seconds(heard)), ("reason", "notInCatalog")]
            }
        case let .failed(fault):
            pairs.append(("reason", fault.code))
        case .canceled:
            if record.canceledByShutdown { pairs.append(("reason", "shutdown")) }
        case .listening:
            break
        }
        if let message = message(session.state, canceledByShutdown: record.canceledByShutdown) { pairs.append(("message", message)) }
        return pairs
    }

    /// The line for people that goes with a state that is not a match.
    static func message(_ state: SessionState, canceledByShutdown: Bool = false) -> String? {
        switch state {
        case let .noMatch(reason): return reason.description
        case .canceled: return canceledByShutdown ? "canceled: soundtraced is stopping" : "canceled before a result"
        case let .failed(fault): return fault.description
        case .listening, .matched: return nil
        }
    }
}
