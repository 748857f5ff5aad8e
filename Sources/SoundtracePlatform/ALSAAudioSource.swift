import CALSA
import SoundtraceCore

/// Live microphone capture through ALSA for one listening session at a time.
///
/// The device is opened only by `open(preferredRate:)` (non-blocking: a busy device is an answer,
/// not a hang) and released by `close()`. Reads wait in `poll()` on the device and on a wake-up
/// eventfd, never in a busy loop, and hand out mono S16 samples with honest frame positions: an
/// overrun shows as a jump in `frame`, never as audio spliced together.
///
/// Threading: `open`, `read` and `close` must be called from one thread at a time (the session
/// owner). `wake()` may be called from any thread at any moment.
///
/// `@unchecked Sendable` because the owner hands the source to whoever must be able to wake it
/// (a button or protocol thread). That is safe: `wake()` touches only `wakeSignal`, an immutable
/// object whose eventfd lives as long as the source and is written with one atomic syscall; all
/// mutable state (`stream`) is touched only by the owning thread, as documented above.
public final class ALSAAudioSource: AudioSource, @unchecked Sendable {
    /// The ALSA PCM name as the person gave it (e.g. `default`, `plughw:1,0`, `pulse`).
    public let device: String
    /// Buffer sizes, accepted formats and recovery limits.
    public let parameters: ALSACaptureParameters
    private let wakeSignal = WakeSignal()
    private var stream: ALSACaptureStream?

    /// A source for `device`; nothing is opened until `open(preferredRate:)`.
    public init(device: String, parameters: ALSACaptureParameters = .standard) {
        self.device = device
        self.parameters = parameters
    }

    deinit {
        stream?.close()
    }

    /// Opens the device and configures S16_LE mono (or stereo, mixed down here) at `preferredRate`,
    /// or the nearest rate it grants within the accepted window; returns what it granted. Opening an
    /// open source closes the earlier stream first. A `wake()` raised before `open` is discarded:
    /// it was meant for an earlier session.
    public func open(preferredRate: Int) throws(CaptureFault) -> CaptureFormat {
        close()
        if let failure = wakeSignal.failure {
            throw .other(device: device, detail: "could not create the wake-up descriptor (\(failure))")
        }
        wakeSignal.consume()
        let opened = try ALSACaptureStream(device: device, preferredRate: preferredRate, parameters: parameters)
        stream = opened
        return opened.granted.captureFormat
    }

    /// The format granted by the current `open`, or nil while closed.
    public var format: CaptureFormat? {
        stream?.granted.captureFormat
    }

    /// Waits at most `timeoutMilliseconds` for audio (`.audio`, at most one buffer's worth), the
    /// wake signal (`.woken`) or nothing (`.timeout`). Throws `.disconnected` when the device went
    /// away, and other faults for errors that recovery cannot clear.
    public func read(timeoutMilliseconds: Int) throws(CaptureFault) -> CaptureEvent {
        guard let stream else { throw .other(device: device, detail: "read before the device was opened") }
        return try stream.read(timeoutMilliseconds: timeoutMilliseconds, wake: wakeSignal)
    }

    /// Makes a pending or the next `read` return `.woken` promptly. Safe from any thread.
    public func wake() {
        wakeSignal.signal()
    }

    /// Closes the device. Safe to call more than once; `open` may be called again afterwards.
    public func close() {
        stream?.close()
        stream = nil
    }
}
