import Foundation
import SoundtraceTestSupport
import Testing

@testable import SoundtraceTools

/// Runs the CLI in-process and captures what it prints.
struct CLIRun {
    var out = ""
    var err = ""
    var status: ExitCode = .success

    init(_ args: [String], interactive: Bool = false) {
        final class Box: @unchecked Sendable {
            var out = ""
            var err = ""
        }
        let box = Box()
        let console = Console(isInteractive: interactive, out: { box.out += $0 }, err: { box.err += $0 })
        status = SoundtraceCLI.run(args, console: console)
        out = box.out
        err = box.err
    }
}

@Suite struct CLITests {
    @Test func helpAndVersion() {
        let help = CLIRun(["--help"])
        #expect(help.status == .success)
        #expect(help.out.hasPrefix("usage: soundtrace COMMAND [OPTIONS]\n"))
        #expect(help.out.contains("catalog build") && help.out.contains("match FILE..."))
        #expect(CLIRun(["--version"]).out == "soundtrace \(SoundtraceCLI.version)\n")
        #expect(CLIRun(["match", "--help"]).out == MatchCommand.usage + "\n")
        #expect(CLIRun(["catalog", "build", "--help"]).out == CatalogBuildCommand.usage + "\n")
        #expect(CLIRun(["catalog", "verify", "-h"]).out == CatalogVerifyCommand.usage + "\n")
        #expect(CLIRun(["catalog", "list", "--help"]).out == CatalogBrowseCommands.listUsage + "\n")
        #expect(CLIRun(["catalog", "show", "--help"]).out == CatalogBrowseCommands.showUsage + "\n")
    }

    @Test func anArgumentThatIsNotUTF8IsRefusedNotRepaired() {
        final class Box: @unchecked Sendable { var out = "", err = "" }
        let box = Box()
        let console = Console(isInteractive: false, out: { box.out += $0 }, err: { box.err += $0 })
        let raw: [[UInt8]] = [Array("catalog".utf8), Array("add".utf8), Array("x.wav".utf8), Array("--title".utf8), [0x61, 0xFF, 0x62]]
        #expect(SoundtraceCLI.run(rawArguments: raw, console: console) == .usage)
        #expect(box.err == "soundtrace: argument 5 ('a\u{FFFD}b') is not UTF-8 text; give text and file names in UTF-8\n")
        #expect(box.out.isEmpty)
        // Valid UTF-8 goes on to the command as it was.
        #expect(SoundtraceCLI.run(rawArguments: [Array("--version".utf8)], console: console) == .success)
        #expect(box.out == "soundtrace \(SoundtraceCLI.version)\n")
    }

    @Test func wrongCommandLinesAreUsageErrors() {
        let cases: [([String], String)] = [
            ([], "usage: soundtrace COMMAND"),
            (["frobnicate"], "soundtrace: unknown command 'frobnicate'"),
            (["catalog", "burn"], "soundtrace catalog: unknown catalog command 'burn'"),
            (["match"], "soundtrace match: name at least one WAV file to match"),
            (["match", "--catalog"], "soundtrace match: --catalog needs a value"),
            (["match", "--catalog", "", "x.wav"], "soundtrace match: --catalog needs a value, not an empty one"),
            (["match", "--catalog=", "x.wav"], "soundtrace match: --catalog needs a value, not an empty one"),
            (["match", "--catalog", "--json", "x.wav"], "soundtrace match: --catalog needs a value, not the option --json"),
            (["match", "--json", "--json", "x.wav"], "soundtrace match: --json was given twice"),
            (["--version", "extra"], "soundtrace: --version takes no arguments, got 'extra'"),
            (["match", "--colour", "x.wav"], "soundtrace match: unknown option --colour"),
            (["match", "--catalog", "a", "--catalog", "b", "x.wav"], "soundtrace match: --catalog was given twice"),
            (["catalog", "build", "extra"], "soundtrace catalog build: unexpected argument extra"),
            (["catalog", "show"], "soundtrace catalog show: name exactly one recording id"),
            (["catalog", "list", "--json"], "soundtrace catalog list: unknown option --json"),
            (["catalog", "verify", "--audio-root", "/nonexistent"], "soundtrace catalog verify: --audio-root /nonexistent is not a folder")
        ]
        for (args, message) in cases {
            let run = CLIRun(args)
            #expect(run.status == .usage, "\(args)")
            #expect(run.err.hasPrefix(message), "\(args): \(run.err)")
            #expect(run.out.isEmpty)
        }
    }

    @Test func missingCatalogIsAnInputErrorWithTheFix() {
        let run = CLIRun(["match", "--catalog", "/nonexistent/x.catalog", "a.wav"])
        #expect(run.status == .inputError)
        #expect(
            run.err
                == "soundtrace match: catalog /nonexistent/x.catalog does not exist; rebuild it with: soundtrace catalog build (or pass --catalog PATH)\n"
        )
        let list = CLIRun(["catalog", "list", "--catalog", "/nonexistent/x.catalog"])
        #expect(list.status == .inputError)
    }

    @Test func missingManifestIsAnInputError() {
        let run = CLIRun(["catalog", "build", "--manifest", "/nonexistent/m.json", "--out", "/tmp/never.catalog"])
        #expect(run.status == .inputError)
        #expect(run.err.contains("manifest /nonexistent/m.json: does not exist"))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never.catalog"))
    }

    @Test func jsonStringsAreEscaped() {
        #expect(Text.json("a\"b\\c\nd\u{1}") == "\"a\\\"b\\\\c\\nd\\u0001\"")
        #expect(Text.seconds(-1.5) == "-1.500")
        #expect(Text.seconds(12.0456) == "12.046")
        #expect(Text.seconds(0.007) == "0.007")
    }
}

@Suite struct CatalogBuildRefusalTests {
    @Test func aRecordingTooShortToRecognizeIsRefused() throws {
        let dir = NSTemporaryDirectory() + "soundtrace-short-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let wav = TestAudio.wavFile(TestAudio.music(seed: 3, seconds: 2))
        try Data(wav).write(to: URL(fileURLWithPath: dir + "/short.wav"))
        let manifest =
            #"{"version": 1, "references": [{"id": "too-short", "title": "T", "creator": "C", "license": "CC0-1.0", "sourceFile": "short.wav"}]}"#
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: dir + "/manifest.json"))
        let run = CLIRun(["catalog", "build", "--manifest", dir + "/manifest.json", "--out", dir + "/out.catalog"])
        #expect(run.status == .inputError, "\(run.err)")
        #expect(run.err.contains("reference 'too-short'") && run.err.contains("lasts 2.000 s") && run.err.contains("at least 6 s"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.catalog"))
    }
}
