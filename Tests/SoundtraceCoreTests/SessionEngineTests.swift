import Testing

@testable import SoundtraceCore

/// A recognizer whose snapshots follow a script keyed by audio heard, and which records what it got.
final class ScriptedRecognizer: Recognizer {
    let sampleRate = 8000
    var pushes: [(frame: Int, count: Int)] = []
    var heard = 0
    var finalRequested = false
    /// Returns the snapshot for a given amount of audio heard (ms).
    let script: (Int) -> RecognizerSnapshot

    init(script: @escaping (Int) -> RecognizerSnapshot) { self.script = script }

    func push(_ samples: [Int16], atFrame frame: Int) {
        pushes.append((frame, samples.count))
        heard += samples.count
    }

    func snapshot(final: Bool) -> RecognizerSnapshot {
        if final { finalRequested = true }
        return script(heard * 1000 / sampleRate)
    }

    static let song = ReferenceSummary(id: "song-a", title: "Song A", creator: "Us", license: "CC0-1.0", sourceFile: "a.wav")
    static let other = ReferenceSummary(id: "song-b", title: "Song B", creator: "Us", license: "CC0-1.0", sourceFile: "b.wav")

    static func match(_ reference: ReferenceSummary = song, score: Int, runnerUp: Int = 3, offset: Int = 12_000, heard: Int)
        -> RecognizerSnapshot
    {
        RecognizerSnapshot(
            isMatch: true, reference: reference, offsetMilliseconds: offset, score: score,
            runnerUpScore: runnerUp, peaks: 100, heardMilliseconds: heard)
    }

    static func nothing(peaks: Int, heard: Int) -> RecognizerSnapshot {
        RecognizerSnapshot(
            isMatch: false, reference: peaks > 0 ? other : nil, offsetMilliseconds: 0, score: 2,
            runnerUpScore: 2, peaks: peaks, heardMilliseconds: heard)
    }
}

@Suite struct SessionEngineTests {
    let settings = SessionSettings.standard
    let second = [Int16](repeating: 0, count: 8000)
    let quarter = [Int16](repeating: 0, count: 2000)

    func started(_ recognizer: ScriptedRecognizer, token: UInt64 = 1, settings: SessionSettings = .standard) throws -> SessionEngine {
        var engine = SessionEngine(device: "testmic")
        let session = try engine.start(
            token: SessionToken(token), wallClock: 1_700_000_000_000, monotonic: 0,
            recognizer: recognizer, settings: settings)
        #expect(session.state == .listening)
        #expect(session.id == "s-\(token)")
        return engine
    }

    /// A start canceled before it listened (its device still opening) ends at once, like a failed
    /// one, and leaves nothing to feed; while a session listens it is refused like any start.
    @Test func aStartCanceledBeforeItListenedEndsAtOnce() throws {
        var engine = SessionEngine(device: "testmic")
        let canceled = try engine.startCanceled(token: SessionToken(4), wallClock: 1_700_000_000_000)
        #expect(canceled.state == .canceled && canceled.id == "s-4")
        #expect(engine.listeningToken == nil && engine.deadline == nil)
        #expect(engine.receive(second, atFrame: 0, token: SessionToken(4)) == nil)
        var listening = try started(ScriptedRecognizer { ScriptedRecognizer.nothing(peaks: 10, heard: $0) }, token: 5)
        #expect(throws: SessionEngine.StartRefusal.alreadyListening(SessionToken(5))) {
            try listening.startCanceled(token: SessionToken(6), wallClock: 1_700_000_000_000)
        }
    }

    /// Feeds quarter seconds to session 1 until it ends or its 10 s have been heard: how it ended,
    /// and the frame the audio had reached.
    func feedQuarters(_ engine: inout SessionEngine) -> (RecognitionSession?, Int) {
        var ended: RecognitionSession?
        var frame = 0
        while ended == nil && frame < 10 * 8000 {
            ended = engine.receive(quarter, atFrame: frame, token: SessionToken(1))
            frame += quarter.count
        }
        return (ended, frame)
    }

    @Test func confidentStableMatchStopsEarlyWithExactlyOneResult() throws {
        let recognizer = ScriptedRecognizer { heard in
            heard < 1500 ? ScriptedRecognizer.nothing(peaks: 10, heard: heard) : ScriptedRecognizer.match(score: 40, heard: heard)
        }
        var engine = try started(recognizer)
        let (ended, frame) = feedQuarters(&engine)
        let session = try #require(ended)
        guard case let .matched(result) = session.state else {
            Issue.record("not matched: \(session.state)")
            return
        }
        #expect(result.reference == ScriptedRecognizer.song)
        #expect(result.offsetMilliseconds == 12_000)
        // Two stable snapshots 250 ms apart after 1.5 s: decided at 1.75 s, long before the 10 s window.
        #expect(frame == 1750 * 8)
        // Later audio and repeated confirmations cannot produce a second result.
        #expect(engine.receive(quarter, atFrame: frame, token: SessionToken(1)) == nil)
        #expect(engine.cancel() == nil)
        #expect(engine.session?.state == session.state)
    }

    @Test func weakOrUnstableMatchesWaitForTheWindow() throws {
        // A match that flips between references, then a weak one: never confident; the final verdict decides.
        let recognizer = ScriptedRecognizer { heard in
            let reference = (heard / 250) % 2 == 0 ? ScriptedRecognizer.song : ScriptedRecognizer.other
            return heard < 9000
                ? ScriptedRecognizer.match(reference, score: 40, heard: heard)
                : ScriptedRecognizer.match(score: 12, runnerUp: 5, heard: heard)
        }
        var engine = try started(recognizer)
        var ended: RecognitionSession?
        var frame = 0
        while ended == nil {
            ended = engine.receive(quarter, atFrame: frame, token: SessionToken(1))
            frame += quarter.count
        }
        #expect(frame == 10 * 8000)
        #expect(recognizer.finalRequested)
        guard case let .matched(result) = ended?.state else {
            Issue.record("\(String(describing: ended))")
            return
        }
        #expect(result.score == 12)
    }

    @Test func aMatchThatIsNotStrongEnoughDoesNotStopEarly() throws {
        let recognizer = ScriptedRecognizer { ScriptedRecognizer.match(score: 15, runnerUp: 6, heard: $0) }
        var engine = try started(recognizer)
        var frame = 0
        var ended: RecognitionSession?
        while ended == nil {
            ended = engine.receive(second, atFrame: frame, token: SessionToken(1))
            frame += second.count
        }
        #expect(frame == 10 * 8000)
    }

    @Test func windowEndsWithNoMatchTellingSilenceFromUnknownAudio() throws {
        for (peaks, expected) in [(0, NoMatchReason.silence(heardMilliseconds: 10_000)), (50, .notInCatalog(heardMilliseconds: 10_000))] {
            let recognizer = ScriptedRecognizer { ScriptedRecognizer.nothing(peaks: peaks, heard: $0) }
            var engine = try started(recognizer)
            var ended: RecognitionSession?
            for s in 0..<10 {
                #expect(ended == nil)
                ended = engine.receive(second, atFrame: s * 8000, token: SessionToken(1))
            }
            #expect(ended?.state == .noMatch(expected))
        }
    }

    @Test func audioBeyondTheWindowIsNotAnalysed() throws {
        let recognizer = ScriptedRecognizer { ScriptedRecognizer.nothing(peaks: 5, heard: $0) }
        var engine = try started(recognizer, settings: try SessionSettings(windowSeconds: 3))
        #expect(engine.receive([Int16](repeating: 0, count: 5 * 8000), atFrame: 0, token: SessionToken(1)) != nil)
        #expect(recognizer.heard == 3 * 8000)
    }

    @Test func staleTokensAreDropped() throws {
        let recognizer = ScriptedRecognizer { ScriptedRecognizer.nothing(peaks: 5, heard: $0) }
        var engine = try started(recognizer, token: 7)
        #expect(engine.receive(second, atFrame: 0, token: SessionToken(6)) == nil)
        #expect(recognizer.pushes.isEmpty)
        #expect(engine.fail(.disconnected(device: "testmic"), token: SessionToken(6)) == nil)
        #expect(engine.cancel(token: SessionToken(6)) == nil)
        #expect(engine.deadlinePassed(monotonic: 1_000_000, token: SessionToken(6)) == nil)
        #expect(engine.session?.state == .listening)
        // A cancel ends session 7; its late buffers and errors are dropped; a new session is unaffected.
        #expect(engine.cancel(token: SessionToken(7))?.state == .canceled)
        #expect(engine.receive(second, atFrame: 0, token: SessionToken(7)) == nil)
        let next = ScriptedRecognizer { ScriptedRecognizer.nothing(peaks: 5, heard: $0) }
        _ = try engine.start(token: SessionToken(8), wallClock: 0, monotonic: 100, recognizer: next, settings: settings)
        #expect(engine.fail(.busy(device: "testmic"), token: SessionToken(7)) == nil)
        #expect(engine.receive(second, atFrame: 0, token: SessionToken(7)) == nil)
        #expect(next.pushes.isEmpty)
        #expect(engine.receive(second, atFrame: 0, token: SessionToken(8)) == nil)
        #expect(next.pushes.count == 1)
    }

    @Test func aStartWhileListeningIsRefused() throws {
        let recognizer = ScriptedRecognizer { ScriptedRecognizer.nothing(peaks: 5, heard: $0) }
        var engine = try started(recognizer, token: 1)
        #expect(throws: SessionEngine.StartRefusal.alreadyListening(SessionToken(1))) {
            try engine.start(token: SessionToken(2), wallClock: 0, monotonic: 0, recognizer: recognizer, settings: settings)
        }
        #expect(engine.listeningToken == SessionToken(1))
    }

    @Test func shortGapsKeepPositionsLongGapsFail() throws {
        let recognizer = ScriptedRecognizer { ScriptedRecognizer.nothing(peaks: 5, heard: $0) }
        var engine = try started(recognizer)
        #expect(engine.receive(second, atFrame: 0, token: SessionToken(1)) == nil)
        // 250 ms lost: bridged, and the recognizer is told where the audio really starts.
        #expect(engine.receive(second, atFrame: 10_000, token: SessionToken(1)) == nil)
        #expect(recognizer.pushes.map(\.frame) == [0, 10_000])
        // An overlapping buffer only contributes its new part.
        #expect(engine.receive(second, atFrame: 17_000, token: SessionToken(1)) == nil)
        #expect(recognizer.pushes.last?.frame == 18_000 && recognizer.pushes.last?.count == 7000)
        // 1 s lost: the session fails rather than splicing across it.
        let ended = engine.receive(second, atFrame: 33_000, token: SessionToken(1))
        #expect(ended?.state == .failed(.audioGap(device: "testmic", milliseconds: 1000)))
    }

    @Test func aDeviceThatSaysWhereItResumesEndsALongGapAtOnce() throws {
        let recognizer = ScriptedRecognizer { ScriptedRecognizer.nothing(peaks: 5, heard: $0) }
        var engine = try started(recognizer)
        #expect(engine.receive(second, atFrame: 0, token: SessionToken(1)) == nil)
        // A short overrun: the empty buffer changes nothing, and the audio after it is bridged.
        #expect(engine.receive([], atFrame: 12_000, token: SessionToken(1)) == nil)
        #expect(engine.listeningToken == SessionToken(1))
        #expect(engine.receive(second, atFrame: 12_000, token: SessionToken(1)) == nil)
        #expect(recognizer.pushes.map(\.frame) == [0, 12_000])
        // A suspend: the stream resumes 5 s on, and the session fails as a gap before any audio
        // comes again (not as a stalled device when its deadline passes meanwhile).
        let ended = engine.receive([], atFrame: 60_000, token: SessionToken(1))
        #expect(ended?.state == .failed(.audioGap(device: "testmic", milliseconds: 5000)))
        #expect(recognizer.pushes.count == 2)
    }

    @Test func aStalledDeviceCannotStretchTheWindow() throws {
        let recognizer = ScriptedRecognizer { ScriptedRecognizer.nothing(peaks: 5, heard: $0) }
        var engine = try started(recognizer)
        #expect(engine.receive(second, atFrame: 0, token: SessionToken(1)) == nil)
        let deadline = try #require(engine.deadline)
        #expect(deadline == 13_000)
        #expect(engine.deadlinePassed(monotonic: deadline - 1, token: SessionToken(1)) == nil)
        #expect(
            engine.deadlinePassed(monotonic: deadline, token: SessionToken(1))?.state
                == .failed(.stalled(device: "testmic", heardMilliseconds: 1000)))
        #expect(engine.deadline == nil)
    }

    @Test func aMatchHeardBeforeTheDeviceStalledStillCounts() throws {
        let recognizer = ScriptedRecognizer { ScriptedRecognizer.match(score: 14, runnerUp: 6, heard: $0) }
        var engine = try started(recognizer)
        #expect(engine.receive(second, atFrame: 0, token: SessionToken(1)) == nil)
        guard case .matched = engine.deadlinePassed(monotonic: 20_000, token: SessionToken(1))?.state else {
            Issue.record("expected a match")
            return
        }
    }

    @Test func aSnapshotWithAFaultFailsTheSessionEvenOverAMatch() throws {
        // The recognizer found that its catalog changed under it: a match it reports is not trusted.
        let fault = CaptureFault.catalogRewritten(path: "/var/lib/soundtrace/catalog")
        let recognizer = ScriptedRecognizer { heard in
            let match = ScriptedRecognizer.match(score: 400, heard: heard)
            guard heard >= 1000 else { return match }
            return RecognizerSnapshot(
                isMatch: true, reference: match.reference, offsetMilliseconds: match.offsetMilliseconds, score: 400,
                runnerUpScore: 3, peaks: 100, heardMilliseconds: heard, fault: fault)
        }
        var engine = try started(recognizer)
        let (ended, frame) = feedQuarters(&engine)
        #expect(ended?.state == .failed(fault))
        #expect(frame == 1000 * 8)
        #expect(fault.code == "catalogChanged")
        #expect(fault.description.contains("rewritten in place during the session"))
    }

    @Test func windowSettingsAreValidated() {
        #expect(throws: SessionSettings.Invalid.windowOutOfRange(2)) { try SessionSettings(windowSeconds: 2) }
        #expect(throws: SessionSettings.Invalid.windowOutOfRange(31)) { try SessionSettings(windowSeconds: 31) }
        #expect(SessionSettings.standard.windowMilliseconds == 10_000)
    }

    @Test func faultsSayWhatToDo() {
        #expect(
            CaptureFault.deviceNotFound(device: "hw:5", available: ["default", "plughw:0,0"]).description
                == "capture device 'hw:5' does not exist; capture devices here: default, plughw:0,0; set the device with --device (e.g. 'default' or 'plughw:1,0')"
        )
        #expect(CaptureFault.permissionDenied(device: "hw:0").description.contains("'audio' group"))
        #expect(CaptureFault.busy(device: "hw:0").description.contains("in use by another program"))
        #expect(CaptureFault.disconnected(device: "hw:0").code == "deviceDisconnected")
        let unchecked = CaptureFault.catalogCheckFailed(reason: "catalog /c is corrupt: its content does not match its SHA-256")
        #expect(unchecked.code == "catalogCheckFailed")
        #expect(unchecked.description.hasPrefix("catalog /c is corrupt"))
        #expect(unchecked.description.contains("listen again once the file is replaced"))
    }
}
