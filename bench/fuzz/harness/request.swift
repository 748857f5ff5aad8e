// What a client's bytes go through in soundtraced: the line server's LineBuffer cuts the stream
// into lines, ProtocolRequest.parse reads each, the command table checks it, and the range
// argument of `history` and `catalog` is parsed; every refusal is sent back as an ACK line.
// The first input byte sets the size of the reads the stream arrives in, so the fuzzer also
// explores where TCP splits the lines; the lines must not depend on it.
@testable import SoundtracePlatform
@testable import SoundtraceProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let stream = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let chunked = lines(of: stream, readSize: Int(data[0]) % 97 + 1)
    let whole = lines(of: stream, readSize: max(1, stream.count))
    expect(chunked == whole, "the lines depend on how the stream was split")
    for line in whole { serve(line) }
    // A whole input as one line too, unlimited by the buffer (the parser has its own limit).
    serve(stream)
    return 0
}

/// The lines the daemon would take from `stream` read `readSize` bytes at a time, ending with
/// `nil` where it would hang up on a line that is too long.
private func lines(of stream: [UInt8], readSize: Int) -> [[UInt8]?] {
    var buffer = LineBuffer(maxLineBytes: ProtocolRequest.maxLineBytes)
    var out: [[UInt8]?] = []
    var offset = 0
    while offset < stream.count {
        let end = min(stream.count, offset + readSize)
        buffer.append(stream[offset..<end])
        offset = end
        while let next = buffer.next() {
            guard case let .line(line) = next else { out.append(nil); return out }
            expect(!line.contains(UInt8(ascii: "\n")), "a line holds its newline")
            out.append(line)
        }
        expect(!buffer.hasLine, "a complete line was left behind")
    }
    return out
}

private func serve(_ line: [UInt8]?) {
    guard let line else { return }
    switch ProtocolRequest.parse(line[...]) {
    case let .success(request):
        expect(request.arguments.count <= ProtocolRequest.maxArguments, "\(request.arguments.count) arguments")
        for permission in [ProtocolPermission.read, .control] {
            switch request.check(permission: permission) {
            case let .success(command):
                if command.name == "history" || command.name == "catalog" {
                    if case let .failure(error) = ProtocolRange.parse(request.arguments.first, command: command.name) { send(error) }
                }
            case let .failure(error):
                send(error)
            }
        }
        // Arguments are echoed in replies (a reference id, a session id): always on one line.
        send(ProtocolText.reply(request.arguments.map { ("argument", $0) }))
    case let .failure(rejection):
        if case let .notACommand(why) = rejection { send(ProtocolError(.unknownCommand, command: "", why)) }
        if case let .malformed(why) = rejection { send(ProtocolError(.badArguments, command: "", why)) }
    }
}

private func send(_ error: ProtocolError) { send(ProtocolText.reply(error)) }

/// A reply ends in a newline and its lines hold nothing the CLI refuses (the codec's reply-line
/// reader, which ProtocolClient's readLine calls): no control character, C0, DEL or C1.
private func send(_ reply: String) {
    expect(reply.hasSuffix("\n"), "a reply without its newline")
    for line in reply.dropLast().split(separator: "\n", omittingEmptySubsequences: false) {
        expect((try? ProtocolReplyLine.text(Array(line.utf8)[...]).get()) != nil,
               "a reply line the CLI refuses: \(Array(line.utf8))")
    }
}
