import CLinux
import Glibc
import SoundtraceCore
import SoundtraceFingerprint
import SoundtracePlatform
import SoundtraceProtocol
import SoundtraceRecognition
import SoundtraceStore

extension Appliance {
    /// Starts a session (from `listen` or the button). Refused while one listens or without a
    /// catalog; a device that cannot be opened gives a session that failed at once.
    func startSessionLocked() -> Result<RecognitionSession, ProtocolError> {
        func refusedBusy(_ token: SessionToken) -> Result<RecognitionSession, ProtocolError> {
            .failure(
                ProtocolError(
                    .busy, command: "listen",
                    "already listening (session \(token)); cancel it first (`soundtrace cancel` or the button) or wait for its result"))
        }
        func refusedShutdown() -> Result<RecognitionSession, ProtocolError> {
            .failure(ProtocolError(.unavailable, command: "listen", "soundtraced is shutting down"))
        }
        if let token = engine.listeningToken { return refusedBusy(token) }
        guard !shuttingDown else { return refusedShutdown() }
        // The previous session's device may still be closing; opening it again now would be
        // "busy". The wait releases the lock, so everything is checked again after it.
        waitForCaptureClosedLocked()
        if let token = engine.listeningToken { return refusedBusy(token) }
        guard !shuttingDown else { return refusedShutdown() }
        // The catalog's index is read from its mapped file: one fstat tells whether it was rewritten.
        if let rewritten = catalogSlot.rewrittenInPlace() {
            catalogSlot = rewritten
            catalogWarning = nil
            DaemonLog.error(rewritten.problem ?? "")
            changedLocked(.catalog)
        }
        guard let catalog = catalogSlot.catalog else {
            return .failure(ProtocolError(.unavailable, command: "listen", "no usable catalog: \(catalogSlot.problem ?? "none loaded")"))
        }
        let token = SessionToken(nextToken)
        nextToken += 1
        let source = environment.makeSource(environment.device)
        let format: CaptureFormat
        do {
            format = try source.open(preferredRate: catalog.parameters.sampleRate)
        } catch {
            source.close()
            return failedStartLocked(token, fault: error)
        }
        guard WAVReader.supportedRates.contains(format.sampleRate),
            let recognizer = environment.makeRecognizer(catalog, format.sampleRate)
        else {
            source.close()
            return failedStartLocked(token, fault: .unsupportedFormat(device: source.device, offered: format.deviceFormat))
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
        let job = CaptureJob(appliance: self, source: source, token: token)
        let started = WorkerThread(detached: true) { job.run() }
        guard started != nil else {
            captureToken = nil
            captureSource = nil
            source.close()
            if let ended = engine.fail(.other(device: source.device, detail: "no thread could be started for capture"), token: token) {
                sessionEndedLocked(ended)
            }
            return .failure(ProtocolError(.system, command: "listen", "the system is out of threads; restart soundtraced"))
        }
        deviceHealth = .ok
        rememberLocked(SessionRecord(session: session, eventId: nil))
        DaemonLog.info("session \(token) listening on \(source.device) (\(format.deviceFormat))")
        showIndicatorLocked(.listening, detail: "session \(token)")
        changedLocked(.state)
        return .success(session)
    }

    /// A device that cannot be opened still makes a session, failed at once with the reason, so
    /// the person and every client see what went wrong and the next start is not blocked.
    private func failedStartLocked(_ token: SessionToken, fault: CaptureFault) -> Result<RecognitionSession, ProtocolError> {
        do {
            let failed = try engine.startFailed(token: token, wallClock: environment.clock.wallMilliseconds(), fault: fault)
            sessionEndedLocked(failed)
            return .success(failed)
        } catch {
            return .failure(ProtocolError(.busy, command: "listen", "\(error)"))
        }
    }

    /// Cancels whatever listens; nil when nothing did.
    func cancelSessionLocked() -> RecognitionSession? {
        guard let ended = engine.cancel() else { return nil }
        sessionEndedLocked(ended)
        return ended
    }

    /// Everything that happens once when a session ends, whichever way it ended. A match is
    /// recorded here unless `saved` brings the outcome of a write already made (`endSession`).
    func sessionEndedLocked(_ session: RecognitionSession, saved: Result<Int64, SaveProblem>? = nil) {
        var record = SessionRecord(session: session, eventId: nil)
        var flags: IdleFlags = .state
        switch session.state {
        case let .matched(result):
            switch saved ?? recordMatchLocked(session, result) {
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
            showIndicatorLocked(
                .match,
                detail:
                    "\"\(result.reference.title)\" by \(result.reference.creator), \(ProtocolValues.shortSeconds(result.offsetMilliseconds)) s in"
            )
        case let .noMatch(reason):
            DaemonLog.info("session \(session.id) no match: \(reason)")
            showIndicatorLocked(.noMatch, detail: reason.description)
        case .canceled:
            DaemonLog.info("session \(session.id) canceled")
            showIndicatorLocked(.canceled, detail: "session \(session.id)")
        case let .failed(fault):
            deviceHealth = .failed(fault)
            DaemonLog.warning("session \(session.id) failed: \(fault)")
            showIndicatorLocked(.failure, detail: fault.description)
        case .listening:
            return
        }
        if sessionCatalog?.token == session.token { sessionCatalog = nil }
        rememberLocked(record)
        lastFinished = record
        // The capture thread may be waiting on the device; wake it so it closes the device now.
        captureSource?.wake()
        changedLocked(flags)
    }

    /// Why a match was not stored, for the session record and `status`.
    struct SaveProblem: Error { let message: String }

    /// Stores a match; when the database cannot, the reason (and a log line), so that the result
    /// is still shown and everyone sees that it was not saved.
    private func recordMatchLocked(_ session: RecognitionSession, _ result: MatchResult) -> Result<Int64, SaveProblem> {
        prepareSaveLocked(session, result).run()
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

    func prepareSaveLocked(_ session: RecognitionSession, _ result: MatchResult) -> PendingSave {
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

    /// Ends a session the capture thread's audio ended: a match is written to the history outside
    /// the lock (a new `listen` meanwhile waits for this thread to close the device), then
    /// everything else happens under it.
    fileprivate func endSession(_ ended: RecognitionSession) {
        var saved: Result<Int64, SaveProblem>? = nil
        if case let .matched(result) = ended.state {
            let pending = locked { prepareSaveLocked(ended, result) }
            saved = pending.run()
        }
        locked { sessionEndedLocked(ended, saved: saved) }
    }

    private func rememberLocked(_ record: SessionRecord) {
        if let index = recent.firstIndex(where: { $0.session.token == record.session.token }) {
            recent[index] = record
        } else {
            recent.append(record)
            if recent.count > Self.recentSessions { recent.removeFirst(recent.count - Self.recentSessions) }
        }
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
        locked {
            if captureToken == token {
                captureToken = nil
                captureSource = nil
            }
            signalCaptureClosedLocked()
        }
        // Give the pages the session's buffers freed back to the kernel: malloc keeps freed
        // memory below the heap's top for reuse, ~0.1 MiB after a session (bench/daemon). Well
        // under a millisecond for the daemon's small heap, once per session.
        _ = malloc_trim(0)
    }

    /// The appliance as its capture thread's session owner: every engine step under the lock; a
    /// session the audio ended is recorded by `endSession` (a match's write outside the lock).
    private final class CaptureOwner: SessionOwner {
        let appliance: Appliance
        init(appliance: Appliance) { self.appliance = appliance }
        func withEngine<T>(_ body: (inout SessionEngine) -> T) -> T { appliance.locked { body(&appliance.engine) } }
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
