import Glibc

/// A joinable POSIX thread running one closure: the daemon needs a few long-lived threads (the
/// protocol server, a session's capture) and must join them at shutdown, and `catalog build`
/// fingerprints on one thread per core, both without Foundation.
public final class WorkerThread: @unchecked Sendable {
    // @unchecked: `thread` is written once in init, before any other thread can see this object,
    // and read only by `join`, which the owner calls once.
    private var thread = pthread_t()
    private var joined = false

    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts `body` on a new thread; a `detached` thread cannot be joined and frees itself when
    /// done. Fails only when the system is out of threads.
    public init?(detached: Bool = false, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Body(body)).toOpaque()
        let status = pthread_create(
            &thread, nil,
            { raw in
                guard let raw else { return nil }
                let body = Unmanaged<Body>.fromOpaque(raw).takeRetainedValue()
                body.run()
                return nil
            }, box)
        if status != 0 {
            Unmanaged<Body>.fromOpaque(box).release()
            return nil
        }
        if detached {
            pthread_detach(thread)
            joined = true
        }
    }

    /// Waits for the thread to finish. Call once, never from the thread itself.
    public func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }
}
