import SoundtraceCore
import SoundtraceFingerprint
import SoundtracePlatform
import SoundtraceProtocol
import SoundtraceStore

/// Everything the appliance remembers, guarded by `Appliance.state`'s mutex (`Guarded`): every method here
/// runs inside `withLock`, the only place a caller gets the state `inout`.
struct ApplianceState: @unchecked Sendable {
    // @unchecked: not about the fields, which only `withLock` reaches, but about the objects some of
    // them refer to (the indicator, the history store, the catalog, the capture source, the
    // recognizer inside `engine`), which are not Sendable types. Each is used only inside the
    // mutex, except the history store (which serializes its own use: a match is written outside
    // the lock) and a session's source and recognizer, which its capture thread alone drives
    // (`CaptureJob`, `SessionRunner`; `AudioSource.wake` is safe from any thread).
    let environment: Appliance.Environment
    let channel: ClientChannel
    let indicator: StateIndicator?
    /// The appliance whose mutex holds this state, for the capture threads it starts.
    weak var appliance: Appliance?

    var store: HistoryStore?
    var storeProblem: String?
    var catalogSlot: CatalogSlot
    /// Set when a reload failed and the previous catalog is still served.
    var catalogWarning: String?
    /// The last catalog whose content check passed (`CatalogContentCheck`) ...
    var verifiedCatalog: Catalog?
    /// ... and, while a reloaded one waits for its check, the verified one it replaced: served
    /// again if the new one's content turns out damaged, as a reload that fails at once is.
    var catalogFallback: CatalogSlot?
    var engine: SessionEngine
    var nextToken: UInt64
    var recent: [SessionRecord] = []
    var lastFinished: SessionRecord?
    /// The session whose capture thread still runs (until it has closed the device), and its source.
    var captureToken: SessionToken?
    var captureSource: AudioSource?
    /// Starts asked for while the previous session's device was still closing or a start's device
    /// was still opening, oldest first; they run when it has closed (`captureClosed`) or the open
    /// has returned or was given up (`pendingOpenReturned`), so no entry point waits for a device.
    var deferredStarts: [DeferredStart] = []
    /// A device open that did not return within `longestDeviceOpenMilliseconds`, still running on
    /// its own thread: no start opens the device again until it has returned (and closed it).
    var unansweredOpen: UnansweredOpen?
    /// A start's open still under way, past the prompt bound (`Appliance+DeviceOpen`) ...
    var pendingOpen: PendingOpen?
    /// ... and what it came to, until the first deferred start takes it up.
    var returnedOpen: ReturnedOpen?
    /// The catalog the listening session matches against: a reload meanwhile does not change what
    /// its result records (metadata and catalog hash).
    var sessionCatalog: (token: SessionToken, catalog: Catalog)?
    var clients: [Int: ClientState] = [:]
    var deviceHealth = DeviceHealth.unknown
    var calm = false
    /// What shows the state in the room (`gpio` or `console`) and, when GPIO was wanted but
    /// could not be opened, why; for `status`.
    var panelKind = "console"
    var panelProblem: String?
    var shuttingDown = false
    /// Why the latest match could not be recorded, until a later one is (`status` shows it).
    var lastSaveError: String?
    /// Paces token guesses per source address, across connections.
    var tokenThrottle = TokenThrottle()
    /// The MQTT link when mqtt_host is set: changes are posted to it (`announce`), never sent from here.
    var fleet: FleetLink?

    struct UnansweredOpen: Equatable {
        let token: SessionToken
        let device: String
        let sinceMonotonic: Int64
    }

    /// Who asked for a session that waits for a device to close or to open.
    enum DeferredStart: Equatable {
        /// A client's `listen`: its line is the first of its held lines.
        case client(Int)
        case button
        /// A `listen` from the MQTT command topic.
        case fleet
    }

    init(
        environment: Appliance.Environment, channel: ClientChannel, indicator: StateIndicator?, catalog: CatalogSlot,
        store: HistoryStore?, storeProblem: String?
    ) {
        self.environment = environment
        self.channel = channel
        self.indicator = indicator
        self.catalogSlot = catalog
        self.store = store
        self.storeProblem = storeProblem
        engine = SessionEngine(device: environment.device)
        nextToken = Self.firstToken(store: store)
        calm = (try? store?.isCalmModeOn()) ?? false
    }

    /// Session ids go into the history, which keeps one event per id: numbering continues after
    /// the stored counter (written before every match is recorded, so deleting the newest
    /// recognition does not bring its id back) and after the newest recorded session (histories
    /// from before the counter existed).
    private static func firstToken(store: HistoryStore?) -> UInt64 {
        var first: UInt64 = 1
        if let stored = try? store?.setting(.nextSession), let number = UInt64(stored) { first = max(first, number) }
        if let newest = try? store?.events(limit: 1).first,
            newest.sessionId.hasPrefix("s-"), let number = UInt64(newest.sessionId.dropFirst(2))
        {
            first = max(first, number + 1)
        }
        return first
    }

    /// Marks subsystems changed for every client and answers the `idle`s waiting for them.
    mutating func markChanged(_ flags: IdleFlags) {
        for id in Array(clients.keys) {
            guard var state = clients[id] else { continue }
            state.pending.formUnion(flags)
            if let wanted = state.idling, !state.pending.intersection(wanted).isEmpty {
                let hit = state.pending.intersection(wanted)
                state.pending.subtract(hit)
                state.idling = nil
                channel.setIdleExempt(state.client, false)
                channel.send(ProtocolText.reply(hit.changedPairs), to: state.client)
            }
            clients[id] = state
        }
        announce(flags)
    }

    /// The state as the indicator shows it.
    func showIndicator(_ state: IndicatorState, detail: String) {
        indicator?.show(state, calm: calm, detail: detail)
    }
}
