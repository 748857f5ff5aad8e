import SoundtraceCore
import Testing

@testable import SoundtracePlatform

/// Capture through ALSA's `file` plugin: the samples of a raw recording come back exactly, as fast
/// as they are read, so these tests check content and bookkeeping rather than timing.
@Suite struct FilePCMCaptureTests {
    let config = TestALSAConfiguration.shared
    typealias PCM = TestALSAConfiguration.PCM

    @Test func deliversTheRecordingExactlyWithContiguousFramePositions() throws {
        let source = ALSAAudioSource(device: PCM.mono)
        defer { source.close() }
        let format = try source.open(preferredRate: 8_000)
        #expect(format == CaptureFormat(sampleRate: 8_000, deviceChannels: 1, deviceFormat: "S16_LE, 1 ch, 8000 Hz"))

        let wanted = 30_000
        let captured = try source.collect(frames: wanted)
        #expect(captured.samples.count >= wanted)
        #expect(captured.isContiguous(from: 0))
        // The unpaced file plugin fills the whole buffer at once; it still goes out a period (64 ms,
        // 512 frames at 8 kHz) at a time, as a device read in real time delivers it, so that a
        // session looks at the audio as often as it would on the device.
        #expect(captured.chunks.count > 1)
        #expect(captured.chunks.allSatisfy { $0.count <= 512 }, "\(captured.chunks.map(\.count).max() ?? 0) frames in one piece")
        let expected = (0..<wanted).map(TestALSAConfiguration.monoSample)
        #expect(Array(captured.samples.prefix(wanted)) == expected)
    }

    @Test func mixesAStereoOnlyDeviceDownToMono() throws {
        let source = ALSAAudioSource(device: PCM.stereo)
        defer { source.close() }
        let format = try source.open(preferredRate: 8_000)
        #expect(format.deviceChannels == 2)
        #expect(format.sampleRate == 8_000)
        #expect(format.deviceFormat == "S16_LE, 2 ch, 8000 Hz")

        let wanted = 20_000
        let captured = try source.collect(frames: wanted)
        #expect(captured.isContiguous(from: 0))
        let expected = (0..<wanted).map(TestALSAConfiguration.stereoMixdown)
        #expect(Array(captured.samples.prefix(wanted)) == expected)
    }

    /// `file` over `null` accepts any rate, so the preferred rate is granted when it lies in the
    /// 8–48 kHz window and the nearest edge of the window otherwise.
    @Test(arguments: [(8_000, 8_000), (16_000, 16_000), (44_100, 44_100), (48_000, 48_000), (96_000, 48_000), (4_000, 8_000)])
    func negotiatesTheRateWithinTheWindow(preferred: Int, granted: Int) throws {
        let source = ALSAAudioSource(device: PCM.mono)
        defer { source.close() }
        let format = try source.open(preferredRate: preferred)
        #expect(format.sampleRate == granted)
        #expect(format.deviceFormat == "S16_LE, 1 ch, \(granted) Hz")
        #expect(source.format == format)
        // The rate changes nothing about the data: the plugin does not resample.
        let captured = try source.collect(frames: 4_000)
        #expect(Array(captured.samples.prefix(4_000)) == (0..<4_000).map(TestALSAConfiguration.monoSample))
    }

    /// A `plug` device converts the rate with alsa-lib's converter (linear interpolation with no
    /// anti-aliasing filter where alsa-plugins are not installed); the hardware's own rate is taken
    /// instead, for the engine's filter to convert, while plug still mixes the channels down.
    @Test func aPlugDeviceGivesItsHardwareRateForTheEngineToConvert() throws {
        let source = ALSAAudioSource(device: PCM.plug48)
        defer { source.close() }
        let format = try source.open(preferredRate: 8_000)
        #expect(format.sampleRate == 48_000)
        #expect(format.deviceFormat == "S16_LE, 1 ch, 48000 Hz")
        // The recording's frames one for one, mixed down by plug (rounding as it does).
        let captured = try source.collect(frames: 4_000)
        let expected = (0..<4_000).map(TestALSAConfiguration.stereoMixdown)
        #expect(captured.samples.count >= 4_000)
        #expect(zip(captured.samples.prefix(4_000), expected).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
    }

    /// Hardware with no rate the engine takes (96 kHz only) is still usable: plug converts.
    @Test func aPlugDeviceWhoseHardwareRateIsOutsideTheWindowStillConverts() throws {
        let source = ALSAAudioSource(device: PCM.plug96)
        defer { source.close() }
        let format = try source.open(preferredRate: 8_000)
        #expect(format.sampleRate == 8_000)
        #expect(format.deviceFormat == "S16_LE, 1 ch, 8000 Hz")
    }

    /// ~64 ms periods and six of them per buffer, whatever the rate; a read returns at most a buffer.
    @Test(arguments: [(8_000, 512), (16_000, 1_024), (48_000, 3_072)])
    func sizesPeriodsAndBufferForResponsivenessWithBoundedMemory(rate: Int, periodFrames: Int) throws {
        let stream = try ALSACaptureStream(device: PCM.mono, preferredRate: rate, parameters: .standard)
        defer { stream.close() }
        #expect(stream.granted == GrantedFormat(rate: rate, channels: 1, periodFrames: periodFrames, bufferFrames: 6 * periodFrames))
        let source = ALSAAudioSource(device: PCM.mono)
        defer { source.close() }
        _ = try source.open(preferredRate: rate)
        let captured = try source.collect(frames: 4 * 6 * periodFrames)
        #expect(captured.chunks.allSatisfy { $0.count <= periodFrames })
    }

    @Test func reopeningStartsAgainFromFrameZero() throws {
        let source = ALSAAudioSource(device: PCM.mono)
        defer { source.close() }
        _ = try source.open(preferredRate: 8_000)
        let first = try source.collect(frames: 5_000)
        #expect(first.isContiguous(from: 0))
        source.close()
        source.close()  // twice is harmless
        #expect(source.format == nil)

        _ = try source.open(preferredRate: 8_000)
        let second = try source.collect(frames: 5_000)
        #expect(second.isContiguous(from: 0))
        #expect(Array(second.samples.prefix(5_000)) == (0..<5_000).map(TestALSAConfiguration.monoSample))
    }

    @Test func openingAnOpenSourceReplacesTheStream() throws {
        let source = ALSAAudioSource(device: PCM.mono)
        defer { source.close() }
        _ = try source.open(preferredRate: 8_000)
        _ = try source.collect(frames: 3_000)
        let format = try source.open(preferredRate: 16_000)
        #expect(format.sampleRate == 16_000)
        let captured = try source.collect(frames: 1_000)
        #expect(captured.chunks.first?.frame == 0)
    }

    @Test func aPendingWakeWinsOverWaitingAudioAndIsConsumed() throws {
        let source = ALSAAudioSource(device: PCM.mono)
        defer { source.close() }
        _ = try source.open(preferredRate: 8_000)
        source.wake()
        source.wake()  // several wakes before a read make one .woken, not a queue of them
        #expect(try source.read(timeoutMilliseconds: 1_000) == .woken)
        guard case let .audio(samples, frame) = try source.read(timeoutMilliseconds: 1_000) else {
            Issue.record("expected audio after the wake was consumed")
            return
        }
        #expect(frame == 0)
        #expect(samples.first == TestALSAConfiguration.monoSample(0))
    }

    @Test func aWakeBeforeOpenIsDiscarded() throws {
        let source = ALSAAudioSource(device: PCM.mono)
        defer { source.close() }
        source.wake()
        _ = try source.open(preferredRate: 8_000)
        guard case .audio = try source.read(timeoutMilliseconds: 1_000) else {
            Issue.record("a wake meant for an earlier session reached this one")
            return
        }
    }

    @Test func closeBeforeOpenIsHarmlessAndReadBeforeOpenIsAnError() {
        let source = ALSAAudioSource(device: PCM.mono)
        source.close()
        source.close()
        #expect(throws: CaptureFault.self) { try source.read(timeoutMilliseconds: 10) }
    }
}
