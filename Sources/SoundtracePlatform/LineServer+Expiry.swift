import SoundtraceProtocol

extension LineServer {
    /// Closes `c` if its unfinished line or its idleness has lasted too long.
    func expire(_ c: LineConnection, _ table: LineConnections, now: Int64, _ handler: (Event) -> Void) {
        if c.partialLineSince != nil, c.lineClockStopped {
            // Restarted, so the client has the whole time once it is read again.
            c.partialLineSince = c.closeAfterFlush ? nil : now
        } else if let since = c.partialLineSince, now - since >= Int64(limits.lineTimeoutMilliseconds) {
            let message =
                "line not finished within \(Self.duration(limits.lineTimeoutMilliseconds)); send each command as one line ending in a newline"
            c.closeTelling(ProtocolError(.badArguments, command: "", message), reason: "line timeout")
        } else if !c.idleExempt, now - c.lastActivity >= Int64(limits.idleTimeoutMilliseconds) {
            table.drop(c, "idle timeout", handler)
        }
    }

    /// "10 s", or milliseconds when that is not whole seconds (short limits in tests).
    static func duration(_ milliseconds: Int) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }
}
