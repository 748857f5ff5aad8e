/// The listening session state machine: one session at a time, bounded by a window of captured
/// audio and a wall-clock deadline, decided early only when the match is confident and stable.
/// No I/O and no clock of its own: the owner passes in monotonic time and audio, and acts on the
/// session it returns when one ends (close the device, report, record).
public struct SessionEngine {
    public let device: String
    /// The current session (listening) or the last one that ended.
    public private(set) var session: RecognitionSession?

    private var settings = SessionSettings.standard
    private var recognizer: Recognizer?
    private var startedAtMonotonic: Int64 = 0
    private var nextFrame = 0
    private var framesHeard = 0
    private var lastCheckFrame = 0
    private var snapshots: [RecognizerSnapshot] = []

    public init(device: String) {
        self.device = device
    }

    public enum StartRefusal: Error, Equatable, CustomStringConvertible {
        case alreadyListening(SessionToken)
        public var description: String {
            switch self {
            case let .alreadyListening(token): return "already listening (session \(token)); cancel it first or wait for its result"
            }
        }
    }

    /// Starts a session. A start while listening is refused, not queued.
    public mutating func start(token: SessionToken, wallClock: Int64, monotonic: Int64, recognizer: Recognizer,
                               settings: SessionSettings) throws(StartRefusal) -> RecognitionSession {
        if let session, session.state == .listening { throw .alreadyListening(session.token) }
        let new = RecognitionSession(token: token, startedAt: wallClock, state: .listening)
        session = new
        self.settings = settings
        self.recognizer = recognizer
        startedAtMonotonic = monotonic
        nextFrame = 0
        framesHeard = 0
        lastCheckFrame = 0
        snapshots = []
        return new
    }

    /// Records a session whose device could not be opened or configured: it ends as failed at
    /// once, so the person gets the reason and the next start is not blocked.
    public mutating func startFailed(token: SessionToken, wallClock: Int64, fault: CaptureFault) throws(StartRefusal) -> RecognitionSession {
        if let session, session.state == .listening { throw .alreadyListening(session.token) }
        let failed = RecognitionSession(token: token, startedAt: wallClock, state: .failed(fault))
        session = failed
        recognizer = nil
        snapshots = []
        return failed
    }

    /// The listening session's token, if any.
    public var listeningToken: SessionToken? {
        guard let session, session.state == .listening else { return nil }
        return session.token
    }

    /// Monotonic time by which the owner must call `deadlinePassed` if no audio ends the session.
    public var deadline: Int64? {
        guard listeningToken != nil else { return nil }
        return startedAtMonotonic + Int64(settings.windowMilliseconds + settings.stallGraceMilliseconds)
    }

    /// Audio for session `token` starting at `frame` samples after the session began. Returns the
    /// session if this audio ended it; nil while it goes on, or when the token is stale (dropped).
    public mutating func receive(_ samples: [Int16], atFrame frame: Int, token: SessionToken) -> RecognitionSession? {
        guard token == listeningToken, let recognizer else { return nil }
        let rate = recognizer.sampleRate
        var input = samples
        var start = frame
        if start < nextFrame {
            // Overlap with audio already heard: keep only what is new.
            let overlap = min(input.count, nextFrame - start)
            input.removeFirst(overlap)
            start = nextFrame
            if input.isEmpty { return nil }
        }
        if start > nextFrame {
            let gap = (start - nextFrame) * 1000 / rate
            if gap > settings.maxGapMilliseconds {
                return finish(.failed(.audioGap(device: device, milliseconds: gap)))
            }
        }
        let windowFrames = settings.windowMilliseconds * rate / 1000
        if framesHeard + input.count > windowFrames { input.removeLast(framesHeard + input.count - windowFrames) }
        recognizer.push(input, atFrame: start)
        framesHeard += input.count
        nextFrame = start + input.count
        if framesHeard >= windowFrames {
            return finishWithFinalVerdict()
        }
        let interval = settings.earlyDecision.checkIntervalMilliseconds * rate / 1000
        if framesHeard - lastCheckFrame >= interval {
            lastCheckFrame = framesHeard
            snapshots.append(recognizer.snapshot(final: false))
            if snapshots.count > 16 { snapshots.removeFirst(snapshots.count - 16) }
            if settings.earlyDecision.isConfident(snapshots), let last = snapshots.last {
                return finish(matched(last))
            }
        }
        return nil
    }

    /// Cancels the listening session if `token` is it (or, with nil, whatever is listening).
    public mutating func cancel(token: SessionToken? = nil) -> RecognitionSession? {
        guard let listening = listeningToken, token == nil || token == listening else { return nil }
        return finish(.canceled)
    }

    /// The capture device failed during session `token`.
    public mutating func fail(_ fault: CaptureFault, token: SessionToken) -> RecognitionSession? {
        guard token == listeningToken else { return nil }
        return finish(.failed(fault))
    }

    /// Called at or after `deadline`: a device that stopped delivering cannot stretch the window.
    /// A match already heard still counts; otherwise the session fails as stalled.
    public mutating func deadlinePassed(monotonic: Int64, token: SessionToken) -> RecognitionSession? {
        guard token == listeningToken, let deadline, monotonic >= deadline, let recognizer else { return nil }
        let final = recognizer.snapshot(final: true)
        if final.isMatch, final.reference != nil { return finish(matched(final)) }
        return finish(.failed(.stalled(device: device, heardMilliseconds: framesHeard * 1000 / recognizer.sampleRate)))
    }

    private mutating func finishWithFinalVerdict() -> RecognitionSession? {
        guard let recognizer else { return nil }
        let final = recognizer.snapshot(final: true)
        if final.isMatch, final.reference != nil { return finish(matched(final)) }
        let heard = framesHeard * 1000 / recognizer.sampleRate
        return finish(.noMatch(final.peaks == 0 ? .silence(heardMilliseconds: heard) : .notInCatalog(heardMilliseconds: heard)))
    }

    private func matched(_ snapshot: RecognizerSnapshot) -> SessionState {
        guard let reference = snapshot.reference else { return .noMatch(.notInCatalog(heardMilliseconds: snapshot.heardMilliseconds)) }
        return .matched(MatchResult(reference: reference, offsetMilliseconds: snapshot.offsetMilliseconds, score: snapshot.score,
                                    runnerUpScore: snapshot.runnerUpScore, heardMilliseconds: snapshot.heardMilliseconds))
    }

    private mutating func finish(_ state: SessionState) -> RecognitionSession? {
        guard var ended = session else { return nil }
        ended.state = state
        session = ended
        // Microphone audio lives only in the recognizer; dropping it releases the session's audio.
        recognizer = nil
        snapshots = []
        return ended
    }
}
