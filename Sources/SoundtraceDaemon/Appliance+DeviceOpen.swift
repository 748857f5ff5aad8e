import SoundtraceCore
import SoundtracePlatform

extension ApplianceState {
    /// A start's device open that had not returned within `promptDeviceOpenMilliseconds`. It goes
    /// on on its own thread while the protocol thread serves everyone else (that thread holds the
    /// state's lock while it waits, so a longer wait would stall every client, the button's
    /// answer and the watchdog with it); the start is one of `deferredStarts` meanwhile, first in
    /// line, and runs again when the open returns (`pendingOpenReturned`) or at `deadlineMonotonic`.
    struct PendingOpen {
        let token: SessionToken
        let source: AudioSource
        let opening: BoundedDeviceOpen
        let sinceMonotonic: Int64
        let deadlineMonotonic: Int64
    }

    /// What a pending open came to, for the first deferred start to take up (`startSession`).
    struct ReturnedOpen {
        enum End {
            /// The open's outcome; `stillOpening` is an open given up at its deadline, whose
            /// thread keeps and closes the source.
            case returned(BoundedDeviceOpen.Outcome)
            /// The start was canceled meanwhile: this session, already recorded, is its answer.
            case canceled(RecognitionSession)
        }
        let token: SessionToken
        let source: AudioSource
        let end: End
        let sinceMonotonic: Int64
    }

    enum DeviceOpenStep {
        case returned(BoundedDeviceOpen.Outcome)
        /// Still opening: `pendingOpen` holds it.
        case pending
    }

    /// Opens session `token`'s device, waiting under the lock at most the prompt bound; an open
    /// that takes longer becomes `pendingOpen`, given up after `longestDeviceOpenMilliseconds`.
    mutating func openDevice(_ source: AudioSource, token: SessionToken, preferredRate: Int) -> DeviceOpenStep {
        let began = environment.clock.monotonicMilliseconds()
        let longest = Int64(environment.longestDeviceOpenMilliseconds)
        guard
            let opening = BoundedDeviceOpen.start(
                source, preferredRate: preferredRate, launch: environment.launchOpen,
                returned: { [weak appliance] in appliance?.pendingOpenReturned(token) },
                abandonedOpenReturned: { [weak appliance] in appliance?.abandonedOpenReturned(token) })
        else { return .returned(BoundedDeviceOpen.openHere(source, preferredRate: preferredRate)) }
        let outcome = opening.wait(
            milliseconds: Int(min(Int64(environment.promptDeviceOpenMilliseconds), longest)), abandoningOnTimeout: false)
        switch outcome {
        case .opened, .failed:
            return .returned(outcome)
        case .stillOpening, .interrupted:
            guard environment.clock.monotonicMilliseconds() - began < longest else {
                return .returned(giveUp(opening, token: token, device: source.device, since: began))
            }
            pendingOpen = PendingOpen(
                token: token, source: source, opening: opening, sinceMonotonic: began, deadlineMonotonic: began + longest)
            environment.timersChanged()
            return .pending
        }
    }

    /// Stops waiting for an open: its outcome if it has just returned, else `stillOpening`, and
    /// the device stays the open's thread's (`unansweredOpen`) until it returns and closes it.
    private mutating func giveUp(_ opening: BoundedDeviceOpen, token: SessionToken, device: String, since: Int64)
        -> BoundedDeviceOpen.Outcome
    {
        if let outcome = opening.abandon() { return outcome }
        unansweredOpen = UnansweredOpen(token: token, device: device, sinceMonotonic: since)
        return .stillOpening
    }

    /// The pending open of `token` returned: the starts that waited for it run now, the first
    /// taking up the device.
    mutating func pendingOpenReturned(_ token: SessionToken) {
        guard pendingOpen?.token == token else { return }
        dropPendingOpen()
    }

    /// A pending open past its deadline is given up: the start that waited for it fails as not
    /// answering, as it would have had it waited under the lock.
    mutating func endPendingOpenIfDue(now: Int64) {
        guard let pending = pendingOpen, pending.deadlineMonotonic <= now else { return }
        dropPendingOpen()
    }

    /// Ends waiting for a pending open, with its outcome if it has returned, else given up; at a
    /// stop, the starts that waited for it are refused.
    mutating func dropPendingOpen() {
        guard let pending = pendingOpen else { return }
        pendingOpen = nil
        environment.timersChanged()
        let outcome = giveUp(pending.opening, token: pending.token, device: pending.source.device, since: pending.sinceMonotonic)
        settle(ReturnedOpen(token: pending.token, source: pending.source, end: .returned(outcome), sinceMonotonic: pending.sinceMonotonic))
    }

    /// `cancel`, the button or MQTT while a start's device opens: the start ends as a canceled
    /// session, which the start that waited is answered with; the device is closed, or left to its
    /// open's thread while that open still runs (the next start fails at once until it returns).
    mutating func cancelPendingStart() -> RecognitionSession? {
        guard let pending = pendingOpen else { return nil }
        // Refused only while a session listens, which a pending open rules out; were it refused,
        // the starts that waited would still be answered, with the open's outcome.
        guard let canceled = try? engine.startCanceled(token: pending.token, wallClock: environment.clock.wallMilliseconds()) else {
            dropPendingOpen()
            return nil
        }
        pendingOpen = nil
        environment.timersChanged()
        switch giveUp(pending.opening, token: pending.token, device: pending.source.device, since: pending.sinceMonotonic) {
        case .opened, .failed: pending.source.close()
        case .stillOpening, .interrupted: break
        }
        sessionEnded(canceled)
        settle(ReturnedOpen(token: pending.token, source: pending.source, end: .canceled(canceled), sinceMonotonic: pending.sinceMonotonic))
        return canceled
    }

    private mutating func settle(_ returned: ReturnedOpen) {
        returnedOpen = returned
        runDeferredStarts()
        // Everyone who asked has gone (a client hung up) or was refused (a stop): nobody listens on
        // it, and the indicator and `status`, which showed the start under way, show idle again.
        guard let unclaimed = returnedOpen else { return }
        returnedOpen = nil
        guard case let .returned(outcome) = unclaimed.end else { return }
        if !shuttingDown { showIndicator(.idle, detail: "nobody waits for session \(unclaimed.token) any more") }
        markChanged(.state)
        switch outcome {
        case .opened:
            unclaimed.source.close()
            DaemonLog.info(
                "capture device '\(unclaimed.source.device)' opened for a start nobody waits for any more; closed again")
        case .failed:
            unclaimed.source.close()
        case .stillOpening, .interrupted:
            break
        }
    }
}

extension Appliance {
    /// Called on the thread of a device open, once it returned, unless the appliance gave up on it.
    func pendingOpenReturned(_ token: SessionToken) {
        state.withLock { $0.pendingOpenReturned(token) }
    }
}
