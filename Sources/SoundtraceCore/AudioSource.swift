/// What a capture device granted: the engine resamples when the rate is not its own.
public struct CaptureFormat: Sendable, Equatable {
    /// Frames per second actually delivered.
    public let sampleRate: Int
    /// Channels the device delivers; a source mixes them down to mono before handing audio out.
    public let deviceChannels: Int
    /// A description of the device's own format, for logs and errors (e.g. "S16_LE, 2 ch, 48000 Hz").
    public let deviceFormat: String

    public init(sampleRate: Int, deviceChannels: Int, deviceFormat: String) {
        self.sampleRate = sampleRate
        self.deviceChannels = deviceChannels
        self.deviceFormat = deviceFormat
    }
}

/// One result of waiting on a capture device.
public enum CaptureEvent: Sendable, Equatable {
    /// Contiguous mono samples at the granted rate; `frame` counts frames since the device was
    /// opened, so that a jump in it is a gap (an overrun) rather than silently spliced audio.
    /// `samples` is empty when a device that lost audio (an overrun, a suspend) runs again: the
    /// frame then says where it resumes, so a gap is known before the next audio arrives.
    case audio(samples: [Int16], frame: Int)
    /// Nothing arrived within the wait.
    case timeout
    /// `wake()` was called.
    case woken
}

/// A source of microphone audio, opened for one session and closed when it ends. Implementations
/// are named for their technology (ALSA, a WAV file for tests and laptops).
public protocol AudioSource: AnyObject {
    /// The device name, as given by the user (e.g. `default`, `plughw:1,0`).
    var device: String { get }
    /// Opens the device without blocking ("busy" is an answer, not a hang) and configures it for
    /// 16-bit mono at `preferredRate` if it can; returns what it granted.
    func open(preferredRate: Int) throws(CaptureFault) -> CaptureFormat
    /// Waits at most `timeoutMilliseconds` (no busy loop: a poll on the device and a wake-up descriptor).
    func read(timeoutMilliseconds: Int) throws(CaptureFault) -> CaptureEvent
    /// Makes a pending or the next `read` return `.woken` promptly. Safe to call from any thread.
    func wake()
    /// Closes the device. Safe to call more than once; `open` may be called again afterwards.
    func close()
}
