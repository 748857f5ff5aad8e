import Dispatch
import Glibc

/// Ctrl-C as a readable descriptor (a self-pipe), so a command waiting in `poll` on the daemon's
/// socket wakes for it without polling timers, and does its own clean-up (send `cancel`) instead
/// of dying. Tests raise it directly.
final class InterruptSignal: @unchecked Sendable {
    // @unchecked: the descriptors are fixed at init and closed only in deinit; writing one byte to
    // a pipe is atomic, so `raise()` is safe from any thread (the signal queue included).

    /// The read end; readable once the signal has been raised.
    let descriptor: Int32
    private let writeEnd: Int32

    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for fd in ends {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        }
        descriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// Raises the signal. It stays raised: one Ctrl-C is enough whatever the command waits on next.
    func raise() {
        var byte: UInt8 = 1
        // Non-blocking: a full pipe means it was raised many times already.
        _ = write(writeEnd, &byte, 1)
    }

    /// Whether it has been raised, without waiting.
    var isRaised: Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0
    }

    /// Routes the process's SIGINT here until the returned hook is called, which restores the
    /// default action.
    func catchProcessInterrupts() -> () -> Void {
        Self.routeProcessInterrupts { [self] in raise() }
    }

    /// Runs `action` on a dispatch queue at each SIGINT of the process, instead of dying, until the
    /// returned hook is called, which restores the default action.
    static func routeProcessInterrupts(to action: @escaping @Sendable () -> Void) -> () -> Void {
        // Ignored first so no SIGINT can kill the process between the two calls; the dispatch
        // source still sees it.
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler(handler: action)
        source.resume()
        return {
            source.cancel()
            signal(SIGINT, SIG_DFL)
        }
    }
}
