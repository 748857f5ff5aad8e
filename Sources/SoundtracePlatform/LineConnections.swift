import Glibc

/// The line server's connections during one `run`, by client id: who is connected, the next id,
/// and whether the server is stopping. Touched only on the server's thread.
final class LineConnections {
    private var byID: [Int: LineConnection] = [:]
    private var nextID = 1
    var stopping = false

    subscript(id: Int) -> LineConnection? { byID[id] }

    var all: [LineConnection] { Array(byID.values) }

    /// Whether `connection` is still open (a handler or a request may have dropped it).
    func isOpen(_ connection: LineConnection) -> Bool { byID[connection.client.id] === connection }

    /// A new client's id.
    func takeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    func add(_ connection: LineConnection) { byID[connection.client.id] = connection }

    /// Closes the socket at once and tells the handler.
    func drop(_ connection: LineConnection, _ reason: String, _ handler: (LineServer.Event) -> Void) {
        Glibc.close(connection.descriptor)
        byID[connection.client.id] = nil
        handler(.disconnected(connection.client, reason: reason))
    }

    /// Drops the connections with nothing left to do.
    func dropFinished(_ handler: (LineServer.Event) -> Void) {
        for c in all where c.isFinished {
            drop(c, c.closeAfterFlush ? c.closeReason : "client closed", handler)
        }
    }

    func dropAll(_ reason: String, _ handler: (LineServer.Event) -> Void) {
        for c in all { drop(c, reason, handler) }
    }

    /// How long `poll` may sleep: until the earliest connection deadline, or for ever (-1).
    func pollTimeout(now: Int64) -> Int32 {
        guard let earliest = byID.values.compactMap(\.deadline).min() else { return -1 }
        return Int32(max(0, min(Int64(Int32.max), earliest - now)))
    }
}
