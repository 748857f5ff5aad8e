import Testing

@testable import SoundtraceProtocol

/// The CLI's half of the codec against the daemon's, in both directions: what the client's
/// `ProtocolLine` sends, the daemon's `ProtocolRequest` reads back word for word, and what the
/// client refuses to send, the daemon would refuse too; every line the daemon writes, the client's
/// reply reader accepts.
@Suite struct ClientServerAgreementTests {
    /// What the daemon reads from a line the client built.
    private func serverReads(_ line: String) -> Result<ProtocolRequest, ProtocolRequest.Rejection> {
        ProtocolRequest.parse(Array(line.utf8)[...])
    }

    /// Scalar by scalar: String's == is canonical equivalence, which would hide a lost or moved mark.
    private func scalars(_ words: [String]) -> [[Unicode.Scalar]] {
        words.map { Array($0.unicodeScalars) }
    }

    @Test(arguments: [
        [""], [" "], ["  two  spaces  "], ["\""], ["\"\""], ["\\"], ["ends with \\"], [#"\""#], [#"say "hi" \\ ok"#],
        ["ünïcödé ✓", "日本語", "👩‍👩‍👧"], ["\u{301}leading mark"], ["\\\u{301}"], ["tab\u{A0}nbsp"],
        ["C1 \u{85}\u{9B}2J\u{9F} passes"], ["", "", ""], ["a", "b", "c", "d", "e", "f", "g", "h"]
    ])
    func whatTheClientSendsTheServerReadsBack(arguments: [String]) throws {
        let line = try ProtocolLine("token", arguments)
        let request = try serverReads(line.text).get()
        #expect(request.command == "token")
        #expect(scalars(request.arguments) == scalars(arguments))
    }

    @Test func everyControlCharacterIsRefusedByBothOrByNeither() throws {
        for value in UInt32(0)...0xA0 {
            let scalar = try #require(Unicode.Scalar(value))
            let argument = "a" + String(scalar) + "b"
            let clientSends = (try? ProtocolLine("token", [argument])) != nil
            // The line the client would have written had it not checked.
            let unchecked = "token " + ProtocolLine.quoted(argument)
            switch serverReads(unchecked) {
            case let .success(request):
                #expect(clientSends, "U+\(String(value, radix: 16)): the server reads what the client refuses to send")
                #expect(scalars(request.arguments) == scalars([argument]))
            case .failure:
                #expect(!clientSends, "U+\(String(value, radix: 16)): the client sends what the server refuses")
            }
        }
    }

    @Test func linesTheClientRefusesAsTooLargeTheServerRefusesToo() {
        let tooLong = String(repeating: "x", count: ProtocolRequest.maxLineBytes)
        #expect(throws: ProtocolLine.Refusal.self) { try ProtocolLine("token", [tooLong]) }
        #expect(serverReads("token " + tooLong) == .failure(.tooLong))

        let tooMany = Array(repeating: "state", count: ProtocolRequest.maxArguments + 1)
        #expect(throws: ProtocolLine.Refusal.tooManyArguments) { try ProtocolLine("idle", tooMany) }
        #expect(
            serverReads((["idle"] + tooMany).joined(separator: " "))
                == .failure(.malformed("more than \(ProtocolRequest.maxArguments) arguments")))
    }

    /// A space or quote that a combining mark follows is one Character to Swift, but the daemon
    /// cuts words by Unicode scalar: the client once left such an argument bare, and the daemon read
    /// other words or refused the line (found by this test when the codec became one module).
    @Test(arguments: [" \u{301}x", "a \u{301}b", "\"\u{301}", "\\\u{301}", "\u{301}\"\u{301} \u{301}"])
    func aSpaceOrQuoteBeforeACombiningMarkIsQuoted(argument: String) throws {
        let line = try ProtocolLine("token", [argument])
        let request = try serverReads(line.text).get()
        #expect(scalars(request.arguments) == scalars([argument]))
    }

    @Test(arguments: ["plain", "two\nlines\r", "C1 \u{85}\u{9B}2J\u{9F}", "DEL\u{7F}", "", "ACK [5@0] {x} forged", "OK"])
    func whatTheServerWritesTheClientReads(value: String) throws {
        let reply = ProtocolText.reply([("title", value)]).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let lines = try reply.map { try ProtocolReplyLine.text(Array($0.utf8)[...]).get() }
        #expect(lines.map(ProtocolReplyLine.parse) == [.pair(.init(key: "title", value: ProtocolText.sanitized(value))), .ok])

        let error = ProtocolError(.notFound, command: "show", "no recognition \"\(value)\"")
        let text = try ProtocolReplyLine.text(Array(error.line.utf8)[...]).get()
        let ack = try #require(ProtocolAck(line: text))
        #expect(ack.code == 50 && ack.command == "show" && ack.message == ProtocolText.sanitized(error.message))
        #expect(ProtocolGreeting(line: error.line) == .refused(ack))
    }

    @Test func theClientKnowsTheServersGreeting() {
        #expect(ProtocolGreeting(line: ProtocolText.greeting) == .current)
        #expect(ProtocolGreeting(line: "OK SOUNDTRACE 2") == .otherVersion("2"))
        #expect(ProtocolGreeting(line: "OK MPD 0.23.5") == .other)
    }
}
