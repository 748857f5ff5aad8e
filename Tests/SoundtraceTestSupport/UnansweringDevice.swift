import Dispatch
import Glibc
import SoundtraceCore
import Synchronization

/// A capture device whose open does not return until `answer()`, like an ALSA plugin whose sound
/// server accepts the connection and never answers. Counts its opens and closes for the tests,
/// which may read them from any thread.
public final class UnansweringDevice: AudioSource, @unchecked Sendable {
    // @unchecked: the counts are atomics and the signals are semaphores. Not a `Mutex`: its lock
    // is a futex ThreadSanitizer does not see (Sources/SoundtracePlatform/Guarded.swift).
    public let device = "unanswering"
    private let gate = DispatchSemaphore(value: 0)
    private let opening = DispatchSemaphore(value: 0)
    private let closing = DispatchSemaphore(value: 0)
    private let openCount = Atomic<Int>(0)
    private let closeCount = Atomic<Int>(0)

    public init() {}

    public var opens: Int { openCount.load(ordering: .acquiring) }
    public var closes: Int { closeCount.load(ordering: .acquiring) }

    /// Lets one pending or future open return.
    public func answer() { gate.signal() }

    /// Waits until an open has begun; false when none did within `seconds`.
    public func waitUntilOpening(seconds: Int) -> Bool { opening.wait(timeout: .now() + .seconds(seconds)) == .success }

    /// Waits until the device was closed once more; false when it was not within `seconds`.
    public func waitUntilClosed(seconds: Int) -> Bool { closing.wait(timeout: .now() + .seconds(seconds)) == .success }

    public func open(preferredRate: Int) throws(CaptureFault) -> CaptureFormat {
        openCount.wrappingAdd(1, ordering: .releasing)
        opening.signal()
        gate.wait()
        return CaptureFormat(sampleRate: preferredRate, deviceChannels: 1, deviceFormat: "S16_LE, 1 ch, \(preferredRate) Hz")
    }

    public func read(timeoutMilliseconds: Int) throws(CaptureFault) -> CaptureEvent {
        usleep(useconds_t(min(max(timeoutMilliseconds, 0), 20) * 1000))
        return .timeout
    }

    public func wake() {}

    public func close() {
        closeCount.wrappingAdd(1, ordering: .releasing)
        closing.signal()
    }
}
