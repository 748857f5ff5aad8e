import SoundtraceCore
import SoundtracePlatform
import SoundtraceProtocol

/// What the appliance remembers about one protocol connection.
struct ClientState {
    let client: LineServer.Client
    var permission: ProtocolPermission
    /// Subsystems that changed since this client's last `idle` answer (or since it connected).
    var pending: IdleFlags = []
    /// The subsystems a waiting `idle` asked for; nil when no `idle` waits.
    var idling: IdleFlags?
    /// Wrong tokens presented on this connection.
    var wrongTokens = 0
    /// While a wrong token's answer is delayed: when it is due, the answer, and whether the
    /// connection closes after it. Lines that arrive meanwhile wait in `heldLines`.
    var heldUntil: Int64?
    var heldReply = ""
    var closeAfterHeld = false
    var heldLines: [[UInt8]] = []
    /// While its `listen` waits for the previous session's device to close (the first held line).
    var awaitingCapture = false

    /// Whether lines that arrive now wait behind an earlier one.
    var isHolding: Bool { heldUntil != nil || awaitingCapture }
    /// What the server was last told of `isHolding` (`ClientChannel.setAwaitingAnswer`).
    var serverKeepsOpen = false

    /// Lines a client may send while its answer is delayed before it is disconnected.
    static let maxHeldLines = 16

    init(client: LineServer.Client, permission: ProtocolPermission) {
        self.client = client
        self.permission = permission
    }
}

/// How the last session left the capture device.
enum DeviceHealth: Equatable {
    case unknown
    case ok
    case failed(CaptureFault)
}

/// A recent session as `session ID` and `status` describe it.
struct SessionRecord {
    var session: RecognitionSession
    /// The history event of a match, when the database recorded it.
    var eventId: Int64?
    /// Why a match could not be recorded (a full card, no history): the person and every client
    /// must see that the result was not saved.
    var saveError: String? = nil
    /// The match was recorded and its event later deleted (`delete ID`): its id names nothing now.
    var deletedFromHistory = false
    /// Canceled because soundtraced was stopping, not by a person: a client waiting on it learns
    /// that the daemon is going away rather than that someone pressed cancel.
    var canceledByShutdown = false
}
