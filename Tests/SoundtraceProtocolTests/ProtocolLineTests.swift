import Testing

@testable import SoundtraceProtocol

/// Request quoting (checked against the daemon's own parser) and strict reply parsing.
@Suite struct ProtocolLineTests {
    @Test(arguments: [
        ["harbor-lights"], ["two words"], ["say \"hi\""], ["back\\slash"], [""], ["a", "b c", "\"", "\\\\"], ["ünïcödé ✓"]
    ])
    func quotedArgumentsParseBackExactly(arguments: [String]) throws {
        let line = try ProtocolLine("token", arguments)
        let parsed = try ProtocolRequest.parse(ArraySlice(Array(line.text.utf8))).get()
        #expect(parsed.command == "token")
        #expect(parsed.arguments == arguments)
        #expect(line.bytes.last == UInt8(ascii: "\n"))
    }

    @Test func plainArgumentsAreNotQuoted() throws {
        #expect(try ProtocolLine("history", ["0:20"]).text == "history 0:20")
        #expect(try ProtocolLine("show", ["12"]).text == "show 12")
        #expect(try ProtocolLine("token", ["a b"]).text == "token \"a b\"")
    }

    @Test func linesTheDaemonWouldRefuseAreRefusedHere() {
        #expect(throws: ProtocolLine.Refusal.controlCharacter) { try ProtocolLine("token", ["a\nb"]) }
        #expect(throws: ProtocolLine.Refusal.tooLong(1030)) { try ProtocolLine("token", [String(repeating: "x", count: 1024)]) }
        #expect(throws: ProtocolLine.Refusal.tooManyArguments) { try ProtocolLine("idle", Array(repeating: "state", count: 9)) }
        // Exactly at the limit is fine.
        #expect(throws: Never.self) { try ProtocolLine("token", [String(repeating: "x", count: 1018)]) }
    }

    @Test func replyLinesAreClassifiedStrictly() {
        #expect(ProtocolReplyLine.parse("OK") == .ok)
        #expect(ProtocolReplyLine.parse("title: Harbor: Lights") == .pair(.init(key: "title", value: "Harbor: Lights")))
        #expect(ProtocolReplyLine.parse("title:") == .pair(.init(key: "title", value: "")))
        #expect(
            ProtocolReplyLine.parse("ACK [50@0] {show} no recognition 9") == .ack(ProtocolAck(line: "ACK [50@0] {show} no recognition 9")!))
        for junk in ["OK ", "ok", ": value", "Title: x", "title:x", "HTTP/1.1 400 Bad Request", ""] {
            #expect(ProtocolReplyLine.parse(junk) == nil, "\(junk)")
        }
        let ack = ProtocolAck(line: "ACK [54@0] {listen} already listening (session s-4); wait")
        #expect(ack?.code == 54 && ack?.command == "listen" && ack?.message == "already listening (session s-4); wait")
        #expect(ProtocolAck(line: "ACK [x@0] {a} b") == nil)
    }

    @Test func recordsSplitAtTheirFirstKey() {
        let reply = ProtocolReply(pairs: [
            .init(key: "header", value: "x"), .init(key: "id", value: "2"), .init(key: "title", value: "A"),
            .init(key: "id", value: "1"), .init(key: "title", value: "B")
        ])
        let records = reply.records(startingWith: "id")
        #expect(records.map { $0.value("title") } == ["A", "B"])
    }
}
