import CLinux
import Glibc
import SoundtraceCore
import SoundtraceFingerprint
import SoundtracePlatform
import SoundtraceProtocol
import SoundtraceRecognition
import SoundtraceStore

extension ApplianceState {
    /// Whether a start must wait for the previous session's capture thread to close its device
    /// (opening it again now would find it busy): nothing listens, yet that thread still runs; or
    /// for a start's open still under way (`pendingOpen`), which the first waiting start takes up.
    var mustDeferStart: Bool { engine.listeningToken == nil && (captureToken != nil || pendingOpen != nil) && !shuttingDown }

    /// Whether a session is under way for anyone asking (`status`, the console, MQTT): its device
    /// is still opening (the person who pressed the button sees the press taken, and a second
    /// press cancels what they see), it listens, or it has ended and its end is still being
    /// recorded (a match's history write runs outside the lock). `idle` is said only once
    /// `session` and `history` show the outcome.
    var sessionUnderway: Bool {
        pendingOpen != nil || engine.listeningToken != nil || recent.last?.session.state == .listening
    }

    /// Starts a session (from `listen`, the button or MQTT). Refused while one listens or without a
    /// catalog; a device that cannot be opened gives a session that failed at once. nil when the
    /// device is still opening: `requester` then waits first of `deferredStarts` and asks again
    /// once the open has returned or was given up (`Appliance+DeviceOpen`).
    mutating func startSession(for requester: DeferredStart) -> Result<RecognitionSession?, ProtocolError> {
        func refusedBusy(_ token: SessionToken) -> Result<RecognitionSession?, ProtocolError> {
            .failure(
                ProtocolError(
                    .busy, command: "listen",
                    "already listening (session \(token)); cancel it first (`soundtrace cancel` or the button) or wait for its result"))
        }
        func refusedShutdown() -> Result<RecognitionSession?, ProtocolError> {
            .failure(ProtocolError(.unavailable, command: "listen", "soundtraced is shutting down"))
        }
        if let token = engine.listeningToken { return refusedBusy(token) }
        guard !shuttingDown else { return refusedShutdown() }
        // Canceled while its device opened: the start that waited is answered with that session.
        if case let .canceled(canceled) = returnedOpen?.end {
            returnedOpen = nil
            return .success(canceled)
        }
        // Another start's device is still opening (a start run again among `deferredStarts` after
        // an earlier one opened anew): this one waits its turn rather than open the device twice.
        if pendingOpen != nil {
            if !deferredStarts.contains(requester) { deferredStarts.append(requester) }
            return .success(nil)
        }
        // Callers defer a start while the previous device closes (`mustDeferStart`).
        if let closing = captureToken { return refusedBusy(closing) }
        // The catalog's index is read from its mapped file: an fstat and its stated hash tell whether it was rewritten.
        retireCatalogIfRewritten()
        guard let catalog = catalogSlot.catalog else {
            return .failure(ProtocolError(.unavailable, command: "listen", "no usable catalog: \(catalogSlot.problem ?? "none loaded")"))
        }
        let token: SessionToken
        let source: AudioSource
        let opened: BoundedDeviceOpen.Outcome
        let openBegan: Int64
        if let returned = returnedOpen, case let .returned(outcome) = returned.end {
            returnedOpen = nil
            (token, source, opened, openBegan) = (returned.token, returned.source, outcome, returned.sinceMonotonic)
        } else {
            token = SessionToken(nextToken)
            nextToken += 1
            if let unanswered = unansweredOpen {
                let waited = environment.clock.monotonicMilliseconds() - unanswered.sinceMonotonic
                return failedStart(
                    token, fault: .notAnswering(device: unanswered.device, milliseconds: Int(max(0, waited)), daemonRetries: true))
            }
            source = environment.makeSource(environment.device)
            openBegan = environment.clock.monotonicMilliseconds()
            switch openDevice(source, token: token, preferredRate: catalog.parameters.sampleRate) {
            case let .returned(outcome):
                opened = outcome
            case .pending:
                deferredStarts.insert(requester, at: 0)
                showIndicator(.listening, detail: "session \(token): device \(source.device) still opening")
                markChanged(.state)
                return .success(nil)
            }
        }
        let format: CaptureFormat
        switch opened {
        case let .opened(granted):
            format = granted
        case let .failed(fault):
            source.close()
            return failedStart(token, fault: fault)
        case .stillOpening, .interrupted:
            // Given up on (`unansweredOpen`): the open's thread keeps the source and closes it when the open returns.
            let waited = environment.clock.monotonicMilliseconds() - openBegan
            return failedStart(token, fault: .notAnswering(device: source.device, milliseconds: Int(max(0, waited)), daemonRetries: true))
        }
        guard WAVReader.supportedRates.contains(format.sampleRate),
            let recognizer = environment.makeRecognizer(catalog, format.sampleRate)
        else {
            source.close()
            return failedStart(token, fault: .unsupportedFormat(device: source.device, offered: format.deviceFormat))
        }
        let session: RecognitionSession
        do {
            session = try engine.start(
                token: token, wallClock: environment.clock.wallMilliseconds(),
                monotonic: environment.clock.monotonicMilliseconds(),
                recognizer: recognizer, settings: environment.settings)
        } catch {
            source.close()
            return refusedBusy(token)
        }
        captureToken = token
        captureSource = source
        sessionCatalog = (token, catalog)
        let started: Bool
        if let appliance {
            let job = CaptureJob(appliance: appliance, source: source, token: token)
            appliance.runningCaptures.started()
            started = environment.launchCapture { job.run() }
            if !started { appliance.runningCaptures.finished() }
        } else {
            started = false
        }
        guard started else {
            captureToken = nil
            captureSource = nil
            source.close()
            if let ended = engine.fail(.other(device: source.device, detail: "no thread could be started for capture"), token: token) {
                sessionEnded(ended)
            }
            return .failure(ProtocolError(.system, command: "listen", "the system is out of threads; restart soundtraced"))
        }
        deviceHealth = .ok
        remember(SessionRecord(session: session, eventId: nil))
        DaemonLog.info("session \(token) listening on \(source.device) (\(format.deviceFormat))")
        showIndicator(.listening, detail: "session \(token)")
        markChanged(.state)
        return .success(session)
    }

    /// Stops using the loaded catalog once its file was rewritten in place (`CatalogSlot.rewrittenInPlace`):
    /// `status` and `listen` then say so, with the fix, until a reload maps a sound one.
    private mutating func retireCatalogIfRewritten() {
        guard let rewritten = catalogSlot.rewrittenInPlace() else { return }
        catalogSlot = rewritten
        catalogWarning = nil
        catalogFallback = nil
        DaemonLog.error(rewritten.problem ?? "")
        markChanged(.catalog)
    }

    /// A device that cannot be opened still makes a session, failed at once with the reason, so
    /// the person and every client see what went wrong and the next start is not blocked.
    private mutating func failedStart(_ token: SessionToken, fault: CaptureFault) -> Result<RecognitionSession?, ProtocolError> {
        do {
            let failed = try engine.startFailed(token: token, wallClock: environment.clock.wallMilliseconds(), fault: fault)
            sessionEnded(failed)
            return .success(failed)
        } catch {
            return .failure(ProtocolError(.busy, command: "listen", "\(error)"))
        }
    }

    /// The open that did not return in time (`unansweredOpen`) has returned and its thread closed
    /// the device: the next start opens it anew.
    mutating func abandonedOpenReturned(_ token: SessionToken) {
        guard let open = unansweredOpen, open.token == token else { return }
        unansweredOpen = nil
        let waited = environment.clock.monotonicMilliseconds() - open.sinceMonotonic
        DaemonLog.warning(
            "capture device '\(open.device)' finished the open of session \(token) after \(ProtocolValues.seconds(Int(waited))) s; it was closed again, and the next session opens it anew"
        )
    }

    /// Cancels whatever listens, or a start whose device is still opening; nil when there was neither.
    mutating func cancelSession() -> RecognitionSession? {
        guard let ended = engine.cancel() else { return cancelPendingStart() }
        sessionEnded(ended)
        return ended
    }

    /// Everything that happens once when a session ends, whichever way it ended. A match is
    /// recorded here unless `saved` brings the outcome of a write already made (`endSession`).
    mutating func sessionEnded(_ session: RecognitionSession, saved: Result<Int64, SaveProblem>? = nil) {
        var record = SessionRecord(session: session, eventId: nil)
        var flags: IdleFlags = .state
        switch session.state {
        case let .matched(result):
            switch saved ?? recordMatch(session, result) {
            case let .success(eventId):
                record.eventId = eventId
                lastSaveError = nil
                flags.insert(.history)
            case let .failure(problem):
                record.saveError = problem.message
                lastSaveError = "the match of session \(session.id) was not saved: \(problem.message)"
            }
            DaemonLog.info(
                "session \(session.id) matched \(result.reference.id) at \(ProtocolValues.seconds(result.offsetMilliseconds)) s (score \(result.score), heard \(ProtocolValues.seconds(result.heardMilliseconds)) s)"
            )
            showIndicator(
                .match,
                detail:
                    "\"\(result.reference.title)\" by \(result.reference.creator), \(ProtocolValues.shortSeconds(result.offsetMilliseconds)) s in"
            )
        case let .noMatch(reason):
            DaemonLog.info("session \(session.id) no match: \(reason)")
            showIndicator(.noMatch, detail: reason.description)
        case .canceled:
            record.canceledByShutdown = shuttingDown
            DaemonLog.info("session \(session.id) canceled\(shuttingDown ? ": soundtraced is stopping" : "")")
            showIndicator(.canceled, detail: "session \(session.id)")
        case let .failed(fault):
            switch fault {
            case .catalogRewritten:
                // Not the device's fault: the catalog it matched against is the one to retire.
                retireCatalogIfRewritten()
            case .catalogCheckFailed:
                // Not the device's either: the content check the session waited for retires the
                // catalog itself (`CatalogContentCheck`), as it would have without a session.
                break
            default:
                deviceHealth = .failed(fault)
            }
            DaemonLog.warning("session \(session.id) failed: \(fault)")
            showIndicator(.failure, detail: fault.description)
        case .listening:
            return
        }
        if sessionCatalog?.token == session.token { sessionCatalog = nil }
        remember(record)
        lastFinished = record
        announceOutcome(record)
        // The capture thread may be waiting on the device; wake it so it closes the device now.
        captureSource?.wake()
        markChanged(flags)
    }

    /// Why a match was not stored, for the session record and `status`.
    struct SaveProblem: Error { let message: String }

    /// Stores a match; when the database cannot, the reason (and a log line), so that the result
    /// is still shown and everyone sees that it was not saved.
    private mutating func recordMatch(_ session: RecognitionSession, _ result: MatchResult) -> Result<Int64, SaveProblem> {
        prepareSave(session, result).run()
    }

    /// A match's history write, prepared under the lock (what to write, with the session's own
    /// catalog) and run after it: `HistoryStore` serializes its own use, and the write waits for
    /// the disk (tens of milliseconds on an SD card), which no protocol command should wait for.
    struct PendingSave {
        let session: String
        let store: HistoryStore?
        let unavailable: String?
        let counter: String
        let match: NewRecognition?

        func run() -> Result<Int64, SaveProblem> {
            guard let store, let match else {
                DaemonLog.warning("session \(session) matched but the history is unavailable: \(unavailable ?? "")")
                return .failure(SaveProblem(message: "the history is unavailable: \(unavailable ?? "not open")"))
            }
            // The counter first: once this session's id is in the history it must never come back,
            // not even after its recognition is deleted and the daemon restarted.
            do {
                try store.setSetting(.nextSession, counter)
            } catch {
                DaemonLog.error("could not save the session counter before recording session \(session): \(error)")
            }
            do {
                return .success(try store.recordMatch(match).eventId)
            } catch {
                DaemonLog.error("could not record the match of session \(session): \(error)")
                return .failure(SaveProblem(message: "\(error)"))
            }
        }
    }

    mutating func prepareSave(_ session: RecognitionSession, _ result: MatchResult) -> PendingSave {
        guard let store else {
            return PendingSave(session: session.id, store: nil, unavailable: storeProblem ?? "not open", counter: "", match: nil)
        }
        // The catalog the session matched against, not one reloaded since.
        let catalog = sessionCatalog.flatMap { $0.token == session.token ? $0.catalog : nil } ?? catalogSlot.catalog
        let reference = catalog?.reference(id: result.reference.id)?.audio
        let metadata = (reference?.metadata ?? []).map { ReferenceSnapshot.MetadataEntry(key: $0.key, value: $0.value) }
        let snapshot = ReferenceSnapshot(
            title: result.reference.title, creator: result.reference.creator,
            license: result.reference.license, sourceFile: result.reference.sourceFile,
            metadata: metadata, catalogHash: catalog?.manifest.hash ?? String(repeating: "0", count: 64))
        let match = NewRecognition(
            sessionId: session.id, referenceId: result.reference.id, matchedAt: environment.clock.wallMilliseconds(),
            offsetMilliseconds: Int64(result.offsetMilliseconds), score: result.score, snapshot: snapshot)
        return PendingSave(
            session: session.id, store: store, unavailable: nil,
            counter: String(max(nextToken, session.token.value + 1)), match: match)
    }

    private mutating func remember(_ record: SessionRecord) {
        if let index = recent.firstIndex(where: { $0.session.token == record.session.token }) {
            recent[index] = record
        } else {
            recent.append(record)
            if recent.count > Appliance.recentSessions { recent.removeFirst(recent.count - Appliance.recentSessions) }
        }
    }

    /// The capture thread of `token` has closed its device: starts deferred meanwhile run now, in
    /// the order they were asked for.
    mutating func captureClosed(_ token: SessionToken) {
        if captureToken == token {
            captureToken = nil
            captureSource = nil
        }
        guard captureToken == nil else { return }
        runDeferredStarts()
    }

    /// The starts that waited for a device (closing or opening), in the order they were asked for;
    /// one that finds the device opening again waits anew, and so do those after it.
    mutating func runDeferredStarts() {
        let waiting = deferredStarts
        deferredStarts = []
        for start in waiting {
            switch start {
            case .button:
                // A client's listen deferred before it may have started a session: the press then
                // finds it listening, which it neither cancels nor reports as a failure.
                if engine.listeningToken == nil { startFromButton() }
            case .fleet:
                fleetListen()
            case let .client(id):
                guard var client = clients[id] else { continue }
                client.awaitingCapture = false
                clients[id] = client
                runHeldLines(of: id)
                reportHolding(of: id)
            }
        }
    }
}

extension Appliance {
    /// Called on the thread of a device open the appliance stopped waiting for, once it returned.
    func abandonedOpenReturned(_ token: SessionToken) {
        state.withLock { $0.abandonedOpenReturned(token) }
    }

    /// Ends a session the capture thread's audio ended: a match is written to the history outside
    /// the lock (a `listen` meanwhile is deferred until this thread has closed the device), then
    /// everything else happens under it.
    fileprivate func endSession(_ ended: RecognitionSession) {
        var saved: Result<Int64, ApplianceState.SaveProblem>? = nil
        if case let .matched(result) = ended.state {
            let pending = state.withLock { $0.prepareSave(ended, result) }
            saved = pending.run()
        }
        state.withLock { $0.sessionEnded(ended, saved: saved) }
    }

    // MARK: capture thread

    /// The capture thread: the session's loop (`SessionRunner`, each step under the lock, the
    /// recognizer's work outside it), then the device closed and the next `listen` let in.
    func runCapture(source: AudioSource, token: SessionToken) {
        SessionRunner(
            source: source, token: token, captureWaitMilliseconds: environment.settings.captureWaitMilliseconds,
            clock: environment.clock
        ).run(for: CaptureOwner(appliance: self))
        source.close()
        state.withLock { $0.captureClosed(token) }
        runningCaptures.finished()
        // Give the pages the session's buffers freed back to the kernel: malloc keeps freed
        // memory below the heap's top for reuse, ~0.1 MiB after a session (bench/daemon). Well
        // under a millisecond for the daemon's small heap, once per session.
        _ = malloc_trim(0)
        // The index buckets, signatures and levels the session read are clean pages of the mapped
        // catalog: out of the resident set again (they stay in the page cache), so idle memory
        // does not creep up with every session towards the catalog's size (docs/CATALOG.md).
        state.withLock { $0.catalogSlot.catalog }?.releaseResidentPages()
    }

    /// The appliance as its capture thread's session owner: every engine step under the lock; a
    /// session the audio ended is recorded by `endSession` (a match's write outside the lock).
    private final class CaptureOwner: SessionOwner {
        let appliance: Appliance
        init(appliance: Appliance) { self.appliance = appliance }
        func withEngine<T>(_ body: (inout SessionEngine) -> T) -> T { appliance.state.withLock { body(&$0.engine) } }
        func sessionEnded(_ session: RecognitionSession) { appliance.endSession(session) }
    }
}

/// What a capture thread needs, handed over once: from then on only that thread uses the source
/// (besides `wake()`, which AudioSource makes safe from any thread).
private struct CaptureJob: @unchecked Sendable {
    let appliance: Appliance
    let source: AudioSource
    let token: SessionToken
    func run() { appliance.runCapture(source: source, token: token) }
}
