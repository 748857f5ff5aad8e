import Glibc

extension LineServer {
    /// Writes what the socket takes of `c`'s replies. Each write may bring its unread output back
    /// under the limit, so the lines back-pressure held are dispatched then.
    func writeReplies(_ c: LineConnection, _ table: LineConnections, now: Int64, _ handler: (Event) -> Void) {
        let written = c.output.withUnsafeBytes { Glibc.send(c.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if written > 0 {
            c.output.removeFirst(written)
            // A client reading its replies is not idle, even while its lines wait.
            c.lastActivity = now
            dispatchLines(c, table, handler)
            c.notePartialLine(now: now, newLine: false)
        } else if errno != EAGAIN {
            table.drop(c, "write failed", handler)
        }
    }

    /// What can be written without waiting (a refusal or a last word before closing).
    static func sendNow(_ bytes: [UInt8], to descriptor: Int32) {
        _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
    }
}
