import Testing

@testable import SoundtraceTools

/// Command lines checked before connecting: usage errors, help, and delete's confirmation.
@Suite struct DaemonUsageTests {
    @Test func everyDaemonCommandHasHelp() {
        for command in SoundtraceCLI.daemonCommands {
            let run = DaemonRun([command.name, "--help"])
            #expect(run.status == .success)
            #expect(run.out == command.usage + "\n", "\(command.name)")
            #expect(run.out.hasPrefix("usage: soundtrace \(command.name) "))
            #expect(run.out.contains("--host HOST") && run.out.contains("--json") && run.out.contains("SOUNDTRACE_TOKEN_FILE"))
        }
        #expect(DaemonRun(["catalog", "--help"]).out == SoundtraceCLI.catalogUsage + "\n")
        #expect(SoundtraceCLI.catalogUsage.contains("soundtrace catalog build") && SoundtraceCLI.catalogUsage.contains("asks soundtraced"))
        let top = DaemonRun(["--help"]).out
        #expect(top.contains("daemon commands") && top.contains("offline tools"))
        for command in SoundtraceCLI.daemonCommands {
            #expect(top.contains("  \(command.name)"), "\(command.name) missing from the command list")
        }
    }

    /// Each case must fail before any connection: the port is one nothing listens on, so a
    /// connection attempt would show as exit 5 instead of 2.
    @Test(arguments: [
        (["show"], "soundtrace show: name exactly one recognition id"),
        (["show", "abc"], "soundtrace show: a recognition id is a positive whole number such as 12"),
        (["show", "0"], "soundtrace show: a recognition id is a positive whole number"),
        (["share", "012"], "soundtrace share: a recognition id is a positive whole number"),
        (["delete", "-3"], "soundtrace delete: unknown option -3"),
        (["favorite", "Harbor_Lights"], "soundtrace favorite: a reference id is 3–64 lower-case letters"),
        (["reference", "x"], "soundtrace reference: a reference id is 3–64"),
        (["unfavorite"], "soundtrace unfavorite: name exactly one reference id"),
        (["history", "5:2"], "soundtrace history: range \"5:2\" should be START:END (e.g. 0:20), END above START and at most 100 records"),
        (["history", "0:500"], "soundtrace history: range \"0:500\" should be START:END"),
        (["history", "0:5", "9:10"], "soundtrace history: unexpected argument '9:10'"),
        (["catalog", "1:x"], "soundtrace catalog: range \"1:x\" should be START:END"),
        (["session", "x-4"], "soundtrace session: a session id is s-N"),
        // A digit with a combining mark is one Character that sorts among the digits.
        (["session", "s-4\u{301}"], "soundtrace session: a session id is s-N"),
        (["status", "now"], "soundtrace status: unexpected argument 'now'"),
        (["status", "--port", "0"], "soundtrace status: --port needs a port number from 1 to 65535"),
        (["status", "--port", "http"], "soundtrace status: --port needs a port number"),
        (["status", "--host", ""], "soundtrace status: --host needs a value, not an empty one"),
        (["status", "--host", "a b"], "soundtrace status: --host needs a host name or address"),
        (
            ["status", "--host", "box.local:7000"],
            "soundtrace status: --host names a port too ('box.local:7000'); give the host alone and the port with --port: box.local and 7000"
        ),
        (["status", "--host", "[]"], "soundtrace status: --host needs a host name or address"),
        (["status", "--host", "box:"], "soundtrace status: --host needs a host name or address"),
        (["status", "--host", "[::1]x"], "soundtrace status: --host needs a host name or address such as 127.0.0.1"),
        (["status", "--host", "box]"], "soundtrace status: --host needs a host name or address such as 127.0.0.1"),
        (["status", "--host", "[[::1]]"], "soundtrace status: --host needs a host name or address such as 127.0.0.1"),
        (["status", "--host", "[::1"], "soundtrace status: --host '[::1': an IPv6 address in brackets needs its closing ']'"),
        (
            ["status", "--host", "[::1]:7000"],
            "soundtrace status: --host names a port too ('[::1]:7000'); give the host alone and the port with --port: ::1 and 7000"
        ),
        (
            ["status", "--token-file", "/nonexistent/token"],
            "soundtrace status: --token-file: cannot read token file /nonexistent/token: no such file or directory"
        ),
        (["listen", "--yes"], "soundtrace listen: unknown option --yes"),
        (["catalog", "burn"], "soundtrace catalog: unknown catalog command 'burn'")
    ])
    func wrongCommandLinesFailBeforeConnecting(args: [String], message: String) {
        let run = DaemonRun(args, variables: ["SOUNDTRACE_PORT": String(DaemonConnectionTests.closedPort())])
        #expect(run.status == .usage, "\(args): \(run.err)")
        #expect(run.err.hasPrefix(message), "\(args): \(run.err)")
        #expect(run.out.isEmpty)
    }

    @Test(arguments: [
        (["SOUNDTRACE_PORT": "66000"], "soundtrace ping: SOUNDTRACE_PORT needs a port number from 1 to 65535"),
        (["SOUNDTRACE_HOST": "-evil"], "soundtrace ping: SOUNDTRACE_HOST needs a host name or address"),
        (
            ["SOUNDTRACE_HOST": "box:7000"],
            "soundtrace ping: SOUNDTRACE_HOST names a port too ('box:7000'); give the host alone and the port with SOUNDTRACE_PORT: box and 7000"
        ),
        (
            ["SOUNDTRACE_TOKEN": "two\nlines"],
            "soundtrace ping: SOUNDTRACE_TOKEN: the token cannot be sent: an argument holds a control character"
        ),
        (
            ["SOUNDTRACE_TOKEN": String(repeating: "k", count: 1100)],
            "soundtrace ping: SOUNDTRACE_TOKEN: the token cannot be sent: the request would be 1106 bytes, longer than the protocol's 1024-byte line limit"
        )
    ])
    func wrongEnvironmentVariablesAreUsageErrors(variables: [String: String], message: String) {
        let run = DaemonRun(["ping"], variables: variables)
        #expect(run.status == .usage)
        #expect(run.err.hasPrefix(message), "\(run.err)")
    }

    @Test func deleteOffATerminalNeedsYes() throws {
        let daemon = try FakeDaemon([FakeDaemon.Step]())
        let run = DaemonRun(["delete", "12"], port: daemon.port, stdinIsTerminal: false)
        daemon.stop()
        #expect(run.status == .usage)
        #expect(
            run.err
                == "soundtrace delete: refusing to delete recognition 12 without confirmation: standard input is not a terminal; pass --yes to delete it\n"
        )
        #expect(daemon.received.isEmpty)
    }

    @Test func deleteWithYesDeletesWithoutAsking() throws {
        let (run, received) = try converse([("delete 12", "deleted: 12\nOK\n")], ["delete", "--yes", "12"])
        #expect(run.status == .success)
        #expect(received == ["delete 12"])
        #expect(run.out == "Deleted recognition 12.\n")
        #expect(run.err.isEmpty)
        let json = try converse([("delete 12", "deleted: 12\nOK\n")], ["delete", "12", "--yes", "--json"]).run
        #expect(json.out == "{\"deleted\": 12}\n")
    }

    @Test func deleteOnATerminalAsksWithTheTitle() throws {
        let yes = try converse(
            [("show 12", Canned.show), ("delete 12", "deleted: 12\nOK\n")], ["delete", "12"], stdinIsTerminal: true, answer: "y")
        #expect(yes.run.status == .success)
        #expect(yes.run.err == "Delete recognition 12 (\"Harbor Lights\")? [y/N] ")
        #expect(yes.run.out == "Deleted recognition 12.\n")
        let no = try converse([("show 12", Canned.show)], ["delete", "12"], stdinIsTerminal: true, answer: "")
        #expect(no.run.status == .canceled)
        #expect(no.received == ["show 12"], "declined: nothing deleted")
        #expect(no.run.err.hasSuffix("[y/N] Nothing deleted.\n"))
        let endOfInput = try converse([("show 12", Canned.show)], ["delete", "12"], stdinIsTerminal: true, answer: nil)
        #expect(endOfInput.run.status == .canceled)
    }
}
