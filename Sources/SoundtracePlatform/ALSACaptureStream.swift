import CALSA
import Glibc
import SoundtraceClock
import SoundtraceCore

/// One open, configured ALSA capture PCM and its read loop. Lives from a successful `open` to
/// `close`; used only from the owning thread (see `ALSAAudioSource`).
final class ALSACaptureStream {
    let device: String
    let granted: GrantedFormat
    private let parameters: ALSACaptureParameters
    private var pcm: OpaquePointer?
    private var timeline: CaptureTimeline
    /// Whether the device stamps its buffer state with CLOCK_MONOTONIC.
    private let monotonicTimestamps: Bool
    /// Interleaved S16 frames straight from `snd_pcm_readi`: one buffer's worth, allocated once.
    private var readBuffer: [Int16]
    /// Index 0 is the wake signal; the PCM's own descriptors follow.
    private var descriptors: [pollfd]
    /// Audio read but not yet handed out: a read takes all that is waiting (a whole buffer after a
    /// stall, or from an unpaced plugin such as `file`), and it goes out a period at a time, so
    /// that a session, which looks at the audio every quarter second, decides as soon as it would
    /// on a device read period by period. (Reading one period from ALSA instead deadlocks the
    /// PulseAudio plugin when its server dies while a fragment is half read.)
    private var pending = PeriodQueue()

    /// Opens `device` without blocking and configures it; on any failure the PCM is closed again.
    init(device: String, preferredRate: Int, parameters: ALSACaptureParameters) throws(CaptureFault) {
        ALSAErrorOutput.silence()
        var handle: OpaquePointer?
        // SND_PCM_NONBLOCK: a device held by another program answers EBUSY instead of hanging the
        // session; the flag also makes every later read non-blocking, so waiting happens in poll().
        let opened = snd_pcm_open(&handle, device, SND_PCM_STREAM_CAPTURE, SND_PCM_NONBLOCK)
        guard opened >= 0, let handle else {
            throw ALSAFault.opening(opened < 0 ? opened : -EIO, device: device) {
                ALSADeviceList.captureDeviceNames(limit: parameters.deviceListLimit)
            }
        }
        do throws(CaptureFault) {
            let granted = try ALSAHardwareNegotiation.configure(
                handle, device: device, preferredRate: preferredRate,
                parameters: parameters)
            monotonicTimestamps = try ALSASoftwareParameters.apply(handle, granted: granted, device: device)
            let count = snd_pcm_poll_descriptors_count(handle)
            if count < 0 { throw ALSAFault.capturing(count, device: device) }
            self.granted = granted
            self.descriptors = Array(repeating: pollfd(fd: -1, events: 0, revents: 0), count: Int(count) + 1)
        } catch {
            snd_pcm_close(handle)
            throw error
        }
        self.device = device
        self.parameters = parameters
        self.pcm = handle
        self.timeline = CaptureTimeline(rate: granted.rate)
        self.readBuffer = Array(repeating: 0, count: granted.bufferFrames * granted.channels)
    }

    deinit {
        close()
    }

    /// Closes the PCM; harmless when already closed.
    func close() {
        if let pcm { snd_pcm_close(pcm) }
        pcm = nil
    }

    /// Waits up to `timeoutMilliseconds` for audio, the wake signal, or a fault.
    func read(timeoutMilliseconds: Int, wake: WakeSignal) throws(CaptureFault) -> CaptureEvent {
        guard let pcm else { throw .other(device: device, detail: "read after the device was closed") }
        // A raised signal wins even over audio already waiting: the owner wants control back now.
        if wake.consume() { return .woken }
        if let piece = pending.next(maximum: granted.periodFrames) { return .audio(samples: piece.samples, frame: piece.frame) }
        try startIfPrepared(pcm)

        let deadline = SystemClock.monotonicNanoseconds() + UInt64(max(0, timeoutMilliseconds)) * 1_000_000
        // After a wake-up that had nothing to read, the next wait skips the device for up to one
        // period, so a descriptor that stays readable cannot turn this loop into a busy loop.
        var deviceQuietUntil: UInt64 = 0
        while true {
            let now = SystemClock.monotonicNanoseconds()
            let remaining = now >= deadline ? 0 : Int((deadline - now + 999_999) / 1_000_000)
            let watchDevice = now >= deviceQuietUntil
            let wait = watchDevice ? remaining : min(remaining, Int((deviceQuietUntil - now + 999_999) / 1_000_000))
            let ready = try poll(pcm, wake: wake, watchDevice: watchDevice, milliseconds: wait)
            if descriptors[0].revents != 0 {
                wake.consume()
                return .woken
            }
            if !ready {
                if SystemClock.monotonicNanoseconds() >= deadline { return .timeout }
                continue
            }
            // Whatever poll reported, a non-blocking read tells the truth: audio, "nothing yet"
            // (EAGAIN), an overrun (EPIPE), a suspend (ESTRPIPE) or a vanished device.
            let got = readBuffer.withUnsafeMutableBufferPointer { buffer in
                snd_pcm_readi(pcm, buffer.baseAddress, snd_pcm_uframes_t(granted.bufferFrames))
            }
            if got > 0 { return deliver(pcm, frames: Int(got)) }
            if got == -Int(EAGAIN) {
                deviceQuietUntil = SystemClock.monotonicNanoseconds() + UInt64(granted.periodFrames) * 1_000_000_000 / UInt64(granted.rate)
            } else {
                return try recover(pcm, from: Int32(clamping: got), wake: wake)
            }
            if SystemClock.monotonicNanoseconds() >= deadline { return .timeout }
        }
    }

    /// Polls the wake signal and (unless resting) the PCM; returns whether the PCM has something.
    private func poll(_ pcm: OpaquePointer, wake: WakeSignal, watchDevice: Bool, milliseconds: Int) throws(CaptureFault) -> Bool {
        descriptors[0] = pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)
        let pcmCount = descriptors.count - 1
        let filled = descriptors.withUnsafeMutableBufferPointer { all in
            snd_pcm_poll_descriptors(pcm, all.baseAddress.map { $0 + 1 }, UInt32(pcmCount))
        }
        if filled < 0 { throw ALSAFault.capturing(filled, device: device) }
        let watched = watchDevice ? 1 + Int(filled) : 1
        let ready = descriptors.withUnsafeMutableBufferPointer { all in
            Glibc.poll(all.baseAddress, nfds_t(watched), Int32(clamping: milliseconds))
        }
        if ready < 0 {
            if errno == EINTR { return false }
            throw .other(device: device, detail: "poll failed: \(String(cString: strerror(errno)))")
        }
        guard watchDevice, ready > 0 else { return false }
        // Let ALSA translate its descriptors' events (plugins use private pipes and timers).
        var events: UInt16 = 0
        let translated = descriptors.withUnsafeMutableBufferPointer { all in
            snd_pcm_poll_descriptors_revents(pcm, all.baseAddress.map { $0 + 1 }, UInt32(filled), &events)
        }
        if translated < 0 { throw ALSAFault.capturing(translated, device: device) }
        // Read whenever a device descriptor fired, even if ALSA's translation says "no event": the
        // read then either finds nothing (EAGAIN, a spurious wake-up handled by the caller) or
        // reports what happened (EPIPE, ESTRPIPE, ENODEV).
        return descriptors.dropFirst().prefix(Int(filled)).contains { $0.revents != 0 }
    }

    private func deliver(_ pcm: OpaquePointer, frames: Int) -> CaptureEvent {
        let samples = readBuffer.withUnsafeBufferPointer { MonoMixdown.mono($0, channels: granted.channels, frames: frames) }
        // What the device still holds unread, and when: part of the gap if an overrun follows.
        // ALSA's timestamp of its last buffer update is exact where our read time includes
        // scheduling delay; without one, the read time and the current fill level stand in.
        let frame: Int
        if monotonicTimestamps, let stamp = ALSABufferStamp.read(pcm, now: SystemClock.monotonicNanoseconds()) {
            frame = timeline.delivered(frames, atNanoseconds: stamp.nanoseconds, stillBuffered: stamp.available)
        } else {
            let waiting = snd_pcm_avail_update(pcm)
            frame = timeline.delivered(
                frames, atNanoseconds: SystemClock.monotonicNanoseconds(), stillBuffered: waiting > 0 ? Int(waiting) : 0)
        }
        pending.fill(samples, frame: frame)
        let piece = pending.next(maximum: granted.periodFrames) ?? (samples: [], frame: frame)
        return .audio(samples: piece.samples, frame: piece.frame)
    }

    /// Starts a prepared stream (the first read, or after recovery) and notes when it started.
    private func startIfPrepared(_ pcm: OpaquePointer) throws(CaptureFault) {
        guard snd_pcm_state(pcm) == SND_PCM_STATE_PREPARED else { return }
        let code = snd_pcm_start(pcm)
        if code < 0 { throw ALSAFault.capturing(code, device: device) }
        if timeline.nextFrame == 0 { timeline.started(atNanoseconds: SystemClock.monotonicNanoseconds()) }
    }

    /// Handles an error from `snd_pcm_readi`. Returns where the restarted stream resumes (no
    /// samples, the frame past the audio lost), `.woken` when a wake arrived during a suspend, or
    /// throws when the device cannot continue. Saying where at once matters after a suspend: the
    /// device may deliver nothing more before the session's deadline (a slow resume), and a gap
    /// is then what happened, not a device that stalled.
    private func recover(_ pcm: OpaquePointer, from code: Int32, wake: WakeSignal) throws(CaptureFault) -> CaptureEvent {
        if snd_pcm_state(pcm) == SND_PCM_STATE_DISCONNECTED { throw .disconnected(device: device) }
        switch ALSAFault.errnoValue(code) {
        case EPIPE:
            // Overrun: the buffer filled before it was read. Prepare discards it; the position
            // jumps by everything captured since the last good read, so the caller sees the gap.
            let prepared = snd_pcm_prepare(pcm)
            if prepared < 0 { throw ALSAFault.capturing(prepared, device: device) }
        case ESTRPIPE:
            // System suspend: the driver may need a moment to wake. Retry a bounded number of
            // times, waiting on the wake signal (not sleeping) so a cancel still gets through.
            var resumed = snd_pcm_resume(pcm)
            var attempts = 1
            while resumed == -EAGAIN, attempts < parameters.resumeAttempts {
                if wake.wait(milliseconds: parameters.resumeWaitMilliseconds) {
                    wake.consume()
                    return .woken
                }
                resumed = snd_pcm_resume(pcm)
                attempts += 1
            }
            // A driver that cannot resume in place is restarted from scratch.
            if resumed < 0 {
                let prepared = snd_pcm_prepare(pcm)
                if prepared < 0 { throw ALSAFault.capturing(prepared, device: device) }
            }
        default:
            throw ALSAFault.capturing(code, device: device)
        }
        timeline.restarted(atNanoseconds: SystemClock.monotonicNanoseconds())
        try startIfPrepared(pcm)
        return .audio(samples: [], frame: timeline.nextFrame)
    }
}
