import Glibc
import SoundtraceProtocol

extension LineServer {
    /// Accepts one waiting client, admits or refuses it (`ClientAdmission`), and greets it.
    func acceptClient(_ table: LineConnections, now: Int64, _ handler: (Event) -> Void) {
        var peer = sockaddr_storage()
        var peerLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = withUnsafeMutablePointer(to: &peer) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener, $0, &peerLength) }
        }
        guard fd >= 0 else { return }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let name = SocketAddress.describe(&peer)
        let local = isLocalPeer(name)
        // A client that closed just before this one connected was read to its end in this same
        // round: its slot is free now, not at the next round (a client reconnecting at once to a
        // full server was refused by its own old connection).
        table.dropFinished(handler)
        let occupants = table.all.map {
            ClientAdmission.Occupant(
                id: $0.client.id, peer: $0.client.peer, isLocal: $0.client.isLoopback,
                waitingSince: $0.idleExempt ? $0.lastActivity : nil)
        }
        switch ClientAdmission(limits: limits).decide(peer: name, isLocal: local, occupants: occupants) {
        case .admit:
            break
        case let .admitReplacing(id, reason):
            // Closed at once rather than after a flush, so the cap holds. A client waiting in
            // `idle` has read its replies: the reason fits its socket buffer.
            if let waiting = table[id] {
                Self.sendNow(waiting.output + Array(ProtocolText.reply(reason).utf8), to: waiting.descriptor)
                table.drop(waiting, "made room for a local client", handler)
            }
        case let .refuse(reason):
            Self.sendNow(Array(ProtocolText.reply(reason).utf8), to: fd)
            Glibc.close(fd)
            return
        }
        let client = Client(id: table.takeID(), isLoopback: local, peer: name)
        let c = LineConnection(client: client, descriptor: fd, now: now, limits: limits)
        c.output = Array((greeting + "\n").utf8)
        table.add(c)
        handler(.connected(client))
    }
}
