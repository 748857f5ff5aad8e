import SoundtraceProtocol

/// One client of the line server: its socket, the bytes it sent that are not yet whole lines, the
/// replies it has not read, and the clocks that can close it. Touched only on the server's thread.
final class LineConnection {
    let client: LineServer.Client
    let descriptor: Int32
    let limits: LineServer.Limits
    var input: LineBuffer
    var output: [UInt8] = []
    var lastActivity: Int64
    var closeAfterFlush = false
    /// Why the connection closes once flushed (for the `disconnected` event).
    var closeReason = "closed"
    /// Since when the bytes held form an unfinished line (nil: none, or only whole lines held back).
    var partialLineSince: Int64?
    /// The client shut down its sending side: it is closed once it has its replies.
    var inputEnded = false
    /// A client waiting for the server (MPD's `idle`) is not idle itself.
    var idleExempt = false
    /// The handler holds an answer back for it: it stays open for it after its input has ended.
    var awaitingAnswer = false

    init(client: LineServer.Client, descriptor: Int32, now: Int64, limits: LineServer.Limits) {
        self.client = client
        self.descriptor = descriptor
        self.limits = limits
        lastActivity = now
        input = LineBuffer(maxLineBytes: limits.maxLineBytes)
    }

    /// Back-pressure: its unread replies have reached the limit, so its lines wait.
    var isBackedUp: Bool { output.count >= limits.maxPendingBytes }

    /// A closing client is still read (and what it sends discarded): closing a socket with unread
    /// input resets it, and the client could lose its last reply.
    var readsInput: Bool { !inputEnded && (closeAfterFlush || !isBackedUp) }

    /// Nothing left to do: every reply written and the client gone (none still held back for it),
    /// or closed by the server once its last words are out.
    var isFinished: Bool { output.isEmpty && (closeAfterFlush || (inputEnded && !awaitingAnswer)) }

    /// Says why in the protocol's error form, then closes once that is written.
    func closeTelling(_ error: ProtocolError, reason: String) {
        output += Array(ProtocolText.reply(error).utf8)
        input.removeAll()
        partialLineSince = nil
        closeAfterFlush = true
        closeReason = reason
    }

    /// The client finished sending (perhaps a pipelined batch); it still gets its replies.
    func endInput() {
        inputEnded = true
        input.removeAll()
        partialLineSince = nil
    }

    /// Starts the unfinished line's clock when one is left after dispatching. `newLine`: the bytes
    /// just read finished the previous one, so what is left began now. Whole lines held back by
    /// back-pressure do not count: the client is not being read.
    func notePartialLine(now: Int64, newLine: Bool) {
        if closeAfterFlush || input.count == 0 || input.hasLine {
            partialLineSince = nil
        } else if newLine || partialLineSince == nil {
            partialLineSince = now
        }
    }

    /// An unfinished line's clock stands still while the server does not read the client (its
    /// replies pile up unread), since the client cannot finish the line meanwhile.
    var lineClockStopped: Bool { closeAfterFlush || isBackedUp }

    /// The earliest moment the connection may need closing: its idle time or its unfinished line.
    var deadline: Int64? {
        let idle = idleExempt ? nil : lastActivity + Int64(limits.idleTimeoutMilliseconds)
        let line = lineClockStopped ? nil : partialLineSince.map { $0 + Int64(limits.lineTimeoutMilliseconds) }
        return [idle, line].compactMap { $0 }.min()
    }
}
