import Glibc
import SoundtraceClock
import SoundtraceCore
import SoundtraceFingerprint
import SoundtracePlatform
import SoundtraceRecognition
import Synchronization

/// Runs one listening session on a capture device: opens it (waiting at most `openBoundMilliseconds`,
/// `BoundedDeviceOpen`), feeds the session engine until the session ends (match, no match, cancel,
/// failure or stall), and closes the device on every path; an open abandoned unanswered is closed
/// by its own thread when it returns. Cancellation comes from another thread through `cancel()`.
final class LiveSession: @unchecked Sendable {
    // @unchecked: only `cancel()` is called from another thread; it touches an atomic, the
    // `opening` lock, the pending open's `interrupt()` and the source's `wake()`, all documented
    // as thread-safe. Everything else runs on the thread that called `run`.
    private let source: AudioSource
    private let catalog: Catalog
    private let settings: SessionSettings
    private let cancelRequested = Atomic<Bool>(false)
    /// The open under way, for `cancel()` to interrupt; `canceled` set first means none may start.
    private let opening = Guarded<(pending: BoundedDeviceOpen?, canceled: Bool)>((nil, false))
    private let openBoundMilliseconds: Int
    private let launchOpen: @Sendable (@escaping @Sendable () -> Void) -> Bool
    /// Injectable so that tests can pass a stalled device's deadline without waiting.
    private let clock: any TimeSource
    /// With `explains`, what stood behind the session's verdict, once `run` returned (nil when the
    /// device never delivered audio to a recognizer).
    private let explains: Bool
    private(set) var explanation: QueryExplanation?

    init(
        source: AudioSource, catalog: Catalog, settings: SessionSettings,
        clock: any TimeSource = SystemTime(), explains: Bool = false,
        openBoundMilliseconds: Int = BoundedDeviceOpen.usualBoundMilliseconds,
        launchOpen: @escaping @Sendable (@escaping @Sendable () -> Void) -> Bool = BoundedDeviceOpen.onDetachedThread
    ) {
        self.source = source
        self.openBoundMilliseconds = openBoundMilliseconds
        self.launchOpen = launchOpen
        self.catalog = catalog
        self.settings = settings
        self.clock = clock
        self.explains = explains
    }

    /// Asks the running session to stop with `canceled`. Safe from any thread (e.g. a signal handler queue).
    func cancel() {
        cancelRequested.store(true, ordering: .releasing)
        let pending = opening.withLock { state in
            state.canceled = true
            return state.pending
        }
        pending?.interrupt()
        source.wake()
    }

    /// Runs the session to its end and returns it (always terminal).
    func run(token: SessionToken) -> RecognitionSession {
        var engine = SessionEngine(device: source.device)
        let started = clock.monotonicMilliseconds()
        let failedBeforeStart = { (fault: CaptureFault) -> RecognitionSession in
            var fresh = SessionEngine(device: self.source.device)
            do {
                return try fresh.startFailed(token: token, wallClock: self.clock.wallMilliseconds(), fault: fault)
            } catch {
                preconditionFailure("a fresh session engine has no listening session")
            }
        }
        let format: CaptureFormat
        switch openDevice() {
        case let .opened(granted):
            format = granted
        case let .failed(fault):
            source.close()
            return failedBeforeStart(fault)
        case .stillOpening:
            // The open's thread keeps the source and closes it when the open returns.
            return failedBeforeStart(.notAnswering(device: source.device, milliseconds: openBoundMilliseconds, daemonRetries: false))
        case .interrupted:
            return RecognitionSession.canceledBeforeListening(token: token, startedAt: clock.wallMilliseconds())
        }
        defer { source.close() }
        guard WAVReader.supportedRates.contains(format.sampleRate),
            let recognizer = try? FingerprintRecognizer(
                catalog: catalog, inputRate: format.sampleRate,
                recordsForExplanation: explains)
        else {
            return failedBeforeStart(.unsupportedFormat(device: source.device, offered: format.deviceFormat))
        }
        defer { if explains { explanation = recognizer.explanation() } }
        do {
            _ = try engine.start(
                token: token, wallClock: clock.wallMilliseconds(), monotonic: started,
                recognizer: recognizer, settings: settings)
        } catch {
            return failedBeforeStart(.other(device: source.device, detail: "\(error)"))
        }
        let owner = Owner(engine: engine, token: token, isCancelRequested: { self.cancelRequested.load(ordering: .acquiring) })
        SessionRunner(source: source, token: token, captureWaitMilliseconds: settings.captureWaitMilliseconds, clock: clock)
            .run(for: owner)
        guard let ended = owner.ended else { preconditionFailure("the session loop returns only once the session has ended") }
        return ended
    }

    /// Opens the device on a thread of its own, waiting at most the bound or until `cancel()`;
    /// a session canceled before it began opens nothing.
    private func openDevice() -> BoundedDeviceOpen.Outcome {
        enum Begun {
            case canceled
            case noThread
            case pending(BoundedDeviceOpen)
        }
        let preferredRate = catalog.parameters.sampleRate
        let begun: Begun = opening.withLock { state in
            guard !state.canceled else { return .canceled }
            guard let pending = BoundedDeviceOpen.start(source, preferredRate: preferredRate, launch: launchOpen) else {
                return .noThread
            }
            state.pending = pending
            return .pending(pending)
        }
        switch begun {
        case .canceled: return .interrupted
        case .noThread: return BoundedDeviceOpen.openHere(source, preferredRate: preferredRate)
        case let .pending(pending): return pending.wait(milliseconds: openBoundMilliseconds)
        }
    }

    /// The CLI's session owner: one thread runs the loop and owns the engine, so nothing needs a
    /// lock; a cancel asked from another thread is applied at the loop's next step (`cancel()`
    /// wakes the device so that the step comes promptly).
    private final class Owner: SessionOwner {
        var engine: SessionEngine
        let token: SessionToken
        let isCancelRequested: () -> Bool
        private(set) var ended: RecognitionSession?

        init(engine: SessionEngine, token: SessionToken, isCancelRequested: @escaping () -> Bool) {
            self.engine = engine
            self.token = token
            self.isCancelRequested = isCancelRequested
        }

        func withEngine<T>(_ body: (inout SessionEngine) -> T) -> T {
            if isCancelRequested(), let canceled = engine.cancel(token: token) { ended = canceled }
            return body(&engine)
        }

        func sessionEnded(_ session: RecognitionSession) { ended = session }
    }
}
