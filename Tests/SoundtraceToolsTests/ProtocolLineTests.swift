import SoundtraceCore
import Testing
@testable import SoundtraceTools

/// Request quoting (checked against the daemon's own parser) and strict reply parsing.
@Suite struct ProtocolLineTests {
    @Test(arguments: [
        ["harbor-lights"], ["two words"], ["say \"hi\""], ["back\\slash"], [""], ["a", "b c", "\"", "\\\\"], ["ünïcödé ✓"],
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
        #expect(ProtocolReplyLine.parse("ACK [50@0] {show} no recognition 9") == .ack(ProtocolAck(line: "ACK [50@0] {show} no recognition 9")!))
        for junk in ["OK ", "ok", ": value", "Title: x", "title:x", "HTTP/1.1 400 Bad Request", ""] {
            #expect(ProtocolReplyLine.parse(junk) == nil, "\(junk)")
        }
        let ack = ProtocolAck(line: "ACK [54@0] {listen} already listening (session s-4); wait")
        #expect(ack?.code == 54 && ack?.command == "listen" && ack?.message == "already listening (session s-4); wait")
        #expect(ProtocolAck(line: "ACK [x@0] {a} b") == nil)
    }

    @Test func recordsSplitAtTheirFirstKey() {
        let reply = ProtocolReply(pairs: [.init(key: "header", value: "x"), .init(key: "id", value: "2"), .init(key: "title", value: "A"),
                                          .init(key: "id", value: "1"), .init(key: "title", value: "B")])
        let records = reply.records(startingWith: "id")
        #expect(records.map { $0.value("title") } == ["A", "B"])
    }

    @Test func jsonValuesAreTypedOnlyWhenTheyFit() {
        #expect(ReplyJSON.value("12.345", key: "offset") == "12.345")
        #expect(ReplyJSON.value("-0.250", key: "offset") == "-0.250")
        #expect(ReplyJSON.value("1e9", key: "offset") == "\"1e9\"")
        #expect(ReplyJSON.value("012", key: "offset") == "\"012\"")
        #expect(ReplyJSON.value("0", key: "offset") == "0")
        // Found by the reply fuzzer: a digit with a combining mark is one Character within "0"..."9".
        #expect(ReplyJSON.value("1\u{301}", key: "offset") == "\"1\u{301}\"")
        #expect(ReplyJSON.value("2.5\u{20DD}", key: "heard") == "\"2.5\u{20DD}\"")
        // A number no double holds stays a string, so every JSON reader can read what --json prints.
        #expect(ReplyJSON.value(String(repeating: "9", count: 15) + ".123456789", key: "offset") == String(repeating: "9", count: 15) + ".123456789")
        #expect(ReplyJSON.value(String(repeating: "9", count: 16), key: "offset") == "\"" + String(repeating: "9", count: 16) + "\"")
        #expect(ReplyJSON.value("1." + String(repeating: "5", count: 10), key: "duration") == "\"1." + String(repeating: "5", count: 10) + "\"")
        #expect(ReplyJSON.value("yes", key: "favorite") == "true")
        #expect(ReplyJSON.value("maybe", key: "favorite") == "\"maybe\"")
        #expect(ReplyJSON.key("catalog_hash") == "catalogHash")
        #expect(ReplyJSON.key("reference") == "referenceId")
    }
}
