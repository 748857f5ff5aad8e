import SoundtraceClock
import SoundtraceCore
import SoundtraceFingerprint
import SoundtraceTestSupport
import Testing

@testable import SoundtraceTools

/// The session runner with a simulated microphone (PCMAudioSource): gaps, faults, stalls and
/// cancellation, and the device closed on every path.
@Suite struct LiveSessionTests {
    static let catalog = SampleCatalogTests.catalog
    static let rate = 8000

    static func clip(reference: Int = 3, from seconds: Int = 30, length: Int = 12) throws -> [Int16] {
        let audio = try SampleCatalogTests.recording(catalog.references[reference].audio.id)
        return Array(audio.samples[(seconds * rate)..<((seconds + length) * rate)])
    }

    func run(_ source: PCMAudioSource, window: Int = 10, clock: any TimeSource = SystemTime())
        throws -> RecognitionSession
    {
        let session = LiveSession(source: source, catalog: Self.catalog, settings: try SessionSettings(windowSeconds: window), clock: clock)
        let ended = session.run(token: SessionToken(7))
        #expect(!source.isDeviceOpen, "the device must be closed when the session ends")
        #expect(source.openCount == source.closeCount)
        return ended
    }

    @Test func aShortOverrunKeepsTheOffsetRight() throws {
        // 200 ms lost at 0.75 s (before the early decision): bridged with silence, and the offset
        // still names where listening began.
        let source = PCMAudioSource(samples: try Self.clip(), rate: Self.rate, gaps: [3 * Self.rate / 4: Self.rate / 5])
        let ended = try run(source)
        guard case let .matched(result) = ended.state else {
            Issue.record("\(ended.state)")
            return
        }
        #expect(result.reference.id == Self.catalog.references[3].audio.id)
        #expect(abs(result.offsetMilliseconds - 30_000) <= 100)
        #expect(source.framesSkipped == Self.rate / 5)
    }

    @Test func aLongGapFailsInsteadOfSplicing() throws {
        let source = PCMAudioSource(samples: try Self.clip(), rate: Self.rate, gaps: [Self.rate / 2: 2 * Self.rate])
        let ended = try run(source)
        #expect(ended.state == .failed(.audioGap(device: "simulated", milliseconds: 2000)))
    }

    @Test func aDeviceFaultMidSessionIsAFailureWithTheDeviceClosed() throws {
        let source = PCMAudioSource(
            samples: try Self.clip(), rate: Self.rate, fault: (at: Self.rate / 2, fault: .disconnected(device: "simulated")))
        let ended = try run(source)
        #expect(ended.state == .failed(.disconnected(device: "simulated")))
        #expect(source.closeCount == 1)
    }

    @Test func aDeviceThatStopsDeliveringFailsAtTheDeadline() throws {
        // Half a second of silence, then nothing: the clock moves 1 s per read, so the 3 s window's
        // deadline (window + 3 s grace) passes without real waiting.
        let source = PCMAudioSource(samples: [Int16](repeating: 0, count: Self.rate / 2), rate: Self.rate, chunkFrames: Self.rate / 2)
        let clock = ManualClock()
        let ended = try run(source, window: 3, clock: OneSecondPerRead(clock: clock))
        #expect(ended.state == .failed(.stalled(device: "simulated", heardMilliseconds: 500)))
    }

    @Test func anAudioRateOtherThanTheEnginesIsResampled() throws {
        // A device that granted 16 kHz: the recognizer resamples, the offset is unchanged.
        let audio = try SampleCatalogTests.recording(Self.catalog.references[5].audio.id)
        let excerpt = PCMAudio(sampleRate: Self.rate, samples: Array(audio.samples[(20 * Self.rate)..<(32 * Self.rate)]))
        let source = PCMAudioSource(samples: Resampler.convert(excerpt, to: 16000).samples, rate: 16000)
        let ended = try run(source)
        guard case let .matched(result) = ended.state else {
            Issue.record("\(ended.state)")
            return
        }
        #expect(result.reference.id == Self.catalog.references[5].audio.id)
        #expect(abs(result.offsetMilliseconds - 20_000) <= 100)
    }

    @Test func cancelBeforeAudioEndsCanceled() throws {
        let source = PCMAudioSource(samples: try Self.clip(), rate: Self.rate)
        let session = LiveSession(source: source, catalog: Self.catalog, settings: .standard)
        session.cancel()
        #expect(session.run(token: SessionToken(1)).state == .canceled)
        #expect(!source.isDeviceOpen)
    }
}

/// A monotonic clock that moves a second each time it is read, as a stalled device's reads would
/// take their time.
private struct OneSecondPerRead: TimeSource {
    let clock: ManualClock
    func monotonicMilliseconds() -> Int64 {
        clock.now += 1000
        return clock.now
    }
    func wallMilliseconds() -> Int64 { clock.wall }
}
