// The CLI's side of the protocol: whatever a daemon (or anything listening on its port) sends
// goes through ProtocolClient (greeting, line reading, reply and ACK parsing, size bounds), then
// through what the commands print: JSON for --json, aligned fields, session and status text.
// The input is the byte stream the client reads, fed through a socketpair whose other end is
// closed after it, so the client meets the end of the stream as it would a daemon hanging up.
import Foundation
import Glibc
import SoundtraceProtocol
@testable import SoundtraceTools

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    // The whole input must fit the socket's buffer, written before the client reads.
    guard size <= 64 * 1024 else { return 0 }
    var ends: [Int32] = [-1, -1]
    expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0,
                 "socketpair failed (descriptors leaking?): \(String(cString: strerror(errno)))")
    var sendBuffer: Int32 = 256 * 1024
    setsockopt(ends[1], SOL_SOCKET, SO_SNDBUF, &sendBuffer, socklen_t(MemoryLayout<Int32>.size))
    expect(send(ends[1], data, size, Int32(MSG_NOSIGNAL)) == size, "short write to the socketpair")
    close(ends[1])
    // A small reply bound, so that inputs of a few KB reach the "reply too large" paths too.
    var limits = ProtocolClient.Limits()
    limits.maxReplyBytes = 4096
    do {
        // The client owns the descriptor from here, and closes it, even when the greeting is refused.
        let client = try ProtocolClient.attached(descriptor: ends[0], endpoint: "fuzz:6680", limits: limits)
        while case let .reply(reply) = try client.awaitReply(timeoutMilliseconds: 1000, interrupt: nil) {
            show(reply)
        }
    } catch {
        // An ACK's message may be empty; the description is the message then.
        _ = error.description
        expect(error.exitCode != .success, "a failed conversation that exits 0")
    }
    return 0
}

/// Everything the commands make of a reply.
private func show(_ reply: ProtocolReply) {
    let style = TextStyle(enabled: true)
    checkJSON(ReplyJSON.object(reply))
    for first in ["id", "reference"] { checkJSON(ReplyJSON.list("records", reply.records(startingWith: first))) }
    _ = Fields.text(reply, style: style)
    _ = StatusCommands.text(reply, endpoint: "fuzz:6680", style: style)
    if let session = SessionRecord(reply) {
        _ = session.text(style: style)
        _ = session.exitCode
        checkJSON(session.json(daemon: "fuzz:6680"))
    }
}

/// What --json prints must be JSON whatever the daemon sent.
private func checkJSON(_ text: String) {
    do {
        _ = try JSONSerialization.jsonObject(with: Data(text.utf8))
    } catch {
        preconditionFailure("not JSON: \(text)")
    }
}
