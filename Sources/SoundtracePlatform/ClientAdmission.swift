import SoundtraceProtocol

/// Who may take one of the line server's connection slots. A plain cap let clients waiting in
/// `idle` (exempt from the idle timeout, and rightly so) hold every slot and lock out everyone
/// else, the box's own CLI included, and let one LAN host take them all. So: clients from the
/// network share all slots but `reservedLocalSlots`, and each network address at most
/// `maxClientsPerAddress` of them; a client on this machine may take any free slot, and when none is
/// free it takes the one of the local client that has waited longest in `idle`. Pure: the server
/// passes who is connected.
struct ClientAdmission {
    /// A connected client as admission sees it.
    struct Occupant {
        let id: Int
        let peer: String
        let isLocal: Bool
        /// Since when it has waited for the server (in `idle`); nil while it is not waiting.
        let waitingSince: Int64?
    }

    enum Decision: Equatable {
        case admit
        /// Admit after closing this occupant (a local client waiting in `idle`), telling it `reason`.
        case admitReplacing(id: Int, reason: ProtocolError)
        /// Refuse, telling the client `reason`.
        case refuse(ProtocolError)
    }

    let limits: LineServer.Limits

    func decide(peer: String, isLocal: Bool, occupants: [Occupant]) -> Decision {
        let full = Self.unavailable("too many clients (\(limits.maxClients)); try again later")
        if isLocal {
            if occupants.count < limits.maxClients { return .admit }
            // Oldest wait first; the lower id (the older connection) breaks a tie.
            let waiting = occupants.filter { $0.isLocal && $0.waitingSince != nil }
            guard let oldest = waiting.min(by: { ($0.waitingSince ?? 0, $0.id) < ($1.waitingSince ?? 0, $1.id) }) else {
                return .refuse(full)
            }
            return .admitReplacing(
                id: oldest.id,
                reason: Self.unavailable(
                    "every slot (\(limits.maxClients)) is taken and a client on this machine needs one: closing this waiting connection; reconnect to wait again"
                ))
        }
        // The per-address limit first: it is the one the client itself can do something about.
        let fromPeer = occupants.count(where: { !$0.isLocal && $0.peer == peer })
        if fromPeer >= limits.maxClientsPerAddress {
            return .refuse(Self.unavailable("too many connections from \(peer) (\(limits.maxClientsPerAddress)); close one and try again"))
        }
        let networkSlots = max(0, limits.maxClients - limits.reservedLocalSlots)
        if occupants.count >= limits.maxClients { return .refuse(full) }
        if occupants.count >= networkSlots {
            return .refuse(
                Self.unavailable(
                    "too many clients (\(networkSlots) for the network, \(limits.maxClients - networkSlots) kept for this machine); try again later"
                ))
        }
        return .admit
    }

    /// A refusal before any command was read, so the error names none.
    private static func unavailable(_ message: String) -> ProtocolError {
        ProtocolError(.unavailable, command: "", message)
    }
}
