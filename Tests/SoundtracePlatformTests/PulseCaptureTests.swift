import Foundation
import Glibc
import SoundtraceCore
import SoundtracePlatform
import SoundtraceTestSupport
import Testing

/// Capture in real time from a PulseAudio null sink's monitor, read through ALSA's `pulse` PCM:
/// real pacing, real playback (`paplay`), and a sound server that dies mid-session. Each test
/// starts (and stops) its own private server; they run one at a time so timing stays honest on a
/// two-core machine.
@Suite(.serialized) struct PulseCaptureTests {
    let config = TestALSAConfiguration.shared
    let rate = 8_000

    /// Fails the test, naming the Debian packages, when PulseAudio or the ALSA plugin is missing.
    private func requirePulseAudio() -> Bool {
        guard let missing = TestPulseServer.missingRequirements() else { return true }
        Issue.record(Comment(rawValue: missing))
        return false
    }

    /// Reads until the first audio arrives: the null sink's first block can take about two seconds.
    private func firstAudio(_ source: ALSAAudioSource, seconds: Int = 10) throws -> (samples: [Int16], frame: Int) {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if case let .audio(samples, frame) = try source.read(timeoutMilliseconds: 500) { return (samples, frame) }
        }
        throw TestFailure("no audio from \(source.device) within \(seconds) s")
    }

    @Test func capturesAudioPlayedIntoTheSinkInRealTime() throws {
        guard requirePulseAudio() else { return }
        let server = TestPulseServer("play", directory: TestALSAConfiguration.shared.pulseRuntimeDirectory("play"))
        try server.start()
        defer { server.stop() }

        // The clip: a second of silence (playback start is not sample-aligned), two seconds of
        // 1 kHz, half a second of silence.
        let lead = [Int16](repeating: 0, count: 16_000)
        let tail = [Int16](repeating: 0, count: 8_000)
        let tone = ToneMeter.sine(frequency: 1_000, rate: 16_000, seconds: 2, amplitude: 12_000)
        let clipPath = "\(server.directory)/clip.raw"
        let clip = (lead + tone + tail).map(\.littleEndian).withUnsafeBytes { Data($0) }
        try clip.write(to: URL(fileURLWithPath: clipPath))

        let source = ALSAAudioSource(device: TestALSAConfiguration.PCM.pulse(server.name))
        defer { source.close() }
        let format = try source.open(preferredRate: rate)
        #expect(format == CaptureFormat(sampleRate: rate, deviceChannels: 1, deviceFormat: "S16_LE, 1 ch, 8000 Hz"))
        let first = try firstAudio(source)

        // Capture first, then play: the sink is live before the clip's first sample reaches it.
        let started = ContinuousClock.now
        let player = try server.client(
            "paplay",
            [
                "--raw", "--format=s16le", "--rate=16000", "--channels=1",
                "--device=vmic", "--latency-msec=100", clipPath
            ])
        defer { player.send(SIGTERM) }
        let seconds = 5
        let captured = try source.collect(frames: seconds * rate, maxReads: 400)
        let elapsed = ContinuousClock.now - started

        #expect(captured.samples.count >= seconds * rate)
        #expect(captured.isContiguous(from: first.frame + first.samples.count))
        // Real time: five seconds of audio cannot arrive much faster than five seconds of wall time.
        #expect(elapsed >= .milliseconds(seconds * 800), "audio arrived faster than real time: \(elapsed)")
        #expect(elapsed <= .seconds(seconds + 6), "audio arrived far slower than real time: \(elapsed)")

        // The played tone is in the capture: quarter-second windows that are (nearly) pure 1 kHz at
        // the played level, about two seconds' worth, and silence before it.
        let window = rate / 4
        let windows = stride(from: 0, to: captured.samples.count - window + 1, by: window).map {
            captured.samples[$0..<$0 + window]
        }
        let toneWindows = windows.filter { ToneMeter.tonality($0, frequency: 1_000, rate: rate) > 0.9 && ToneMeter.rms($0) > 1_000 }
        #expect((6...8).contains(toneWindows.count), "1 kHz windows: \(toneWindows.count) of \(windows.count)")
        for window in toneWindows {
            #expect(ToneMeter.tonality(window, frequency: 1_500, rate: rate) < 0.05)
            #expect((4_000...12_000).contains(ToneMeter.rms(window)), "level \(ToneMeter.rms(window))")
        }
        if let before = windows.first {
            #expect(ToneMeter.rms(before) < 100, "the capture starts before the clip, in silence")
        }
        #expect(player.waitForExit() == 0, "paplay failed")
    }

    @Test func aDeadSoundServerIsADisconnectAndTheDeviceWorksAgainAfterARestart() throws {
        guard requirePulseAudio() else { return }
        let server = TestPulseServer("unplug", directory: TestALSAConfiguration.shared.pulseRuntimeDirectory("unplug"))
        try server.start()
        defer { server.stop() }

        let source = ALSAAudioSource(device: TestALSAConfiguration.PCM.pulse(server.name))
        defer { source.close() }
        _ = try source.open(preferredRate: rate)
        _ = try firstAudio(source)

        server.kill()
        // Audio already buffered may still come out; then the plugin reports the dead server
        // (EPIPE from the read, EIO from the recovery), which the source reports as disconnected.
        var fault: CaptureFault?
        for _ in 0..<20 where fault == nil {
            do throws(CaptureFault) {
                _ = try source.read(timeoutMilliseconds: 1_000)
            } catch {
                fault = error
            }
        }
        #expect(fault == .disconnected(device: TestALSAConfiguration.PCM.pulse(server.name)))
        source.close()

        // While the server is down, opening says the sound server is not there (ECONNREFUSED).
        do throws(CaptureFault) {
            _ = try source.open(preferredRate: rate)
            Issue.record("opened a PulseAudio device with no server")
        } catch {
            guard case let .other(device, detail) = error else {
                Issue.record("expected .other naming the sound server, got \(error)")
                return
            }
            #expect(device == TestALSAConfiguration.PCM.pulse(server.name))
            #expect(detail.contains("sound server"))
        }

        try server.start()
        let format = try source.open(preferredRate: rate)
        #expect(format.sampleRate == rate)
        let resumed = try firstAudio(source)
        #expect(resumed.frame == 0, "a new open counts from zero")
    }

    @Test func wakeFromAnotherThreadEndsABlockedRead() throws {
        guard requirePulseAudio() else { return }
        let server = TestPulseServer("wake", directory: TestALSAConfiguration.shared.pulseRuntimeDirectory("wake"))
        try server.start()
        defer { server.stop() }
        // A suspended sink's monitor delivers nothing, so a read can only end by timeout or wake.
        try server.run("pactl", ["suspend-sink", "vmic", "1"])

        let source = ALSAAudioSource(device: TestALSAConfiguration.PCM.pulse(server.name))
        defer { source.close() }
        _ = try source.open(preferredRate: rate)
        #expect(try source.read(timeoutMilliseconds: 300) == .timeout)

        let reader = try ReaderThread.current()
        let woke = Guarded<(at: ContinuousClock.Instant, sawBlocked: Bool)?>(nil)
        let waker = Thread {
            // Wake only once the reader is inside poll(), so the wake interrupts a blocked read.
            let blocked = reader.waitUntilBlockedInPoll(seconds: 10)
            woke.withLock { $0 = (ContinuousClock.now, blocked) }
            source.wake()
        }
        waker.start()
        let event = try source.read(timeoutMilliseconds: 30_000)
        let returned = ContinuousClock.now

        #expect(event == .woken)
        let record = try #require(woke.withLock { $0 })
        #expect(record.sawBlocked, "the reader was never seen blocked in poll()")
        #expect(returned - record.at < .milliseconds(500), "wake took \(returned - record.at)")
        // The wake was consumed: the device is still quiet.
        #expect(try source.read(timeoutMilliseconds: 200) == .timeout)
    }
}

/// A thread observed through /proc: which system call it is blocked in.
struct ReaderThread: Sendable {
    let tid: Int32

    /// The calling thread (its id read from the /proc/thread-self link, "<pid>/task/<tid>").
    static func current() throws -> ReaderThread {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/thread-self", &buffer, buffer.count - 1)
        let link = String(decoding: buffer.prefix(max(0, count)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let last = link.split(separator: "/").last, let tid = Int32(last) else {
            throw TestFailure("cannot read /proc/thread-self (got '\(link)')")
        }
        return ReaderThread(tid: tid)
    }

    /// Waits (spinning on /proc, bounded) until the thread sits in poll/ppoll; returns whether it did.
    func waitUntilBlockedInPoll(seconds: Int) -> Bool {
        #if arch(x86_64)
            let pollCalls: Set<Substring> = ["7", "271"]
        #elseif arch(arm64)
            let pollCalls: Set<Substring> = ["73"]
        #else
            let pollCalls: Set<Substring> = []
        #endif
        let deadline = ContinuousClock.now + .seconds(seconds)
        let path = "/proc/self/task/\(tid)/syscall"
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOfFile: path, encoding: .utf8),
                let call = text.split(separator: " ").first, pollCalls.contains(call)
            {
                return true
            }
            sched_yield()
        }
        return false
    }
}
