import CSQLite
import Foundation
import Glibc
import SoundtraceClock
import SoundtraceCore
import SoundtraceStore
import SoundtraceTestSupport
import Testing

@testable import SoundtraceDaemon
@testable import SoundtraceFingerprint
@testable import SoundtracePlatform

/// Sessions through the appliance: the button, the history, one result per session, with a
/// scripted microphone (a recording handed out in buffers as fast as the capture thread reads).
@Suite(.serialized) struct ApplianceSessionTests {
    /// Every file a test writes, removed when the test ends.
    private let scratch: TemporaryFolder

    init() throws { scratch = try TemporaryFolder("soundtrace-appliance-tests") }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .path
    static let catalog: Catalog = { try! CatalogFile.load(path: root + "/catalog/soundtrace.catalog") }()

    /// A microphone playing `samples`, then silence; or failing to open with `fault`.
    final class ScriptedMicrophone: AudioSource, @unchecked Sendable {
        // @unchecked: the appliance opens it under its lock and then hands it to one capture
        // thread; `opened`/`closed` are read by the test after the session ended.
        let device = "scripted"
        let samples: [Int16]
        /// Thrown by `open`; a test may change it between opens (before it lets an open through `openGate`).
        var fault: CaptureFault?
        /// Wait per read, so a test can act while the session listens.
        let pace: useconds_t
        var position = 0
        var opened = 0
        var closed = 0
        let wakeSignal = WakeSignal()
        /// Run once, on the capture thread, when a read starts past this many samples.
        var midway: (samples: Int, action: () -> Void)?

        init(samples: [Int16], fault: CaptureFault? = nil, pace: useconds_t = 0) {
            self.samples = samples
            self.fault = fault
            self.pace = pace
        }

        /// When set, `open` waits for it first, like an ALSA plugin whose sound server does not answer.
        var openGate: DispatchSemaphore?

        func open(preferredRate: Int) throws(CaptureFault) -> CaptureFormat {
            openGate?.wait()
            if let fault { throw fault }
            opened += 1
            position = 0
            return CaptureFormat(sampleRate: 8000, deviceChannels: 1, deviceFormat: "S16_LE, 1 ch, 8000 Hz")
        }

        func read(timeoutMilliseconds: Int) throws(CaptureFault) -> CaptureEvent {
            if pace > 0 {
                if wakeSignal.wait(milliseconds: Int(pace / 1000)) {
                    wakeSignal.consume()
                    return .woken
                }
            }
            if let hook = midway, position >= hook.samples {
                midway = nil
                hook.action()
            }
            let count = 800
            let chunk =
                position < samples.count
                ? Array(samples[position..<min(samples.count, position + count)]) : [Int16](repeating: 0, count: count)
            defer { position += count }
            return .audio(samples: chunk, frame: position)
        }

        func wake() { wakeSignal.signal() }
        func close() { closed += 1 }
    }

    final class RecordingIndicator: StateIndicator, @unchecked Sendable {
        // @unchecked: written under the appliance's lock, read after the session ended.
        var states: [IndicatorState] = []
        func show(_ state: IndicatorState, calm: Bool, detail: String) { states.append(state) }
    }

    final class NullChannel: ClientChannel, @unchecked Sendable {
        func send(_ text: String, to client: LineServer.Client) {}
        func close(_ client: LineServer.Client) {}
        func setIdleExempt(_ client: LineServer.Client, _ exempt: Bool) {}
        func setAwaitingAnswer(_ client: LineServer.Client, _ awaiting: Bool) {}
    }

    /// Capture loops kept instead of started, run on the test's thread when it says: a session
    /// then runs start to end without another thread, so the test waits for nothing.
    final class ManualCaptureLaunch: @unchecked Sendable {
        // @unchecked: used from the test's thread only.
        var pending: [@Sendable () -> Void] = []
        var launch: @Sendable (@escaping @Sendable () -> Void) -> Bool {
            { [self] loop in
                pending.append(loop)
                return true
            }
        }
        /// Runs the oldest kept capture loop to its end (the session's, then the device closed).
        func runNext() throws {
            guard !pending.isEmpty else { throw TestFailure("no capture loop was started") }
            pending.removeFirst()()
        }
    }

    private func makeAppliance(
        _ microphone: ScriptedMicrophone, store: HistoryStore?, indicator: RecordingIndicator, launch: ManualCaptureLaunch? = nil,
        catalog: CatalogSlot = CatalogSlot(path: "sample", catalog: Self.catalog, problem: nil)
    ) -> Appliance {
        var environment = Appliance.Environment(
            device: "scripted", settings: .standard, token: nil, makeSource: { _ in microphone },
            clock: RealTimeFixedWall(), timersChanged: {})
        if let launch { environment.launchCapture = launch.launch }
        return Appliance(
            environment: environment, channel: NullChannel(), indicator: indicator,
            catalog: catalog, store: store, storeProblem: nil)
    }

    /// Returns once the capture threads have closed their devices (the session ended first).
    private func waitUntilIdle(_ appliance: Appliance) {
        appliance.runningCaptures.waitForNone()
    }

    private func temporaryStore() throws -> HistoryStore {
        let directory = scratch.path + "/\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return try HistoryStore.open(path: directory + "/history.db").store
    }

    @Test func theButtonListensAndAMatchIsRecordedOnce() throws {
        let recording = try RecordingLoader.load(path: Self.root + "/catalog/" + Self.catalog.references[2].audio.sourceFile).audio
        let clip = TestAudio.micChain(TestAudio.excerpt(recording, from: 20 * 8000, count: 12 * 8000), seed: 5)
        let microphone = ScriptedMicrophone(samples: clip.samples)
        let store = try temporaryStore()
        let indicator = RecordingIndicator()
        let launch = ManualCaptureLaunch()
        let appliance = makeAppliance(microphone, store: store, indicator: indicator, launch: launch)
        appliance.buttonPressed()
        try launch.runNext()
        #expect(appliance.state.withLock { $0.engine.listeningToken == nil && $0.captureToken == nil })
        let events = try store.events()
        #expect(events.count == 1)
        #expect(events.first?.referenceId == Self.catalog.references[2].audio.id)
        #expect(events.first?.sessionId == "s-1")
        #expect(abs(Int(events.first?.offsetMilliseconds ?? 0) - 20_000) <= 1000)
        #expect(indicator.states == [.listening, .match])
        #expect(microphone.opened == 1 && microphone.closed == 1)
        // The next session numbers on after the recorded one, also in a fresh appliance.
        let restarted = makeAppliance(microphone, store: store, indicator: indicator)
        #expect(restarted.state.withLock { $0.nextToken } == 2)
    }

    /// `cp new.catalog PATH` while a visitor's session listens: the file is truncated, then
    /// written, under the daemon's mapping. The session must neither crash the daemon (reads
    /// past the new end are SIGBUS) nor name a recording from what it read; it fails, saying so,
    /// and the catalog is retired until a reload, without blaming the microphone.
    @Test func aCatalogRewrittenInPlaceDuringASessionFailsItAndRetiresTheCatalog() throws {
        let path = scratch.path + "/mapped.catalog"
        let bytes = try FileBytes.read(path: Self.root + "/catalog/soundtrace.catalog", limit: 1 << 30)
        try FileBytes.writeAtomically(bytes, to: path)
        let catalog = try CatalogFile.load(path: path, check: .structure)
        let recording = try RecordingLoader.load(path: Self.root + "/catalog/" + catalog.references[2].audio.sourceFile).audio
        let microphone = ScriptedMicrophone(samples: TestAudio.excerpt(recording, from: 20 * 8000, count: 12 * 8000).samples)
        // Down to its first page, as `cp` leaves it between truncating and writing.
        microphone.midway = (samples: 12000, action: { _ = truncate(path, 4096) })
        let store = try temporaryStore()
        let indicator = RecordingIndicator()
        let launch = ManualCaptureLaunch()
        let appliance = makeAppliance(
            microphone, store: store, indicator: indicator, launch: launch, catalog: CatalogSlot(path: path, catalog: catalog, problem: nil)
        )
        appliance.buttonPressed()
        try launch.runNext()
        #expect(catalog.content.file?.readPastTheEnd == true, "the session read nothing past the new end")
        #expect(appliance.state.withLock { $0.lastFinished?.session.state } == .failed(.catalogRewritten(path: path)))
        #expect(try store.events().isEmpty)
        #expect(indicator.states == [.listening, .failure])
        let status = appliance.state.withLock { $0.statusPairs() }
        #expect(status.contains { $0 == ("catalog", "unavailable") })
        #expect(status.contains { $0.0 == "catalog_error" && $0.1.contains("rewritten in place") })
        #expect(status.contains { $0.0 == "last_message" && $0.1.contains("rewritten in place during the session") }, "\(status)")
        #expect(!status.contains { $0 == ("device_health", "failed") }, "the microphone was not at fault")
        // And the next listen says why it cannot start.
        appliance.buttonPressed()
        #expect(appliance.state.withLock { $0.engine.listeningToken } == nil)
    }

    /// soundtraced serves a catalog before its background content check ends (start-up reads its
    /// structure only). A session about to name a match from it waits for that check, or runs it.
    /// From a catalog whose bulk is damaged in a place this match does not read (the last
    /// recording's levels), it names nothing, says why, writes no history and does not blame the
    /// microphone; from a sound one, it names the match as always.
    @Test func aMatchIsNamedOnlyOnceTheCatalogPassedItsContentCheck() throws {
        for damaged in [true, false] {
            let path = scratch.path + "/unchecked-\(damaged).catalog"
            var bytes = try FileBytes.read(path: Self.root + "/catalog/soundtrace.catalog", limit: 1 << 30)
            if damaged { bytes[bytes.count - 2000] ^= 0x40 }
            try FileBytes.writeAtomically(bytes, to: path)
            let catalog = try CatalogFile.load(path: path, check: .structure)
            #expect(catalog.contentKnownSound == nil)
            let reference = catalog.references[2].audio
            let recording = try RecordingLoader.load(path: Self.root + "/catalog/" + reference.sourceFile).audio
            let microphone = ScriptedMicrophone(samples: TestAudio.excerpt(recording, from: 20 * 8000, count: 12 * 8000).samples)
            let store = try temporaryStore()
            let indicator = RecordingIndicator()
            let launch = ManualCaptureLaunch()
            let appliance = makeAppliance(
                microphone, store: store, indicator: indicator, launch: launch,
                catalog: CatalogSlot(path: path, catalog: catalog, problem: nil))
            appliance.buttonPressed()
            try launch.runNext()
            let ended = appliance.state.withLock { $0.lastFinished?.session.state }
            let status = appliance.state.withLock { $0.statusPairs() }
            if damaged {
                guard case let .failed(.catalogCheckFailed(reason))? = ended else {
                    Issue.record("a damaged catalog's match was not refused: \(String(describing: ended))")
                    continue
                }
                #expect(reason.contains("does not match its SHA-256"), "\(reason)")
                #expect(catalog.contentKnownSound == false)
                #expect(try store.events().isEmpty)
                #expect(indicator.states == [.listening, .failure])
                #expect(status.contains { $0.0 == "last_message" && $0.1.contains("names nothing") }, "\(status)")
                #expect(!status.contains { $0 == ("device_health", "failed") }, "the microphone was not at fault")
            } else {
                guard case let .matched(result)? = ended else {
                    Issue.record("a sound catalog's match was not named: \(String(describing: ended))")
                    continue
                }
                #expect(result.reference.id == reference.id)
                #expect(catalog.contentKnownSound == true, "the session ran the check")
                #expect(try store.events().count == 1)
            }
        }
    }

    @Test func theButtonCancelsWhileListeningAndTheDeviceIsClosed() throws {
        let microphone = ScriptedMicrophone(samples: [])
        let indicator = RecordingIndicator()
        let launch = ManualCaptureLaunch()
        let appliance = makeAppliance(microphone, store: nil, indicator: indicator, launch: launch)
        appliance.buttonPressed()
        #expect(appliance.state.withLock { $0.engine.listeningToken } != nil)
        appliance.buttonPressed()
        #expect(microphone.closed == 0, "the capture loop closes the device")
        try launch.runNext()
        #expect(indicator.states == [.listening, .canceled])
        #expect(microphone.closed == 1)
        #expect(appliance.state.withLock { $0.lastFinished?.session.state } == .canceled)
    }

    @Test func aDeviceThatCannotOpenFailsTheSessionAndShowsWhy() throws {
        let microphone = ScriptedMicrophone(samples: [], fault: .busy(device: "scripted"))
        let indicator = RecordingIndicator()
        let appliance = makeAppliance(microphone, store: nil, indicator: indicator)
        appliance.buttonPressed()
        #expect(indicator.states == [.failure])
        let status = appliance.state.withLock { $0.statusPairs() }
        #expect(status.contains { $0 == ("device_health", "failed") })
        #expect(status.contains { $0.0 == "last_outcome" && $0.1 == "failed" })
        #expect(status.contains { $0.0 == "device_error" && $0.1.contains("in use by another program") })
    }

    /// An open that does not return (a sound server that accepts the connection and never answers)
    /// must not hold the appliance's lock, and every client with it, for as long: the start waits
    /// a bounded time, fails the session saying why, opens nothing else meanwhile, and once the
    /// open returns its thread closes the device and the next start opens it anew.
    @Test func anOpenThatDoesNotReturnFailsTheSessionInBoundedTimeAndIsTriedAgainOnlyOnceItReturned() throws {
        let microphone = ScriptedMicrophone(samples: [])
        let gate = DispatchSemaphore(value: 0)
        microphone.openGate = gate
        let indicator = RecordingIndicator()
        let launch = ManualCaptureLaunch()
        let opensEnded = DispatchSemaphore(value: 0)
        let sourcesMade = Counter()
        var environment = Appliance.Environment(
            device: "scripted", settings: .standard, token: nil,
            makeSource: { _ in
                sourcesMade.add()
                return microphone
            },
            clock: RealTimeFixedWall(), timersChanged: {})
        environment.launchCapture = launch.launch
        environment.longestDeviceOpenMilliseconds = 50
        environment.launchOpen = { body in
            CaptureLaunch.onNewThread {
                body()
                opensEnded.signal()
            }
        }
        let appliance = Appliance(
            environment: environment, channel: NullChannel(), indicator: indicator,
            catalog: CatalogSlot(path: "sample", catalog: Self.catalog, problem: nil), store: nil, storeProblem: nil)
        // Were the wait unbounded, the press would return only when this opens the gate, and then
        // as a session that listens, which the expectations below refuse.
        let released = DispatchSemaphore(value: 0)
        let rescue = WorkerThread {
            if released.wait(timeout: .now() + 30) == .timedOut { gate.signal() }
        }
        appliance.buttonPressed()
        #expect(indicator.states == [.failure])
        let failed = appliance.state.withLock { $0.lastFinished?.session.state }
        guard case let .failed(.notAnswering(device, waited, retries)) = failed else {
            Issue.record("the session should fail as not answering, not \(String(describing: failed))")
            released.signal()
            rescue?.join()
            return
        }
        #expect(device == "scripted" && waited >= 50 && retries)
        let status = appliance.state.withLock { $0.statusPairs() }
        #expect(status.contains { $0.0 == "device_error" && $0.1.contains("has not finished opening") })

        // Pressed again while the first open still hangs: failed at once, nothing opened again.
        appliance.buttonPressed()
        #expect(indicator.states == [.failure, .failure])
        #expect(sourcesMade.value == 1)
        #expect(appliance.state.withLock { $0.engine.listeningToken } == nil)

        // The open returns: its thread closes the device; then a press opens it anew and listens.
        released.signal()
        rescue?.join()
        gate.signal()
        gate.signal()  // for the next open, which waits on the gate too
        opensEnded.wait()
        #expect(microphone.closed == 1)
        #expect(appliance.state.withLock { $0.unansweredOpen } == nil)
        appliance.buttonPressed()
        #expect(sourcesMade.value == 2)
        #expect(appliance.state.withLock { $0.engine.listeningToken } != nil)
        appliance.buttonPressed()
        try launch.runNext()
        #expect(indicator.states == [.failure, .failure, .listening, .canceled])
        #expect(microphone.closed == 2)
    }

    /// Counts calls from the appliance's lock, read by the test's thread afterwards.
    final class Counter: @unchecked Sendable {
        // @unchecked: changed under the appliance's lock, read after the call that changed it returned.
        private(set) var value = 0
        func add() { value += 1 }
    }

    /// A recognizer whose final verdict takes as long as the test wants, like the wider net on a
    /// long catalog on a small board.
    final class SlowVerdictRecognizer: Recognizer, @unchecked Sendable {
        // @unchecked: used by the capture thread only; the semaphores are thread-safe.
        let sampleRate = 8000
        let inFinalVerdict = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        func push(_ samples: [Int16], atFrame frame: Int) {}
        func snapshot(final: Bool) -> RecognizerSnapshot {
            if final {
                inFinalVerdict.signal()
                _ = release.wait(timeout: .now() + 10)
            }
            return RecognizerSnapshot(
                isMatch: false, reference: nil, offsetMilliseconds: 0, score: 0, runnerUpScore: 0,
                peaks: 1, heardMilliseconds: 10_000)
        }
    }

    /// Issue 13, item 4: the recognizer's work (here a final verdict that does not end until the
    /// test says so) must not hold the lock that every protocol command takes.
    @Test func aCommandIsAnsweredWhileTheFinalVerdictIsTaken() throws {
        let microphone = ScriptedMicrophone(samples: [])
        let recognizer = SlowVerdictRecognizer()
        var appliance = makeAppliance(microphone, store: nil, indicator: RecordingIndicator())
        var environment = appliance.environment
        environment.makeRecognizer = { _, _ in recognizer }
        appliance = Appliance(
            environment: environment, channel: NullChannel(), indicator: RecordingIndicator(),
            catalog: CatalogSlot(path: "sample", catalog: Self.catalog, problem: nil), store: nil, storeProblem: nil)
        appliance.buttonPressed()
        try #require(recognizer.inFinalVerdict.wait(timeout: .now() + 10) == .success, "the window never filled")
        // Ask for the status from another thread: before the fix it waited for the verdict.
        let answered = DispatchSemaphore(value: 0)
        let asking = Thread { [appliance] in
            _ = appliance.state.withLock { $0.statusPairs() }
            answered.signal()
        }
        asking.start()
        let inTime = answered.wait(timeout: .now() + 2) == .success
        recognizer.release.signal()
        #expect(inTime, "status waited for the final verdict")
        if !inTime { _ = answered.wait(timeout: .now() + 10) }
        waitUntilIdle(appliance)
        #expect(appliance.state.withLock { $0.lastFinished?.session.state } == .noMatch(.notInCatalog(heardMilliseconds: 10_000)))
    }

    /// Issue 13, item 4: the history write of a match (synchronous=FULL: it waits for the disk)
    /// must not hold the lock either. Another connection holds the database's write lock, so the
    /// match's write waits; meanwhile `status` must answer, and once the lock is released the
    /// match is saved.
    @Test func aCommandIsAnsweredWhileTheMatchIsWrittenToTheHistory() throws {
        let directory = scratch.path + "/\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = try HistoryStore.open(path: directory + "/history.db").store
        var other: OpaquePointer?
        try #require(sqlite3_open(directory + "/history.db", &other) == SQLITE_OK)
        defer { sqlite3_close(other) }
        try #require(sqlite3_exec(other, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK)
        var holding = true
        defer { if holding { sqlite3_exec(other, "ROLLBACK", nil, nil, nil) } }

        let recording = try RecordingLoader.load(path: Self.root + "/catalog/" + Self.catalog.references[2].audio.sourceFile).audio
        let microphone = ScriptedMicrophone(samples: TestAudio.excerpt(recording, from: 20 * 8000, count: 12 * 8000).samples)
        let appliance = makeAppliance(microphone, store: store, indicator: RecordingIndicator())
        appliance.buttonPressed()
        // Decided, but the capture thread is still busy: it is writing (waiting for the lock above).
        var writing = false
        for _ in 0..<500 where !writing {
            usleep(10_000)  // the capture thread runs on its own; its state is the condition
            writing = appliance.state.withLock { $0.engine.listeningToken == nil && $0.captureToken != nil }
        }
        try #require(writing, "the session did not reach its history write")
        let answered = DispatchSemaphore(value: 0)
        let whileWriting = StatusBox()
        let asking = Thread { [appliance] in
            whileWriting.pairs = appliance.state.withLock { $0.statusPairs() }
            answered.signal()
        }
        asking.start()
        let inTime = answered.wait(timeout: .now() + 1) == .success
        sqlite3_exec(other, "ROLLBACK", nil, nil, nil)
        holding = false
        #expect(inTime, "status waited for the history write")
        if !inTime { _ = answered.wait(timeout: .now() + 10) }
        // Not idle until the outcome is where `history` and `session` show it: a client that
        // sees `idle` and then asks for the history must find the match.
        let during = Dictionary(whileWriting.pairs, uniquingKeysWith: { first, _ in first })
        #expect(during["state"] == "listening" && during["session_state"] == "listening", "\(whileWriting.pairs)")
        waitUntilIdle(appliance)
        #expect(try store.events().map(\.referenceId) == [Self.catalog.references[2].audio.id])
        #expect(appliance.state.withLock { $0.lastFinished?.eventId } != nil)
        let after = Dictionary(appliance.state.withLock { $0.statusPairs() }, uniquingKeysWith: { first, _ in first })
        #expect(after["state"] == "idle" && after["session_state"] == "matched", "\(after)")
    }

    /// Status pairs taken on another thread, read after it signalled.
    private final class StatusBox: @unchecked Sendable {
        // @unchecked: written once by the asking thread before it signals, read after the wait.
        var pairs: [(String, String)] = []
    }
}
