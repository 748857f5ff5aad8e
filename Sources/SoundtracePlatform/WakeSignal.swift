import CALSA
import Glibc
import SoundtraceClock

/// An eventfd that another thread writes to end a pending `poll`. Its descriptor is created once
/// and never changes until the owner is destroyed, so `signal()` can never write into a
/// descriptor number that was closed and reused for something else.
public final class WakeSignal: Sendable {
    /// The eventfd, or -1 when it could not be created (see `failure`).
    public let descriptor: Int32
    /// Why the eventfd could not be created, if it could not.
    public let failure: String?

    public init() {
        let fd = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        descriptor = fd
        failure = fd < 0 ? String(cString: strerror(errno)) : nil
    }

    deinit {
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// Marks the signal raised. Thread-safe: a write to an eventfd is atomic in the kernel.
    public func signal() {
        guard descriptor >= 0 else { return }
        // Non-blocking: if the counter is somehow saturated the signal is already raised.
        _ = eventfd_write(descriptor, 1)
    }

    /// Lowers the signal; returns whether it was raised.
    @discardableResult
    public func consume() -> Bool {
        guard descriptor >= 0 else { return false }
        var value: eventfd_t = 0
        return eventfd_read(descriptor, &value) == 0
    }

    /// Waits up to `milliseconds` for the signal without consuming it; returns whether it is raised.
    public func wait(milliseconds: Int) -> Bool {
        guard descriptor >= 0 else { return false }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let deadline = SystemClock.monotonicNanoseconds() + UInt64(max(0, milliseconds)) * 1_000_000
        while true {
            let now = SystemClock.monotonicNanoseconds()
            let remaining = now >= deadline ? 0 : Int32((deadline - now + 999_999) / 1_000_000)
            let ready = poll(&entry, 1, remaining)
            if ready > 0 { return true }
            if ready == 0 || errno != EINTR { return false }
        }
    }
}
