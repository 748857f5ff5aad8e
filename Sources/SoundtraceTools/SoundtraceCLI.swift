import Glibc
import SoundtraceCore
import SoundtraceProtocol

/// The `soundtrace` command: dispatches to one type per subcommand.
public enum SoundtraceCLI {
    public static let version = SoundtraceVersion.current

    static let usage = """
        usage: soundtrace COMMAND [OPTIONS]

        The Soundtrace companion tool: asks the soundtraced daemon on the box, or works offline on
        catalog and recording files.

        daemon commands (talk to soundtraced over TCP: --host, --port, --token-file, --json):
          status                what the daemon is doing: state, last outcome, catalog, microphone
          listen                listen on the box's microphone and print the outcome (Ctrl-C cancels)
          cancel                cancel the session the box is listening in
          watch                 print each state change until Ctrl-C
          session SESSION       one recent session's state and outcome (e.g. s-4)
          history [START:END]   recognitions saved on the box, newest first
          show ID               one recognition with its metadata
          share ID              one recognition as plain text to paste
          delete ID [--yes]     delete a recognition (asks first)
          favorite REFERENCE    mark a reference as a favorite
          unfavorite REFERENCE  unmark it
          favorites             the favorite references
          catalog [START:END]   the references of the catalog the daemon has loaded
          reference REFERENCE   one reference of the daemon's catalog
          guide                 what the catalog covers and how to add recordings
          ping                  check that soundtraced answers
          commands              the protocol commands this connection may use

        offline tools (read files here; no daemon needed):
          match FILE...         tell which catalog recording each WAV file is, and where in it
          explain FILE          why a file was (not) named: every check and its bar (--svg: a picture)
          match --device PCM    listen once on a local ALSA capture device, without the daemon
          catalog build         build the catalog file from catalog/manifest.json and its recordings
          catalog verify        check the catalog file and that every recording matches itself
          catalog list          list the recordings in the catalog file
          catalog show ID       show one recording's metadata from the catalog file
          catalog add FILE ...  add a recording to the manifest (checks it first; no JSON to edit)
          catalog remove ID     remove a recording from the manifest

        Run `soundtrace COMMAND --help` for a command's options. `soundtrace --version` prints the version.
        See also docs/CLI.md and man soundtrace.
        """

    /// `catalog --help`: the one word that is both a daemon command and the offline tools.
    static var catalogUsage: String { CatalogDaemonCommands.catalog.usage }

    /// The subcommands that talk to soundtraced.
    static let daemonCommands: [DaemonCommand] = [
        StatusCommands.status, ListenCommands.listen, ListenCommands.cancel, WatchCommand.command, ListenCommands.session,
        HistoryCommands.history, HistoryCommands.show, HistoryCommands.share, HistoryCommands.delete,
        FavoriteCommands.favorite, FavoriteCommands.unfavorite, FavoriteCommands.favorites,
        CatalogDaemonCommands.catalog, CatalogDaemonCommands.reference, CatalogDaemonCommands.guide,
        StatusCommands.ping, StatusCommands.commands
    ]

    /// Runs the raw command line (`argv` without the program name, as bytes): Swift's own
    /// `CommandLine.arguments` would replace a byte that is not UTF-8 by U+FFFD without a word, so
    /// that a title would be stored altered and a file name would name another file.
    public static func run(rawArguments: [[UInt8]], console: Console) -> ExitCode {
        var args: [String] = []
        for (index, bytes) in rawArguments.enumerated() {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                let shown = String(decoding: bytes, as: UTF8.self)
                console.error(
                    "soundtrace: argument \(index + 1) ('\(ProtocolText.sanitized(shown))') is not UTF-8 text; give text and file names in UTF-8"
                )
                return .usage
            }
            args.append(text)
        }
        return run(args, console: console)
    }

    /// Runs the command line `args` (without the program name) and returns the exit status.
    /// Daemon commands read `environment` (variables, terminals, Ctrl-C); tests pass their own.
    public static func run(_ args: [String], console: Console, environment: ClientEnvironment = .process()) -> ExitCode {
        concluding(dispatch(args, console: console, environment: environment), console: console)
    }

    /// A command's status once its output is accounted for: results that could not be written
    /// (a full disk under `soundtrace match *.wav > results`) must not end as a success.
    /// A reader that went away (`| head`) is no failure.
    static func concluding(_ status: ExitCode, console: Console) -> ExitCode {
        guard case let .failed(code) = console.outputEnded else { return status }
        console.error(
            "soundtrace: could not write standard output (\(String(cString: strerror(code)))): what it printed is incomplete, while what the command did stands; free space, or send the output elsewhere"
        )
        return status == .success ? .outputFailed : status
    }

    private static func dispatch(_ args: [String], console: Console, environment: ClientEnvironment) -> ExitCode {
        let args = movingLeadingDaemonOptions(args)
        guard let command = args.first else {
            console.error(usage)
            return .usage
        }
        let rest = Array(args.dropFirst())
        switch command {
        case "-h", "--help", "help":
            console.print(usage)
            return .success
        case "--version":
            guard rest.isEmpty else {
                console.error("soundtrace: --version takes no arguments, got '\(rest[0])'")
                return .usage
            }
            console.print("soundtrace \(version)")
            return .success
        case "match":
            return MatchCommand(console: console).run(rest)
        case "explain":
            return ExplainCommand(console: console).run(rest)
        case "catalog":
            return catalog(rest, console: console, environment: environment)
        default:
            if let daemonCommand = daemonCommands.first(where: { $0.name == command }) {
                return daemonCommand.run(rest, console: console, environment: environment)
            }
            console.error("soundtrace: unknown command '\(command)'\n\n\(usage)")
            return .usage
        }
    }

    /// `soundtrace --host box status` reads as `soundtrace status --host box`, as with mpc: the
    /// shared daemon options may come before the command word.
    static func movingLeadingDaemonOptions(_ args: [String]) -> [String] {
        var leading: [String] = []
        var index = 0
        while index < args.count {
            let arg = args[index]
            let name = arg.split(separator: "=", maxSplits: 1).first.map(String.init) ?? arg
            if DaemonOptions.valueOptions.contains(name) {
                let takesNext = !arg.contains("=") && index + 1 < args.count
                leading += takesNext ? [arg, args[index + 1]] : [arg]
                index += takesNext ? 2 : 1
            } else if arg == "--json" {
                leading.append(arg)
                index += 1
            } else {
                break
            }
        }
        guard !leading.isEmpty, index < args.count else { return args }
        return [args[index]] + leading + args[(index + 1)...]
    }

    private static func catalog(_ args: [String], console: Console, environment: ClientEnvironment) -> ExitCode {
        let sub = args.first
        let rest = Array(args.dropFirst())
        switch sub {
        case "build": return CatalogBuildCommand(console: console).run(rest)
        case "add": return CatalogAddCommand(console: console).run(rest)
        case "remove": return CatalogRemoveCommand(console: console).run(rest)
        case "verify": return CatalogVerifyCommand(console: console).run(rest)
        case "list": return CatalogBrowseCommands(console: console).list(rest)
        case "show": return CatalogBrowseCommands(console: console).show(rest)
        case "-h", "--help":
            console.print(catalogUsage)
            return .success
        default:
            // No subcommand, an option or a range: the daemon's catalog.
            if sub == nil || sub?.hasPrefix("-") == true || sub?.first?.isNumber == true {
                return CatalogDaemonCommands.catalog.run(args, console: console, environment: environment)
            }
            let what = sub.map { "unknown catalog command '\($0)'" } ?? ""
            console.error(
                "soundtrace catalog: \(what) (build, verify, list, show, add or remove to work on files, or a range START:END to ask the daemon)\n\n\(catalogUsage)"
            )
            return .usage
        }
    }
}
