import Glibc
import SoundtraceProtocol

extension LineServer {
    /// Reads what `c` sent and hands its complete lines to the handler.
    func readLines(_ c: LineConnection, _ table: LineConnections, now: Int64, buffer: inout [UInt8], _ handler: (Event) -> Void) {
        // Hang-up or error while not reading: the client is gone, its replies with it.
        guard c.readsInput else {
            table.drop(c, "client closed", handler)
            return
        }
        let count = recv(c.descriptor, &buffer, buffer.count, 0)
        if count < 0 && errno != EAGAIN && errno != EINTR {
            table.drop(c, "client closed", handler)
            return
        }
        if count == 0 {
            c.endInput()
        } else if count > 0 {
            c.lastActivity = now
            // A connection on its way out reads nothing more.
            if !c.closeAfterFlush { c.input.append(buffer[..<count]) }
            dispatchLines(c, table, handler)
            c.notePartialLine(now: now, newLine: buffer[..<count].contains(UInt8(ascii: "\n")))
        }
    }

    /// Hands a client's complete lines to the handler one at a time while its unread output is
    /// under the limit. The replies a line produced are queued before the next line is looked at,
    /// so one chunk of pipelined commands cannot pile up more than one reply past the limit; lines
    /// left over wait in the buffer, and the client is not read meanwhile.
    func dispatchLines(_ c: LineConnection, _ table: LineConnections, _ handler: (Event) -> Void) {
        while !table.stopping, table.isOpen(c), !c.closeAfterFlush, !c.isBackedUp, let next = c.input.next() {
            switch next {
            case let .line(line):
                handler(.line(c.client, line))
                applyRequests(to: table, handler)
            case .tooLong:
                c.closeTelling(
                    ProtocolError(.badArguments, command: "", "line longer than \(limits.maxLineBytes) bytes"),
                    reason: "line too long")
            }
        }
    }
}
