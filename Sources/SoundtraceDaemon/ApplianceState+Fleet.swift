import SoundtraceCore
import SoundtraceProtocol

/// The appliance's side of the MQTT link: what changed is posted to the link's outbox (never
/// sent from here), and commands from the command topic run here, under the state's lock, through
/// the same session rules as the button and the protocol.
extension ApplianceState {
    /// Posts the retained topics that `flags` covers.
    func announce(_ flags: IdleFlags) {
        guard let fleet else { return }
        let topics = fleet.topics
        if flags.contains(.state) {
            fleet.post(topics.state, sessionUnderway ? "listening" : "idle", retained: true)
            fleet.post(topics.calm, calm ? "on" : "off", retained: true)
        }
        if flags.contains(.catalog) { fleet.post(topics.catalog, FleetPayloads.catalog(catalogSlot), retained: true) }
    }

    /// Posts a finished session: the last outcome (retained) and, for a match, the recognition.
    func announceOutcome(_ record: SessionRecord) {
        guard let fleet else { return }
        let now = environment.clock.wallMilliseconds()
        fleet.post(fleet.topics.last, FleetPayloads.last(record, endedAt: now), retained: true)
        if case let .matched(result) = record.session.state {
            fleet.post(fleet.topics.event, FleetPayloads.event(record, result, at: now), retained: false)
        }
    }

    /// Runs a message from the command topic; the answer goes to the reply topic.
    mutating func fleetCommand(_ payload: [UInt8]) {
        switch FleetCommand.parse(payload) {
        case let .failure(refusal):
            fleetReply(refusal.received, ok: false, [("error", refusal.message)])
        case .success(.listen):
            if mustDeferStart {
                // Like a protocol listen: it runs once the previous session's device has closed.
                if !deferredStarts.contains(.fleet) { deferredStarts.append(.fleet) }
                return
            }
            fleetListen()
        case .success(.cancel):
            if let ended = cancelSession() {
                fleetReply("cancel", ok: true, [("session", ended.id), ("state", ended.state.name)])
            } else {
                fleetReply("cancel", ok: true, [("state", "idle")])
            }
        case let .success(.calm(on)):
            setCalmMode(on, cause: "MQTT command")
            fleetReply(on ? "calm on" : "calm off", ok: true, [("calm", on ? "on" : "off")])
        }
    }

    /// A `listen` from the command topic, now or when the device it waited for has closed.
    mutating func fleetListen() {
        switch startSession(for: .fleet) {
        case .success(nil): break  // answered when it runs again, once the device has opened or was given up
        case let .success(session?): fleetReply("listen", ok: true, [("session", session.id), ("state", session.state.name)])
        case let .failure(error): fleetReply("listen", ok: false, [("error", error.message)])
        }
    }

    private func fleetReply(_ command: String, ok: Bool, _ fields: [(String, String)]) {
        guard let fleet else { return }
        fleet.post(fleet.topics.reply, FleetPayloads.reply(command, ok: ok, fields: fields), retained: false)
    }
}

extension Appliance {
    /// A message on the MQTT command topic (from the link's thread).
    func fleetCommand(_ payload: [UInt8]) {
        state.withLock { $0.fleetCommand(payload) }
    }

    /// Attaches the MQTT link and posts the current state, calm mode and catalog.
    func attachFleet(_ fleet: FleetLink) {
        state.withLock { state in
            state.fleet = fleet
            // Retained, so sent again on every connection like the rest; an empty one removes.
            let discovery =
                fleet.discovery
                ? HomeAssistantDiscovery.messages(fleet.topics, version: SoundtraceVersion.current)
                : HomeAssistantDiscovery.removals(fleet.topics)
            for message in discovery { fleet.post(message.topic, message.payload, retained: true) }
            state.announce([.state, .catalog])
        }
    }
}
