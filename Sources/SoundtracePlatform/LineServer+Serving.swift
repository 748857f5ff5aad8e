import Glibc

extension LineServer {
    /// Serves until `stop()`, calling `handler` on this thread for every event. One round: apply
    /// what other threads asked for, sleep in `poll` until a socket is ready or a connection's
    /// deadline, then for each client write (`LineServer+Writing`), read and frame
    /// (`LineServer+Reading`) and expire (`LineServer+Expiry`), and last accept (`LineServer+Accepting`).
    public func run(_ handler: (Event) -> Void) {
        let table = LineConnections()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            wake.consume()
            applyRequests(to: table, handler)
            if table.stopping {
                table.dropAll("server stopping", handler)
                return
            }
            table.dropFinished(handler)

            let order = table.all
            var fds = [
                pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)
            ]
            fds += order.map {
                pollfd(
                    fd: $0.descriptor, events: ($0.readsInput ? Int16(POLLIN) : 0) | ($0.output.isEmpty ? 0 : Int16(POLLOUT)), revents: 0)
            }
            if poll(&fds, nfds_t(fds.count), table.pollTimeout(now: Self.milliseconds())) < 0 && errno != EINTR { continue }

            let afterPoll = Self.milliseconds()
            for (index, c) in order.enumerated() {
                let events = fds[index + 2].revents
                guard !table.stopping, table.isOpen(c) else { continue }
                if events & Int16(POLLOUT) != 0, !c.output.isEmpty {
                    writeReplies(c, table, now: afterPoll, handler)
                }
                guard !table.stopping, table.isOpen(c) else { continue }
                if events & (Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)) != 0 {
                    readLines(c, table, now: afterPoll, buffer: &buffer, handler)
                }
                guard table.isOpen(c) else { continue }
                expire(c, table, now: afterPoll, handler)
            }
            if fds[0].revents & Int16(POLLIN) != 0 {
                acceptClient(table, now: afterPoll, handler)
            }
        }
    }
}
