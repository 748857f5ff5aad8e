import SoundtraceCore

/// The `soundtrace` command: dispatches to one type per subcommand.
public enum SoundtraceCLI {
    public static let version = SoundtraceVersion.current

    static let usage = """
    usage: soundtrace COMMAND [OPTIONS]

    Offline tools of the Soundtrace recognizer.

    commands:
      match FILE...       tell which catalog recording each WAV file is, and where in it
      catalog build       build the catalog file from catalog/manifest.json and its recordings
      catalog verify      check the catalog file and that every recording matches itself
      catalog list        list the recordings in the catalog
      catalog show ID     show one recording's metadata

    Run `soundtrace COMMAND --help` for a command's options. `soundtrace --version` prints the version.
    """

    /// Runs the command line `args` (without the program name) and returns the exit status.
    public static func run(_ args: [String], console: Console) -> ExitCode {
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
            console.print("soundtrace \(version)")
            return .success
        case "match":
            return MatchCommand(console: console).run(rest)
        case "catalog":
            return catalog(rest, console: console)
        default:
            console.error("soundtrace: unknown command '\(command)'\n\n\(usage)")
            return .usage
        }
    }

    private static func catalog(_ args: [String], console: Console) -> ExitCode {
        let sub = args.first
        let rest = Array(args.dropFirst())
        switch sub {
        case "build": return CatalogBuildCommand(console: console).run(rest)
        case "verify": return CatalogVerifyCommand(console: console).run(rest)
        case "list": return CatalogBrowseCommands(console: console).list(rest)
        case "show": return CatalogBrowseCommands(console: console).show(rest)
        case "-h", "--help":
            console.print(usage)
            return .success
        default:
            let what = sub.map { "unknown catalog command '\($0)'" } ?? "name a catalog command"
            console.error("soundtrace catalog: \(what) (build, verify, list or show)\n\n\(usage)")
            return .usage
        }
    }
}
