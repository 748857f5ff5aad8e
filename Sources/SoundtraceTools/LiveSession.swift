import Glibc
import SoundtraceCore
import SoundtraceFingerprint
import SoundtraceRecognition
import Synchronization
import SoundtraceClock

/// Runs one listening session on a capture device: opens it, feeds the session engine until the
/// session ends (match, no match, cancel, failure or stall), and closes the device on every path.
/// Cancellation comes from another thread through `cancel()`.
final class LiveSession: @unchecked Sendable {
    // @unchecked: only `cancel()` is called from another thread; it touches an atomic and the
    // source's `wake()`, which AudioSource documents as thread-safe. Everything else runs on the
    // thread that called `run`.
    private let source: AudioSource
    private let catalog: Catalog
    private let settings: SessionSettings
    private let cancelRequested = Atomic<Bool>(false)
    /// Monotonic milliseconds; injectable so tests can pass a stalled device's deadline without waiting.
    private let clock: () -> Int64
    /// With `explains`, what stood behind the session's verdict, once `run` returned (nil when the
    /// device never delivered audio to a recognizer).
    private let explains: Bool
    private(set) var explanation: QueryExplanation?

    init(source: AudioSource, catalog: Catalog, settings: SessionSettings,
         clock: @escaping () -> Int64 = LiveSession.monotonicMilliseconds, explains: Bool = false) {
        self.source = source
        self.catalog = catalog
        self.settings = settings
        self.clock = clock
        self.explains = explains
    }

    /// Asks the running session to stop with `canceled`. Safe from any thread (e.g. a signal handler queue).
    func cancel() {
        cancelRequested.store(true, ordering: .releasing)
        source.wake()
    }

    private var isCancelRequested: Bool { cancelRequested.load(ordering: .acquiring) }

    /// Runs the session to its end and returns it (always terminal).
    func run(token: SessionToken) -> RecognitionSession {
        var engine = SessionEngine(device: source.device)
        let started = clock()
        let failedBeforeStart = { (fault: CaptureFault) -> RecognitionSession in
            var fresh = SessionEngine(device: self.source.device)
            do {
                return try fresh.startFailed(token: token, wallClock: Self.wallClockMilliseconds(), fault: fault)
            } catch {
                preconditionFailure("a fresh session engine has no listening session")
            }
        }
        let format: CaptureFormat
        do {
            format = try source.open(preferredRate: catalog.parameters.sampleRate)
        } catch {
            source.close()
            return failedBeforeStart(error)
        }
        defer { source.close() }
        guard WAVReader.supportedRates.contains(format.sampleRate),
              let recognizer = try? FingerprintRecognizer(catalog: catalog, inputRate: format.sampleRate,
                                                          recordsForExplanation: explains) else {
            return failedBeforeStart(.unsupportedFormat(device: source.device, offered: format.deviceFormat))
        }
        defer { if explains { explanation = recognizer.explanation() } }
        do {
            _ = try engine.start(token: token, wallClock: Self.wallClockMilliseconds(), monotonic: started,
                                 recognizer: recognizer, settings: settings)
        } catch {
            return failedBeforeStart(.other(device: source.device, detail: "\(error)"))
        }
        while true {
            if isCancelRequested, let ended = engine.cancel(token: token) { return ended }
            let now = clock()
            if let deadline = engine.deadline, now >= deadline,
               let ended = engine.deadlinePassed(monotonic: now, token: token) { return ended }
            let longest = settings.captureWaitMilliseconds
            let wait = max(1, min(longest, Int((engine.deadline ?? now + Int64(longest)) - now)))
            let event: CaptureEvent
            do {
                event = try source.read(timeoutMilliseconds: wait)
            } catch {
                if let ended = engine.fail(error, token: token) { return ended }
                continue
            }
            switch event {
            case let .audio(samples, frame):
                if let ended = engine.receive(samples, atFrame: frame, token: token) { return ended }
            case .timeout, .woken:
                continue
            }
        }
    }

    static func monotonicMilliseconds() -> Int64 { SystemClock.monotonicMilliseconds() }

    static func wallClockMilliseconds() -> Int64 { SystemClock.wallMilliseconds() }
}
