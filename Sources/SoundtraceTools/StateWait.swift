/// Waiting for the daemon's state to change with `idle state` — the protocol's way to sleep until
/// something happens, instead of polling `status` on a timer.
extension ProtocolClient {
    enum StateWait: Equatable {
        case changed
        case interrupted
    }

    /// Sends `idle state` and waits until the daemon reports a change or `interrupt` is raised.
    /// A long quiet wait is renewed (`noidle`, then `idle` again) before the daemon's 300 s
    /// inactivity limit would close the connection. On return no idle is pending.
    func waitForStateChange(interrupt: InterruptSignal) throws(ClientError) -> StateWait {
        try send("idle", ["state"])
        while true {
            switch try awaitReply(timeoutMilliseconds: nil, interrupt: interrupt, quietAfterMilliseconds: limits.idleRenewMilliseconds) {
            case .reply:
                // `changed: state`, or (after a renewal race) a bare OK: either way look again.
                return .changed
            case .interrupted:
                try endIdle()
                return .interrupted
            case .quiet:
                if try endIdle() { return .changed }
                try send("idle", ["state"])
            }
        }
    }

    /// Ends a waiting idle and reads its one reply (the daemon answers it even if it had already
    /// completed, and ignores the `noidle` then). Returns whether the reply reported a change.
    @discardableResult
    private func endIdle() throws(ClientError) -> Bool {
        try send("noidle")
        switch try awaitReply(timeoutMilliseconds: limits.replyTimeoutMilliseconds, interrupt: nil) {
        case let .reply(reply): return !reply.values("changed").isEmpty
        case .interrupted, .quiet: return false
        }
    }
}
