import SoundtraceClock
import SoundtraceCore

/// Whoever owns a session engine, as a capture loop sees it: the daemon's appliance (which
/// serializes every entry point under its lock) or the CLI's live session (one thread).
public protocol SessionOwner: AnyObject {
    /// Runs `body` on the owner's session engine, serialized with the owner's other entry points.
    func withEngine<T>(_ body: (inout SessionEngine) -> T) -> T
    /// A session this loop's audio, a failure or a passed deadline ended (not a cancel: whoever
    /// cancels hears of it from the engine).
    func sessionEnded(_ session: RecognitionSession)
}

/// One session's capture loop, the same for the daemon and the CLI: wait for audio at most
/// `captureWaitMilliseconds` or until the session's deadline, feed it to the session engine, run
/// the recognizer's work (FFTs, votes, checks: many milliseconds on a small board) outside the
/// owner's serialization so that protocol commands and the button never wait for it, and decide;
/// a wait that brings no audio lets a passed deadline end the session, so a device that stopped
/// delivering cannot stretch the window. Returns when the engine no longer listens for `token`.
/// Only this loop's thread touches the session's recognizer and reads `source`.
public struct SessionRunner {
    public let source: AudioSource
    public let token: SessionToken
    public let captureWaitMilliseconds: Int
    /// The owner's clock, so that tests can pass a deadline without waiting.
    public let clock: any TimeSource

    public init(source: AudioSource, token: SessionToken, captureWaitMilliseconds: Int, clock: any TimeSource) {
        self.source = source
        self.token = token
        self.captureWaitMilliseconds = captureWaitMilliseconds
        self.clock = clock
    }

    public func run(for owner: some SessionOwner) {
        while let wait = owner.withEngine({ nextWait($0) }) {
            do {
                switch try source.read(timeoutMilliseconds: wait) {
                case let .audio(samples, frame):
                    switch owner.withEngine({ $0.feed(samples, atFrame: frame, token: token) }) {
                    case .none:
                        break
                    case let .ended(ended):
                        owner.sessionEnded(ended)
                    case let .audio(work):
                        let outcome = work.run()
                        if let ended = owner.withEngine({ $0.decide(outcome, token: token) }) { owner.sessionEnded(ended) }
                    }
                case .timeout, .woken:
                    let now = clock.monotonicMilliseconds()
                    guard let verdict = owner.withEngine({ $0.finalVerdict(monotonic: now, token: token) }) else { continue }
                    let final = verdict.take()
                    if let ended = owner.withEngine({ $0.deadlinePassed(monotonic: now, token: token, final: final) }) {
                        owner.sessionEnded(ended)
                    }
                }
            } catch {
                if let ended = owner.withEngine({ $0.fail(error, token: token) }) { owner.sessionEnded(ended) }
            }
        }
    }

    /// How long the next read may wait, or nil when the session is over.
    private func nextWait(_ engine: SessionEngine) -> Int? {
        guard engine.listeningToken == token, let deadline = engine.deadline else { return nil }
        return Int(max(1, min(Int64(captureWaitMilliseconds), deadline - clock.monotonicMilliseconds())))
    }
}
