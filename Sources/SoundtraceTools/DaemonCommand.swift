import SoundtraceProtocol

/// A `soundtrace` subcommand that talks to soundtraced: its help, its argument, its extra flags,
/// and the work it does on a connection. The shared part — options, validation before
/// connecting, errors and exit statuses — lives here once.
struct DaemonCommand: Sendable {
    let name: String
    /// One sentence for `--help` and the command list.
    let summary: String
    let argument: DaemonArgument
    /// Extra flags beyond the shared options, with their help line.
    var flags: [(name: String, help: String)] = []
    /// What --json prints, for the help text.
    let jsonHelp: String
    /// Extra paragraphs for `--help` (exit statuses, examples).
    var details: String = ""
    /// The work, given validated arguments.
    let body: @Sendable (DaemonContext) throws(ClientError) -> ExitCode

    var usage: String {
        let flagSynopsis = flags.map { " [\($0.name)]" }.joined()
        var text = """
            usage: soundtrace \(name) [--host HOST] [--port N] [--token-file PATH] [--json]\(flagSynopsis)\(argument.synopsis)

            \(summary)

            options:
              --host HOST        soundtraced's host name or address (default 127.0.0.1, env SOUNDTRACE_HOST)
              --port N           its TCP port (default 6680, env SOUNDTRACE_PORT)
              --token-file PATH  send the LAN token in PATH to gain control (or env SOUNDTRACE_TOKEN with the
                                 token itself, or env SOUNDTRACE_TOKEN_FILE)
              --json             \(jsonHelp)

            """
        for flag in flags { text += "  \(flag.name.padding(19))\(flag.help)\n" }
        text += "  -h, --help         show this help"
        if !details.isEmpty { text += "\n\n" + details }
        return text
    }

    /// Parses and checks `args`, then runs the body; every failure becomes a message and a status.
    func run(_ args: [String], console: Console, environment: ClientEnvironment) -> ExitCode {
        let options: DaemonOptions
        let parsed: Arguments
        let arguments: [String]
        do {
            parsed = try Arguments(
                args, valueOptions: DaemonOptions.valueOptions,
                flagOptions: Set(["--json", "-h", "--help"] + flags.map(\.name)))
            if parsed.flag("-h") || parsed.flag("--help") {
                console.print(usage)
                return .success
            }
            arguments = try argument.validate(parsed.positional).get()
            options = try DaemonOptions(parsed, environment: environment)
        } catch {
            return CommandUsage(command: name, text: usage, console: console).refuse("\(error)")
        }
        let context = DaemonContext(
            command: self, console: console, environment: environment, options: options,
            arguments: arguments, flags: Set(flags.map(\.name).filter(parsed.flag)))
        do {
            return try body(context)
        } catch {
            console.error("soundtrace \(name): \(error)")
            return error.exitCode
        }
    }
}

/// What a running daemon command has to work with.
struct DaemonContext {
    let command: DaemonCommand
    let console: Console
    let environment: ClientEnvironment
    let options: DaemonOptions
    /// The validated positional arguments, as they are sent.
    let arguments: [String]
    /// The command's extra flags that were given.
    let flags: Set<String>

    var json: Bool { options.json }
    var style: TextStyle { TextStyle(enabled: environment.colours(json: options.json)) }

    /// Connects, checks the greeting, and presents the token if one was given.
    func connect() throws(ClientError) -> ProtocolClient {
        let client = try ProtocolClient.connect(host: options.host, port: options.port, limits: environment.limits)
        guard let token = options.token else { return client }
        do {
            try client.authenticate(token: token)
        } catch let .refused(ack) where ack.code == ProtocolError.Code.wrongToken.rawValue && ack.message.hasPrefix("wrong token") {
            // The daemon's count of tries left is for a person typing at the protocol; this
            // program makes one try per run, so what helps here is where the token came from.
            throw .refused(
                ProtocolAck(
                    code: ack.code, command: ack.command,
                    message:
                        "soundtraced at \(client.endpoint) refused the token from \(options.tokenSource ?? "the environment"): it is not the daemon's token (the first line of the file its token_file names, see soundtraced(8)); each wrong try makes the next one from this address wait longer"
                ))
        }
        return client
    }

    /// One request on a fresh connection: most commands need nothing more.
    func request(_ command: String, _ arguments: [String]) throws(ClientError) -> ProtocolReply {
        try connect().request(command, arguments)
    }
}

extension String {
    /// The string padded with spaces to `width` characters (never cut).
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
