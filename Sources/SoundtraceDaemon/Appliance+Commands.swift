import SoundtraceCore
import SoundtracePlatform
import SoundtraceProtocol

extension ApplianceState {
    /// The reply to `listen`: the new session as `session` would describe it.
    /// While the previous session's device is still closing, the line runs again once it has
    /// closed (`captureClosed`): opening it meanwhile would find it busy. While the device is still
    /// opening, it runs again once the open has returned or was given up.
    mutating func listen(_ client: LineServer.Client) throws(ProtocolError) -> CommandOutcome {
        if mustDeferStart {
            deferredStarts.append(.client(client.id))
            return .deferred
        }
        guard let session = try startSession(for: .client(client.id)).get() else { return .deferred }
        return .reply(sessionPairs(recent.last { $0.session.token == session.token } ?? SessionRecord(session: session, eventId: nil)))
    }

    func commands(_ client: LineServer.Client) -> CommandOutcome {
        let permission = clients[client.id]?.permission ?? .read
        return .reply(ProtocolCommand.all.filter { $0.permission <= permission }.map { ("command", $0.name) })
    }

    /// A wrong token is answered after a delay, and the third closes the connection; across
    /// connections, `TokenThrottle` doubles the wait of every further attempt from the same
    /// address (a right token too, so its timing tells nothing), so guessing by reconnecting costs
    /// minutes per try. The comparison takes the same time wherever the guess goes wrong.
    mutating func token(_ presented: String, client: LineServer.Client) throws(ProtocolError) -> CommandOutcome {
        guard var state = clients[client.id] else { return .waiting }
        guard let expected = environment.token else {
            if client.isLoopback { return .reply([("permission", "control")]) }
            throw ProtocolError(.wrongToken, command: "token", "no token is configured on this appliance")
        }
        let address = Appliance.address(of: client.peer)
        let now = environment.clock.monotonicMilliseconds()
        let turn = tokenThrottle.turn(for: address, now: now)
        if Appliance.constantTimeEqual(Array(presented.utf8), Array(expected.utf8)) {
            tokenThrottle.succeeded(address)
            state.permission = .control
            state.wrongTokens = 0
            guard turn > now else {
                clients[client.id] = state
                return .reply([("permission", "control")])
            }
            state.heldReply = ProtocolText.reply([("permission", "control")])
            state.heldUntil = turn
            clients[client.id] = state
            environment.timersChanged()
            return .waiting
        }
        state.wrongTokens += 1
        let left = Appliance.maxWrongTokens - state.wrongTokens
        let message =
            left > 0
            ? "wrong token (\(left) \(left == 1 ? "try" : "tries") left before the connection closes)"
            : "wrong token; closing the connection"
        let answeredAt = max(turn, now + Appliance.wrongTokenDelayMilliseconds)
        let fromAddress = tokenThrottle.failed(address, answeredAt: answeredAt)
        state.heldReply = ProtocolText.reply(ProtocolError(.wrongToken, command: "token", message))
        state.closeAfterHeld = left <= 0
        state.heldUntil = answeredAt
        clients[client.id] = state
        if TokenThrottle.isWorthLogging(fromAddress) {
            DaemonLog.warning(
                "wrong token from \(address) (\(fromAddress) since its last right one; the next are logged at 10, 100, 1000, …)")
        }
        environment.timersChanged()
        return .waiting
    }

    mutating func idle(_ arguments: [String], client: LineServer.Client) throws(ProtocolError) -> CommandOutcome {
        guard var state = clients[client.id] else { return .waiting }
        let wanted = try IdleFlags.parse(arguments).get()
        let hit = state.pending.intersection(wanted)
        if !hit.isEmpty {
            state.pending.subtract(hit)
            clients[client.id] = state
            return .reply(hit.changedPairs)
        }
        state.idling = wanted
        clients[client.id] = state
        channel.setIdleExempt(client, true)
        return .waiting
    }

    /// Cancels what listens, or with a session id only that session: a client's late cancel must
    /// not end a newer session someone else started. A named session that already ended is
    /// described as it ended.
    mutating func cancel(_ id: String?) throws(ProtocolError) -> CommandOutcome {
        if let id, engine.listeningToken?.description != id {
            try Self.checkSessionID(id, command: "cancel")
            guard let record = recent.last(where: { $0.session.id == id }) else {
                throw ProtocolError(.notFound, command: "cancel", "no recent session \"\(id)\"; `status` names the current one")
            }
            return .reply(sessionPairs(record))
        }
        guard let ended = cancelSession() else { return .reply([("state", "idle")]) }
        return .reply(sessionPairs(recent.last { $0.session.token == ended.token } ?? SessionRecord(session: ended, eventId: nil)))
    }

    /// A malformed id is a bad argument, as `show x` is, and not an unknown session.
    static func checkSessionID(_ id: String, command: String) throws(ProtocolError) {
        guard SessionToken(id: id) == nil else { return }
        throw ProtocolError(
            .badArguments, command: command, "\"\(id)\" is not a session id; ids look like s-4 (`status` names the current one)")
    }

    func session(_ id: String) throws(ProtocolError) -> CommandOutcome {
        try Self.checkSessionID(id, command: "session")
        guard let record = recent.last(where: { $0.session.id == id }) else {
            throw ProtocolError(
                .notFound, command: "session",
                "no recent session \"\(id)\"; `status` names the current one (only the last \(Appliance.recentSessions) are kept)")
        }
        return .reply(sessionPairs(record))
    }

    func statusPairs() -> [(String, String)] {
        var pairs: [(String, String)] = [("state", sessionUnderway ? "listening" : "idle")]
        if let current = recent.last {
            pairs.append(("session", current.session.id))
            pairs.append(("session_state", current.session.state.name))
        }
        if let last = lastFinished {
            pairs.append(("last_session", last.session.id))
            pairs.append(("last_outcome", last.session.state.name))
            if case let .matched(result) = last.session.state {
                pairs.append(("last_reference", result.reference.id))
                pairs.append(("last_title", result.reference.title))
            } else if let message = SessionReply.message(last.session.state, canceledByShutdown: last.canceledByShutdown) {
                pairs.append(("last_message", message))
            }
        }
        pairs.append(("calm", ProtocolValues.yesNo(calm)))
        if let catalog = catalogSlot.catalog {
            pairs.append(("catalog", "ok"))
            pairs.append(("catalog_version", String(catalog.manifest.version)))
            pairs.append(("catalog_hash", catalog.manifest.hash))
            pairs.append(("catalog_references", String(catalog.references.count)))
            if let catalogWarning { pairs.append(("catalog_warning", catalogWarning)) }
        } else {
            pairs.append(("catalog", "unavailable"))
            pairs.append(("catalog_error", catalogSlot.problem ?? "no catalog loaded"))
        }
        if let problem = storeProblem ?? lastSaveError { pairs.append(("history_error", problem)) }
        pairs.append(("device", environment.device))
        switch deviceHealth {
        case .unknown: pairs.append(("device_health", "unknown"))
        case .ok: pairs.append(("device_health", "ok"))
        case let .failed(fault):
            pairs.append(("device_health", "failed"))
            pairs.append(("device_error", fault.description))
        }
        pairs.append(("window", String(environment.settings.windowMilliseconds / 1000)))
        pairs.append(("panel", panelKind))
        if let panelProblem { pairs.append(("panel_error", panelProblem)) }
        if let fleet { pairs.append(("mqtt", fleet.statusText)) }
        return pairs
    }

    func sessionPairs(_ record: SessionRecord) -> [(String, String)] {
        SessionReply.pairs(record, device: environment.device)
    }
}

extension Appliance {
    /// The host part of a peer "ADDRESS:PORT" or "[IPv6]:PORT".
    static func address(of peer: String) -> String {
        if peer.hasPrefix("["), let end = peer.firstIndex(of: "]") { return String(peer[peer.index(after: peer.startIndex)..<end]) }
        guard let colon = peer.lastIndex(of: ":") else { return peer }
        return String(peer[..<colon])
    }

    static let maxWrongTokens = 3
    static let wrongTokenDelayMilliseconds: Int64 = 1000

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        for index in 0..<max(a.count, b.count) {
            let x = index < a.count ? a[index] : 0
            let y = index < b.count ? b[index] : 0
            difference |= x ^ y
        }
        return difference == 0 && a.count == b.count
    }
}
