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
    public mutating func start(
        token: SessionToken, wallClock: Int64, monotonic: Int64, recognizer: Recognizer,
        settings: SessionSettings
    ) throws(StartRefusal) -> RecognitionSession {
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
    public mutating func startFailed(token: SessionToken, wallClock: Int64, fault: CaptureFault) throws(StartRefusal) -> RecognitionSession
    {
        try startEnded(token: token, wallClock: wallClock, state: .failed(fault))
    }

    /// Records a session canceled before it listened (its device was still opening): it ends at once.
    public mutating func startCanceled(token: SessionToken, wallClock: Int64) throws(StartRefusal) -> RecognitionSession {
        try startEnded(token: token, wallClock: wallClock, state: .canceled)
    }

    private mutating func startEnded(token: SessionToken, wallClock: Int64, state: SessionState) throws(StartRefusal) -> RecognitionSession
    {
        if let session, session.state == .listening { throw .alreadyListening(session.token) }
        let ended = RecognitionSession(token: token, startedAt: wallClock, state: state)
        session = ended
        recognizer = nil
        snapshots = []
        return ended
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
    /// The three steps of `feed`, `Feed.run` and `decide` in one, for an owner with no lock to keep
    /// the signal processing out of (the CLI's session, tests).
    public mutating func receive(_ samples: [Int16], atFrame frame: Int, token: SessionToken) -> RecognitionSession? {
        switch feed(samples, atFrame: frame, token: token) {
        case .none: return nil
        case let .ended(session): return session
        case let .audio(work): return decide(work.run(), token: token)
        }
    }

    /// What the owner does with audio that `feed` accepted.
    public enum FeedStep {
        /// Stale token, or nothing new in the buffer.
        case none
        /// The audio ended the session without analysis (a gap too long).
        case ended(RecognitionSession)
        /// Analyse this: `Feed.run` pushes the audio into the session's recognizer and takes the
        /// snapshot that is due, if any. It touches only the recognizer, so an owner that
        /// serializes everything else under a lock runs it outside the lock, on the one thread
        /// that feeds this session.
        case audio(Feed)
    }

    /// One buffer's worth of recognizer work, and which snapshot it ends with.
    public struct Feed {
        let recognizer: Recognizer
        public let samples: [Int16]
        public let frame: Int
        public let snapshot: SnapshotDue?

        /// Pushes the audio and takes the snapshot that is due (nil when none is).
        public func run() -> Outcome {
            recognizer.push(samples, atFrame: frame)
            return Outcome(snapshot: snapshot.map { recognizer.snapshot(final: $0 == .final) }, due: snapshot)
        }
    }

    public enum SnapshotDue: Equatable, Sendable { case interim, final }

    /// What `Feed.run` found, for `decide`.
    public struct Outcome {
        let snapshot: RecognizerSnapshot?
        let due: SnapshotDue?
    }

    /// The bookkeeping half of `receive`: trims audio already heard, fails the session on a gap
    /// too long, cuts the audio at the window and says which snapshot is due after it.
    public mutating func feed(_ samples: [Int16], atFrame frame: Int, token: SessionToken) -> FeedStep {
        guard token == listeningToken, let recognizer else { return .none }
        let rate = recognizer.sampleRate
        var input = samples
        var start = frame
        if start < nextFrame {
            // Overlap with audio already heard: keep only what is new.
            let overlap = min(input.count, nextFrame - start)
            input.removeFirst(overlap)
            start = nextFrame
            if input.isEmpty { return .none }
        }
        if start > nextFrame {
            let gap = (start - nextFrame) * 1000 / rate
            if gap > settings.maxGapMilliseconds {
                return finish(.failed(.audioGap(device: device, milliseconds: gap))).map { .ended($0) } ?? .none
            }
        }
        // An empty buffer only says where the device is now (it restarted after losing audio):
        // a gap too long ends the session above, at once rather than when audio comes again.
        if input.isEmpty { return .none }
        let windowFrames = settings.windowMilliseconds * rate / 1000
        if framesHeard + input.count > windowFrames { input.removeLast(framesHeard + input.count - windowFrames) }
        framesHeard += input.count
        nextFrame = start + input.count
        var due: SnapshotDue? = nil
        if framesHeard >= windowFrames {
            due = .final
        } else if framesHeard - lastCheckFrame >= settings.earlyDecision.checkIntervalMilliseconds * rate / 1000 {
            lastCheckFrame = framesHeard
            due = .interim
        }
        return .audio(Feed(recognizer: recognizer, samples: input, frame: start, snapshot: due))
    }

    /// The deciding half of `receive`: an interim snapshot may end the session early, the final one
    /// ends it. Nil while it goes on, or when `token` stopped listening meanwhile (the outcome is
    /// then dropped: a cancel or a failure came first).
    public mutating func decide(_ outcome: Outcome, token: SessionToken) -> RecognitionSession? {
        guard token == listeningToken, let snapshot = outcome.snapshot, let due = outcome.due else { return nil }
        if let fault = snapshot.fault { return finish(.failed(fault)) }
        switch due {
        case .final:
            return finishWithFinalVerdict(snapshot)
        case .interim:
            snapshots.append(snapshot)
            if snapshots.count > settings.snapshotHistory { snapshots.removeFirst(snapshots.count - settings.snapshotHistory) }
            if settings.earlyDecision.isConfident(snapshots), let last = snapshots.last {
                return finish(matched(last))
            }
            return nil
        }
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
    /// A match already heard still counts; otherwise the session fails as stalled. `finalVerdict`
    /// and `deadlinePassed(monotonic:token:final:)` in one.
    public mutating func deadlinePassed(monotonic: Int64, token: SessionToken) -> RecognitionSession? {
        guard let verdict = finalVerdict(monotonic: monotonic, token: token) else { return nil }
        return deadlinePassed(monotonic: monotonic, token: token, final: verdict.take())
    }

    /// The work of the final verdict once the deadline has passed (nil before it, or for a stale
    /// token). Like `Feed.run`, `take()` touches only the recognizer.
    public func finalVerdict(monotonic: Int64, token: SessionToken) -> FinalVerdict? {
        guard token == listeningToken, let deadline, monotonic >= deadline, let recognizer else { return nil }
        return FinalVerdict(recognizer: recognizer)
    }

    public struct FinalVerdict {
        let recognizer: Recognizer
        public func take() -> RecognizerSnapshot { recognizer.snapshot(final: true) }
    }

    /// Ends session `token` with the final verdict taken after its deadline.
    public mutating func deadlinePassed(monotonic: Int64, token: SessionToken, final: RecognizerSnapshot) -> RecognitionSession? {
        guard token == listeningToken, let deadline, monotonic >= deadline, let recognizer else { return nil }
        if let fault = final.fault { return finish(.failed(fault)) }
        if final.isMatch, final.reference != nil { return finish(matched(final)) }
        return finish(.failed(.stalled(device: device, heardMilliseconds: framesHeard * 1000 / recognizer.sampleRate)))
    }

    private mutating func finishWithFinalVerdict(_ final: RecognizerSnapshot) -> RecognitionSession? {
        guard let recognizer else { return nil }
        if final.isMatch, final.reference != nil { return finish(matched(final)) }
        let heard = framesHeard * 1000 / recognizer.sampleRate
        return finish(.noMatch(final.peaks == 0 ? .silence(heardMilliseconds: heard) : .notInCatalog(heardMilliseconds: heard)))
    }

    private func matched(_ snapshot: RecognizerSnapshot) -> SessionState {
        guard let reference = snapshot.reference else { return .noMatch(.notInCatalog(heardMilliseconds: snapshot.heardMilliseconds)) }
        return .matched(
            MatchResult(
                reference: reference, offsetMilliseconds: snapshot.offsetMilliseconds, score: snapshot.score,
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
