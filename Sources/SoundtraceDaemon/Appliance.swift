import SoundtraceClock
import SoundtraceCore
import SoundtraceFingerprint
import SoundtracePlatform
import SoundtraceRecognition
import SoundtraceStore

/// The one owner of appliance state: protocol commands, button presses, capture and timers all
/// reach it through its entry points, which run one at a time on its `state`, so every rule of the
/// session engine (one session, tokens, one result) holds for the button and any number of
/// clients. The state is a value inside a mutex (`Guarded`): its methods take it `inout`, so the
/// compiler lets them run only inside `state.withLock`. Entry points never block on I/O other than the
/// history database and opening the capture device (waited for at most
/// `longestDeviceOpenMilliseconds`); replies are queued on the channel. Threads: the protocol
/// server's, one capture thread per session, a short-lived one per device open, and the main
/// thread (signals, console button, timers).
final class Appliance: Sendable {
    struct Environment: Sendable {
        var device: String
        var settings: SessionSettings
        /// The LAN token, when one is configured.
        var token: String?
        var makeSource: @Sendable (String) -> AudioSource
        /// Monotonic and wall-clock time.
        var clock: any TimeSource
        /// Called (inside the state's lock) when the earliest timer may have moved, so the main loop re-arms.
        var timersChanged: @Sendable () -> Void
        /// The recognizer of a session on `catalog` fed at `rate` Hz; nil when it cannot be made.
        var makeRecognizer: @Sendable (Catalog, Int) -> Recognizer? = { catalog, rate in
            try? FingerprintRecognizer(catalog: catalog, inputRate: rate)
        }
        /// Runs a session's capture loop on a thread of its own; false when none could be started.
        /// Tests pass one that keeps the loop and runs it when they choose (`CaptureLaunch`).
        var launchCapture: @Sendable (@escaping @Sendable () -> Void) -> Bool = CaptureLaunch.onNewThread
        /// How long a start waits for the device to open before its session fails as not
        /// answering (`BoundedDeviceOpen`): far above a USB microphone's or a sound server's open,
        /// below the CLI's 10 s reply timeout and the unit's 30 s watchdog.
        var longestDeviceOpenMilliseconds = BoundedDeviceOpen.usualBoundMilliseconds
        /// How much of that a start waits on the protocol thread, under the lock, before it lets
        /// the open go on by itself and answers once it has returned (`Appliance+DeviceOpen`):
        /// a `hw:` device opens in well under a millisecond, a sound server in a few.
        var promptDeviceOpenMilliseconds = 100
        /// How long a stop waits for the capture thread to close the device: within the unit's
        /// `TimeoutStopSec` (15 s), so a read that never returns does not end in a kill.
        var longestCaptureCloseOnStopMilliseconds = 5_000
        /// Runs a device's open on a thread of its own; false when none could be started.
        var launchOpen: @Sendable (@escaping @Sendable () -> Void) -> Bool = CaptureLaunch.onNewThread
    }

    let environment: Environment
    let state: Guarded<ApplianceState>
    /// Capture threads that have not yet closed their device, for `shutdown` to wait on.
    let runningCaptures = CaptureCount()

    /// Sessions `session ID` remembers.
    static let recentSessions = 32

    init(
        environment: Environment, channel: ClientChannel, indicator: StateIndicator?, catalog: CatalogSlot,
        store: HistoryStore?, storeProblem: String?
    ) {
        self.environment = environment
        state = Guarded(
            ApplianceState(
                environment: environment, channel: channel, indicator: indicator, catalog: catalog, store: store,
                storeProblem: storeProblem))
        // The state starts capture threads that come back to this appliance; it cannot name it
        // before it exists.
        state.withLock { $0.appliance = self }
    }

    /// The state as the indicator shows it.
    func showIndicator(_ shown: IndicatorState, detail: String) {
        state.withLock { $0.showIndicator(shown, detail: detail) }
    }
}
