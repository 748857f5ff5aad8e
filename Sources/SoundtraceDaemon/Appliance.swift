import Glibc
import SoundtraceClock
import SoundtraceCore
import SoundtraceFingerprint
import SoundtracePlatform
import SoundtraceProtocol
import SoundtraceRecognition
import SoundtraceStore

/// The one owner of appliance state: protocol commands, button presses, capture and timers all
/// reach it through its entry points, which run one at a time under one lock, so every rule of the
/// session engine (one session, tokens, one result) holds for the button and any number of
/// clients. Entry points never block on I/O other than the history database and opening the
/// capture device (non-blocking); replies are queued on the channel.
final class Appliance: @unchecked Sendable {
    // @unchecked: every mutable property is read and written only while `lock` is held (the
    // entry points take it; `…Locked` helpers assume it). Threads: the protocol server's, one
    // capture thread per session, and the main thread (signals, console button, timers).

    struct Environment {
        var device: String
        var settings: SessionSettings
        /// The LAN token, when one is configured.
        var token: String?
        var makeSource: (String) -> AudioSource
        /// Monotonic and wall-clock time.
        var clock: any TimeSource
        /// Called (under the lock) when the earliest timer may have moved, so the main loop re-arms.
        var timersChanged: () -> Void
        /// The recognizer of a session on `catalog` fed at `rate` Hz; nil when it cannot be made.
        var makeRecognizer: (Catalog, Int) -> Recognizer? = { catalog, rate in
            try? FingerprintRecognizer(catalog: catalog, inputRate: rate)
        }
    }

    let environment: Environment
    let channel: ClientChannel
    let indicator: StateIndicator?

    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// Signalled when a capture thread has closed its device.
    private let captureClosedCondition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    var store: HistoryStore?
    var storeProblem: String?
    var catalogSlot: CatalogSlot
    /// Set when a reload failed and the previous catalog is still served.
    var catalogWarning: String?
    var engine: SessionEngine
    var nextToken: UInt64
    var recent: [SessionRecord] = []
    var lastFinished: SessionRecord?
    /// The session whose capture thread still runs (until it has closed the device), and its source.
    var captureToken: SessionToken?
    var captureSource: AudioSource?
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
    /// Entry points waiting in `waitForCaptureClosedLocked` (so a test can tell one is waiting).
    private(set) var waitingForCapture = 0
    /// Paces token guesses per source address, across connections.
    var tokenThrottle = TokenThrottle()

    /// Sessions `session ID` remembers.
    static let recentSessions = 32

    init(
        environment: Environment, channel: ClientChannel, indicator: StateIndicator?, catalog: CatalogSlot,
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
        pthread_mutex_init(lock, nil)
        pthread_cond_init(captureClosedCondition, nil)
    }

    deinit {
        pthread_cond_destroy(captureClosedCondition)
        pthread_mutex_destroy(lock)
        lock.deallocate()
        captureClosedCondition.deallocate()
    }

    /// Runs `body` as the owner: one entry point at a time.
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body()
    }

    /// Waits (releasing the lock meanwhile) until no capture thread holds a device. Only inside `locked`.
    func waitForCaptureClosedLocked() {
        waitingForCapture += 1
        defer { waitingForCapture -= 1 }
        while captureToken != nil { pthread_cond_wait(captureClosedCondition, lock) }
    }

    func signalCaptureClosedLocked() {
        pthread_cond_broadcast(captureClosedCondition)
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
    func changedLocked(_ flags: IdleFlags) {
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
    }

    /// The state as the indicator shows it.
    func showIndicatorLocked(_ state: IndicatorState, detail: String) {
        indicator?.show(state, calm: calm, detail: detail)
    }
}
