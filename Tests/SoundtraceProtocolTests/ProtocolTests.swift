import Testing

@testable import SoundtraceProtocol

@Suite struct ProtocolTests {
    func parse(_ line: String) -> Result<ProtocolRequest, ProtocolRequest.Rejection> {
        ProtocolRequest.parse(Array(line.utf8)[...])
    }

    @Test func parsesCommandsAndQuotedArguments() {
        #expect(parse("status") == .success(ProtocolRequest(command: "status", arguments: [])))
        #expect(parse("show 42\r") == .success(ProtocolRequest(command: "show", arguments: ["42"])))
        #expect(parse("  favorite   harbor-lights  ") == .success(ProtocolRequest(command: "favorite", arguments: ["harbor-lights"])))
        #expect(parse(#"token "a b\"c\\d""#) == .success(ProtocolRequest(command: "token", arguments: [#"a b"c\d"#])))
        #expect(parse(#"idle state "history""#) == .success(ProtocolRequest(command: "idle", arguments: ["state", "history"])))
        #expect(parse("token \"\"") == .success(ProtocolRequest(command: "token", arguments: [""])))
    }

    @Test func rejectsWhatIsNotACommandLine() {
        #expect(parse("") == .failure(.empty))
        #expect(parse("   ") == .failure(.empty))
        #expect(parse(String(repeating: "a", count: 1025)) == .failure(.tooLong))
        #expect(ProtocolRequest.parse([0xFF, 0xFE, 0x00][...]) == .failure(.notACommand("not UTF-8 text")))
        #expect(parse("sta\u{1}tus") == .failure(.notACommand("control characters in a command line")))
        guard case .failure(.notACommand) = parse("GET / HTTP/1.1") else {
            Issue.record("HTTP accepted")
            return
        }
        guard case .failure(.notACommand) = parse("/etc/passwd") else {
            Issue.record("path accepted")
            return
        }
        #expect(parse("token \"open") == .failure(.malformed("an unterminated quoted argument")))
        #expect(parse("show a\"b\"") == .failure(.malformed("a quote inside a word")))
        // A quoted argument ends its word, as a quote may only begin one.
        #expect(parse("token \"a\"b") == .failure(.malformed("a quote inside a word")))
        // ... a combining mark too: it is text after the closing quote, not part of the quote.
        #expect(parse("token \"a\"\u{301}") == .failure(.malformed("a quote inside a word")))
        #expect(parse("token \"a\"\"b\"") == .failure(.malformed("a quote inside a word")))
        #expect(parse("token \"a\" b") == .success(ProtocolRequest(command: "token", arguments: ["a", "b"])))
        #expect(parse("token \"a\"") == .success(ProtocolRequest(command: "token", arguments: ["a"])))
        #expect(parse("history 1 2 3 4 5 6 7 8 9") == .failure(.malformed("more than 8 arguments")))
    }

    @Test func theLineLimitExcludesTheCRLFTerminator() {
        // `token "…"` padded to exactly the documented maximum, as a CRLF client sends it.
        let secret = String(repeating: "s", count: ProtocolRequest.maxLineBytes - #"token """#.utf8.count)
        let longest = #"token ""# + secret + #"""#
        #expect(longest.utf8.count == ProtocolRequest.maxLineBytes)
        #expect(parse(longest + "\r") == .success(ProtocolRequest(command: "token", arguments: [secret])))
        #expect(parse(longest) == .success(ProtocolRequest(command: "token", arguments: [secret])))
        #expect(parse(longest + "s\r") == .failure(.tooLong))
    }

    @Test(arguments: [
        // A space followed by a combining mark still separates; the mark starts the next word.
        ("listen \u{301}", ProtocolRequest(command: "listen", arguments: ["\u{301}"])),
        ("show  \u{301}42", ProtocolRequest(command: "show", arguments: ["\u{301}42"])),
        // A quote followed by a combining mark still opens (or closes) a quoted argument.
        ("token \"\u{301}a b\"", ProtocolRequest(command: "token", arguments: ["\u{301}a b"])),
        ("token \"a\" \u{301}", ProtocolRequest(command: "token", arguments: ["a", "\u{301}"])),
        ("token \"a\\\"\u{301}\"", ProtocolRequest(command: "token", arguments: ["a\"\u{301}"]))
    ])
    func wordsAreCutAtSpacesAndQuotesNotGraphemes(line: String, expected: ProtocolRequest) {
        let parsed = parse(line)
        #expect(parsed == .success(expected))
        // Equatable on String is canonical equivalence; the scalars must be exactly these.
        if case let .success(request) = parsed {
            #expect(request.arguments.map { Array($0.unicodeScalars) } == expected.arguments.map { Array($0.unicodeScalars) })
        }
    }

    @Test func aCombiningMarkAfterTheCommandIsAnArgument() throws {
        // After a space it is an argument, so the command table refuses it like any extra argument
        // (before, " \u{301}" hid the space and the whole line was "not a command": a hang-up).
        #expect(
            try parse("listen \u{301}").get().check(permission: .control)
                == .failure(ProtocolError(.badArguments, command: "listen", "listen takes 0 arguments, got 1")))
        // Glued to the command word, the mark makes a word that is not a command (not letters).
        guard case .failure(.notACommand) = parse("listen\u{301}") else {
            Issue.record("accepted")
            return
        }
    }

    @Test func checksCommandPermissionAndArgumentsBeforeRunning() throws {
        func check(_ line: String, _ permission: ProtocolPermission) throws -> Result<ProtocolCommand, ProtocolError> {
            try parse(line).get().check(permission: permission)
        }
        #expect(try check("status", .read).map(\.name) == .success("status"))
        #expect(
            try check("listen", .read)
                == .failure(
                    ProtocolError(
                        .permission, command: "listen",
                        "this connection may only read; present the token first (`token SECRET`)")))
        #expect(try check("listen", .control).map(\.name) == .success("listen"))
        #expect(
            try check("Status", .control)
                == .failure(
                    ProtocolError(
                        .unknownCommand, command: "Status",
                        "unknown command \"Status\"; send `commands` for the list")))
        #expect(try check("show", .read) == .failure(ProtocolError(.badArguments, command: "show", "show takes 1 argument, got 0")))
        #expect(
            try check("history 0:10 x", .read)
                == .failure(ProtocolError(.badArguments, command: "history", "history takes 0 to 1 argument, got 2")))
        #expect(try check("delete 3", .control).map(\.permission) == .success(.control))
        // Every read command is usable read-only, every control command needs control.
        for command in ProtocolCommand.all {
            #expect(ProtocolCommand.named(command.name) == command)
        }
        #expect(
            Set(ProtocolCommand.all.filter { $0.permission == .control }.map(\.name))
                == ["listen", "cancel", "favorite", "unfavorite", "delete"])
    }

    @Test func repliesCannotBeForgedByValues() {
        #expect(
            ProtocolText.reply([("title", "Evil\nOK\nstate: matched"), ("score", "7")])
                == "title: Evil OK state: matched\nscore: 7\nOK\n")
        #expect(ProtocolError(.notFound, command: "show", "no recognition 9\nOK").line == "ACK [50@0] {show} no recognition 9 OK")
        #expect(ProtocolText.greeting == "OK SOUNDTRACE 1")
    }

    /// Found by bench/fuzz (harness `request`): a request may carry C1 controls, which an error
    /// echoes (`reference \u{85}` → `no reference "\u{85}"`), and the CLI refuses a reply line
    /// holding one ("sent a line with control characters"). Every reply line must pass that check.
    @Test func repliesCarryNoC1Controls() {
        guard case let .success(request) = parse("reference a\u{85}b\u{9B}2J\u{9F}") else {
            Issue.record("a request with C1 controls in an argument was refused")
            return
        }
        let id = request.arguments[0]
        let error = ProtocolError(.notFound, command: request.command, "no reference \"\(id)\" in the catalog")
        #expect(error.line == "ACK [50@0] {reference} no reference \"a b 2J \" in the catalog")
        #expect(ProtocolText.reply([("reference", id)]) == "reference: a b 2J \nOK\n")
        // DEL and C1 go, U+00A0 just after them stays.
        #expect(ProtocolText.sanitized("\u{7E}\u{7F}\u{80}\u{A0}é") == "\u{7E}  \u{A0}é")
        let cc = (0...0x10FFFF).compactMap(Unicode.Scalar.init).filter { $0.properties.generalCategory == .control }
        #expect(cc.allSatisfy(ProtocolText.isControl) && cc.count == 65)
    }

    @Test func rangesAreBoundedPages() {
        #expect(ProtocolRange.parse(nil, command: "history") == .success(ProtocolRange(start: 0, end: 100)))
        #expect(ProtocolRange.parse("20:40", command: "history") == .success(ProtocolRange(start: 20, end: 40)))
        #expect(ProtocolRange.parse("5:", command: "catalog") == .success(ProtocolRange(start: 5, end: 105)))
        for bad in ["0:101", "10:5", "x:3", "-1:3", "3", "1:2:3", ":4"] {
            guard case .failure(let error) = ProtocolRange.parse(bad, command: "history") else {
                Issue.record("\(bad) accepted")
                continue
            }
            #expect(error.code == .badArguments)
        }
    }

    @Test func idleFlagsAreBitsNotQueues() {
        #expect(IdleFlags.parse([]) == .success(.all))
        #expect(IdleFlags.parse(["history", "state"]) == .success([.state, .history]))
        guard case .failure(let error) = IdleFlags.parse(["volume"]) else {
            Issue.record("unknown subsystem accepted")
            return
        }
        #expect(error.code == .badArguments)
        var pending: IdleFlags = []
        for _ in 0..<1000 { pending.insert(.history) }  // a thousand changes cost one bit
        pending.insert(.state)
        #expect(pending.changedPairs.map(\.1) == ["state", "history"])
    }
}
