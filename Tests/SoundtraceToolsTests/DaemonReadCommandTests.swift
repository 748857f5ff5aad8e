import Testing

@testable import SoundtraceTools

/// The read-only daemon commands: exact text, exact JSON, empty states, colour rules.
@Suite struct DaemonReadCommandTests {
    @Test func statusText() throws {
        let (run, received) = try converse([("status", Canned.status)], ["status"])
        #expect(run.status == .success)
        #expect(received == ["status"])
        let lines = run.out.split(separator: "\n", maxSplits: 1)
        #expect(lines.first?.hasPrefix("soundtraced at 127.0.0.1:") == true)
        #expect(
            lines.last == """
                  state:      idle
                  last:       s-3 no match — heard audio that is not in the catalog
                  catalog:    ok, version 1, 7 references, sha256 075693fc
                  microphone: default (ok)
                  window:     10 s
                  calm mode:  off

                """)
        #expect(run.err.isEmpty)
    }

    /// What the daemon warns about is shown in text too, not only in `--json` (README, PROTOCOL.md).
    @Test func statusTextShowsTheDaemonsWarnings() throws {
        let (run, _) = try converse([("status", Canned.statusWithProblems)], ["status"])
        #expect(run.status == .success)
        let lines = run.out.split(separator: "\n", maxSplits: 1)
        #expect(
            lines.last == """
                  state:      idle
                  last:       no session yet — press the button or run `soundtrace listen`
                  catalog:    ok, version 2, 7 references, sha256 075693fc
                              reloading /var/lib/soundtrace/soundtrace.catalog failed, still serving the previous catalog: not a catalog
                  history:    cannot open the history database: disk I/O error
                  microphone: default (unknown)
                  window:     10 s
                  calm mode:  off
                  panel:      console — no GPIO chip has the configured lines

                """)
    }

    @Test func statusJSONTypesTheValues() throws {
        let (run, _) = try converse([("status", Canned.status)], ["status", "--json"])
        #expect(
            run.out == """
                {"state": "idle", "sessionId": "s-3", "sessionState": "noMatch", "lastSession": "s-3", "lastOutcome": "noMatch", \
                "lastMessage": "heard audio that is not in the catalog", "calm": false, "catalog": "ok", "catalogVersion": 1, \
                "catalogHash": "075693fc", "catalogReferences": 7, "device": "default", "deviceHealth": "ok", "window": 10}

                """)
    }

    @Test func colourOnlyOnATerminalWithoutNoColor() throws {
        let escape = "\u{1B}["
        let terminal = try converse([("status", Canned.statusListening)], ["status"], stdoutIsTerminal: true).run
        #expect(terminal.out.contains(escape + "32mlistening"))
        let noColor = try converse([("status", Canned.statusListening)], ["status"], variables: ["NO_COLOR": "1"], stdoutIsTerminal: true)
            .run
        #expect(!noColor.out.contains(escape))
        #expect(noColor.out.contains("listening (session s-4)"))
        // An empty NO_COLOR does not opt out (no-color.org).
        let emptyNoColor = try converse(
            [("status", Canned.statusListening)], ["status"], variables: ["NO_COLOR": ""], stdoutIsTerminal: true
        ).run
        #expect(emptyNoColor.out.contains(escape))
        let piped = try converse([("status", Canned.statusListening)], ["status"]).run
        #expect(!piped.out.contains(escape))
        let json = try converse([("history", Canned.history)], ["history", "--json"], stdoutIsTerminal: true).run
        #expect(!json.out.contains(escape))
    }

    @Test func pingAndCommands() throws {
        let ping = try converse([("ping", "OK\n")], ["ping"]).run
        #expect(ping.status == .success)
        #expect(ping.out.hasPrefix("soundtraced at 127.0.0.1:") && ping.out.hasSuffix(" answers (protocol 1).\n"))
        let pingJSON = try converse([("ping", "OK\n")], ["ping", "--json"]).run
        #expect(pingJSON.out.hasPrefix("{\"daemon\": \"127.0.0.1:") && pingJSON.out.hasSuffix("\", \"protocol\": 1}\n"))
        let commands = try converse([("commands", "command: ping\ncommand: status\ncommand: future\nOK\n")], ["commands"]).run
        #expect(commands.out == "ping    check the connection\nstatus  state, session, last outcome, catalog, device, calm mode\nfuture\n")
        let commandsJSON = try converse([("commands", "command: ping\ncommand: status\nOK\n")], ["commands", "--json"]).run
        #expect(commandsJSON.out == "{\"commands\": [\"ping\", \"status\"]}\n")
    }

    @Test func historyTextJSONAndRange() throws {
        let (run, received) = try converse([("history 0:2", Canned.history)], ["history", "0:2"])
        #expect(received == ["history 0:2"])
        #expect(
            run.out == """
                #12  2026-11-29 15:40:02 UTC  "Harbor Lights" by Soundtrace Project at 12.345 s  harbor-lights  ★
                #11  2026-11-29 15:30:00 UTC  "Morning Bell" by Soundtrace Project at -0.250 s  morning-bell

                """)
        let json = try converse([("history", Canned.history)], ["history", "--json"]).run
        #expect(
            json.out == """
                {"recognitions": [{"id": 12, "sessionId": "s-4", "referenceId": "harbor-lights", "title": "Harbor Lights", \
                "creator": "Soundtrace Project", "matchedAt": "2026-11-29T15:40:02.375Z", "offsetSeconds": 12.345, "score": 57, \
                "favorite": true}, {"id": 11, "sessionId": "s-2", "referenceId": "morning-bell", "title": "Morning Bell", \
                "creator": "Soundtrace Project", "matchedAt": "2026-11-29T15:30:00.000Z", "offsetSeconds": -0.250, "score": 31, \
                "favorite": false}]}

                """)
    }

    @Test func emptyStatesSayWhatToDo() throws {
        let history = try converse([("history", "OK\n")], ["history"]).run
        #expect(history.out == "No recognitions yet — press the button or run `soundtrace listen`.\n")
        let page = try converse([("history 40:60", "OK\n")], ["history", "40:60"]).run
        #expect(page.out == "No recognitions in 40:60; the history is shorter (try `soundtrace history` for the newest).\n")
        let historyJSON = try converse([("history", "OK\n")], ["history", "--json"]).run
        #expect(historyJSON.out == "{\"recognitions\": []}\n")
        let favorites = try converse([("favorites", "OK\n")], ["favorites"]).run
        #expect(favorites.out == "No favorites yet — mark one with `soundtrace favorite REFERENCE` (ids from `soundtrace catalog`).\n")
        let catalog = try converse([("catalog", "OK\n")], ["catalog"]).run
        #expect(catalog.out.hasPrefix("The daemon's catalog has no references"))
    }

    @Test func showAndShare() throws {
        let show = try converse([("show 12", Canned.show)], ["show", "12"]).run
        #expect(
            show.out == """
                recognition:    12
                session:        s-4
                reference:      harbor-lights
                title:          Harbor Lights
                creator:        Soundtrace Project
                matched at:     2026-11-29 15:40:02 UTC
                offset:         12.345 s
                score:          57
                favorite:       yes
                license:        CC0-1.0
                source file:    audio/harbor-lights.flac
                catalog sha256: 075693fc
                metadata:
                  tempo: 96
                  key: D minor

                """)
        let showJSON = try converse([("show 12", Canned.show)], ["show", "--json", "12"]).run
        #expect(
            showJSON.out.hasSuffix(
                "\"sourceFile\": \"audio/harbor-lights.flac\", \"catalogHash\": \"075693fc\", \"metadata\": {\"tempo\": \"96\", \"key\": \"D minor\"}}\n"
            ))
        #expect(showJSON.out.hasPrefix("{\"id\": 12, \"sessionId\": \"s-4\""))
        let share = try converse([("share 12", Canned.share)], ["share", "12"]).run
        #expect(
            share.out
                == "Heard \"Harbor Lights\" by Soundtrace Project (CC0-1.0), 12.3 s in, on 2026-11-29 at 15:40 UTC - recognized offline by Soundtrace.\n"
        )
        let shareJSON = try converse([("share 12", Canned.share)], ["share", "12", "--json"]).run
        #expect(
            shareJSON.out
                == "{\"text\": \"Heard \\\"Harbor Lights\\\" by Soundtrace Project (CC0-1.0), 12.3 s in, on 2026-11-29 at 15:40 UTC - recognized offline by Soundtrace.\"}\n"
        )
    }

    @Test(arguments: [
        ("favorite", "yes", "yes", "harbor-lights is now a favorite.\n"),
        ("favorite", "yes", "no", "harbor-lights was already a favorite.\n"),
        ("unfavorite", "no", "yes", "harbor-lights is no longer a favorite.\n"),
        ("unfavorite", "no", "no", "harbor-lights was not a favorite.\n")
    ])
    func favoriteAndUnfavorite(command: String, favorite: String, changed: String, expected: String) throws {
        let reply = "reference: harbor-lights\nfavorite: \(favorite)\nchanged: \(changed)\nOK\n"
        let (run, received) = try converse([("\(command) harbor-lights", reply)], [command, "harbor-lights"])
        #expect(received == ["\(command) harbor-lights"])
        #expect(run.out == expected)
        let json = try converse([("\(command) harbor-lights", reply)], [command, "harbor-lights", "--json"]).run
        #expect(json.out == "{\"referenceId\": \"harbor-lights\", \"favorite\": \(favorite == "yes"), \"changed\": \(changed == "yes")}\n")
    }

    @Test func favoritesList() throws {
        let run = try converse([("favorites", Canned.favorites)], ["favorites"]).run
        #expect(run.out == "★ harbor-lights  \"Harbor Lights\"  since 2026-11-29 15:41:00 UTC\n")
        let json = try converse([("favorites", Canned.favorites)], ["favorites", "--json"]).run
        #expect(
            json.out
                == "{\"favorites\": [{\"referenceId\": \"harbor-lights\", \"title\": \"Harbor Lights\", \"favoritedAt\": \"2026-11-29T15:41:00.000Z\"}]}\n"
        )
    }

    @Test func catalogAsksTheDaemonWithoutASubcommand() throws {
        let (run, received) = try converse([("catalog", Canned.catalog)], ["catalog"])
        #expect(received == ["catalog"])
        #expect(
            run.out == """
                harbor-lights  3:25  "Harbor Lights" by Soundtrace Project (CC0-1.0)
                morning-bell   1:01  "Morning Bell" by Soundtrace Project (CC-BY-4.0)

                """)
        let (page, pageReceived) = try converse([("catalog 0:20", Canned.catalog)], ["catalog", "0:20", "--json"])
        #expect(pageReceived == ["catalog 0:20"])
        #expect(
            page.out.hasPrefix(
                "{\"references\": [{\"referenceId\": \"harbor-lights\", \"title\": \"Harbor Lights\", \"creator\": \"Soundtrace Project\", \"license\": \"CC0-1.0\", \"durationSeconds\": 205.250}, "
            ))
        // Options first still means the daemon's catalog.
        let (optionFirst, optionReceived) = try converse([("catalog", Canned.catalog)], ["catalog", "--json"])
        #expect(optionReceived == ["catalog"] && optionFirst.status == .success)
    }

    @Test func referenceAndGuide() throws {
        let reply = "reference: harbor-lights\ntitle: Harbor Lights\nduration: 205.250\nfavorite: no\nmeta: tempo=96\nOK\n"
        let reference = try converse([("reference harbor-lights", reply)], ["reference", "harbor-lights"]).run
        #expect(
            reference.out
                == "reference:      harbor-lights\ntitle:          Harbor Lights\nduration:       205.250 s\nfavorite:       no\nmetadata:\n  tempo: 96\n"
        )
        let referenceJSON = try converse([("reference harbor-lights", reply)], ["reference", "harbor-lights", "--json"]).run
        #expect(
            referenceJSON.out
                == "{\"referenceId\": \"harbor-lights\", \"title\": \"Harbor Lights\", \"durationSeconds\": 205.250, \"favorite\": false, \"metadata\": {\"tempo\": \"96\"}}\n"
        )
        let guideReply = "line: This catalog holds 7 recordings.\nline: To add one, edit catalog/manifest.json.\nOK\n"
        let guide = try converse([("guide", guideReply)], ["guide"]).run
        #expect(guide.out == "This catalog holds 7 recordings.\nTo add one, edit catalog/manifest.json.\n")
        let guideJSON = try converse([("guide", guideReply)], ["guide", "--json"]).run
        #expect(guideJSON.out == "{\"lines\": [\"This catalog holds 7 recordings.\", \"To add one, edit catalog/manifest.json.\"]}\n")
    }

    @Test func leadingDaemonOptionsApplyToTheCommand() throws {
        let daemon = try FakeDaemon([("ping", "OK\n")])
        let run = DaemonRun(["--port", String(daemon.port), "--json", "ping"])
        daemon.stop()
        #expect(run.status == .success)
        #expect(run.out.hasSuffix("\"protocol\": 1}\n"))
    }
}
