import SoundtraceCore
import SoundtraceFingerprint
import SoundtraceRecognition
import SoundtraceTestSupport
import Testing

/// The one capture loop of the daemon and the CLI, driven on the test's own thread by a scripted
/// device and a manual clock: simulated time passes only when the device "waits", so a stalled
/// device's deadline is reached without sleeping.
@Suite struct SessionRunnerTests {
    static let catalog: Catalog = FingerprintRecognizerTests.catalog

    /// A device that plays `events` in turn and then waits out every read (moving the clock by the
    /// wait, as a real device would take that long to say nothing).
    final class ScriptedSource: AudioSource {
        let device = "scripted"
        var events: [Result<CaptureEvent, CaptureFault>]
        let clock: ManualClock
        private(set) var reads = 0
        private(set) var longestWait = 0
        init(_ events: [Result<CaptureEvent, CaptureFault>], clock: ManualClock) {
            self.events = events
            self.clock = clock
        }
        func open(preferredRate: Int) throws(CaptureFault) -> CaptureFormat {
            CaptureFormat(sampleRate: 8000, deviceChannels: 1, deviceFormat: "S16_LE, 1 ch, 8000 Hz")
        }
        func read(timeoutMilliseconds: Int) throws(CaptureFault) -> CaptureEvent {
            reads += 1
            longestWait = max(longestWait, timeoutMilliseconds)
            #expect(timeoutMilliseconds >= 1, "a wait of \(timeoutMilliseconds) ms would spin")
            guard !events.isEmpty else {
                clock.now += Int64(timeoutMilliseconds)
                return .timeout
            }
            return try events.removeFirst().get()
        }
        func wake() {}
        func close() {}
    }

    final class Owner: SessionOwner {
        var engine = SessionEngine(device: "scripted")
        private(set) var ended: [RecognitionSession] = []
        func withEngine<T>(_ body: (inout SessionEngine) -> T) -> T { body(&engine) }
        func sessionEnded(_ session: RecognitionSession) { ended.append(session) }
    }

    /// `audio` in 64 ms periods, as a device delivers it.
    static func periods(_ audio: PCMAudio) -> [Result<CaptureEvent, CaptureFault>] {
        stride(from: 0, to: audio.samples.count, by: 512).map { start in
            .success(.audio(samples: Array(audio.samples[start..<min(audio.samples.count, start + 512)]), frame: start))
        }
    }

    func run(_ events: [Result<CaptureEvent, CaptureFault>]) throws -> (Owner, ScriptedSource) {
        let clock = ManualClock(1_000)
        let source = ScriptedSource(events, clock: clock)
        let owner = Owner()
        let recognizer = try FingerprintRecognizer(catalog: Self.catalog, inputRate: 8000)
        _ = try owner.engine.start(
            token: SessionToken(7), wallClock: 0, monotonic: clock.now, recognizer: recognizer,
            settings: SessionSettings.standard)
        SessionRunner(source: source, token: SessionToken(7), captureWaitMilliseconds: 250, clock: clock).run(for: owner)
        #expect(owner.engine.listeningToken == nil, "the loop returned while the session still listened")
        return (owner, source)
    }

    @Test func aRecordingFromTheCatalogEndsAsItsMatchAndTheLoopStopsReading() throws {
        let clip = TestAudio.excerpt(FingerprintRecognizerTests.references[1].audio, from: 8 * 8000, count: 8 * 8000)
        let events = Self.periods(clip)
        let (owner, source) = try run(events)
        let ended = try #require(owner.ended.first)
        #expect(owner.ended.count == 1)
        guard case let .matched(result) = ended.state else {
            Issue.record("\(ended.state)")
            return
        }
        #expect(result.reference.id == "piece-2")
        // It decided early, and read nothing after it had decided.
        #expect(source.reads < events.count, "\(source.reads) reads of \(events.count) periods")
        #expect(source.events.count == events.count - source.reads)
    }

    @Test func aDeviceThatStopsDeliveringEndsAtTheDeadlineWithoutSpinning() throws {
        let first = TestAudio.excerpt(TestAudio.music(seed: 91, seconds: 2), from: 0, count: 8000)
        let (owner, source) = try run(Self.periods(first))
        let ended = try #require(owner.ended.first)
        #expect(owner.ended.count == 1)
        #expect(ended.state == .failed(.stalled(device: "scripted", heardMilliseconds: 1000)), "\(ended.state)")
        // Window 10 s plus the 3 s grace, waited out in reads of at most 250 ms: about 52 of them.
        #expect(source.longestWait == 250)
        #expect((16 + 50)...(16 + 60) ~= source.reads, "\(source.reads) reads")
    }

    @Test func aDeviceFailureEndsTheSessionWithItsFault() throws {
        let audio = Self.periods(TestAudio.excerpt(TestAudio.music(seed: 92, seconds: 2), from: 0, count: 4000))
        let fault = CaptureFault.disconnected(device: "scripted")
        let (owner, source) = try run(audio + [.failure(fault), .success(.timeout)])
        #expect(owner.ended.map(\.state) == [.failed(fault)])
        #expect(source.events.count == 1, "the loop read on after the failure")
    }
}
