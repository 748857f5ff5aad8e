/// How a `soundtrace` command answers its own command line: a malformed one with what is wrong and
/// the command's usage on stderr (exit 2), `-h` or `--help` with the usage alone (exit 0).
struct CommandUsage {
    /// The words after `soundtrace`, e.g. "catalog build".
    let command: String
    /// The command's usage text.
    let text: String
    let console: Console

    /// What a command line came to: arguments to run with, or the exit code it ends with at once.
    enum Parsed {
        case run(Arguments)
        case done(ExitCode)
    }

    /// Refuses the command line: `problem`, then the usage.
    func refuse(_ problem: String) -> ExitCode {
        console.error("soundtrace \(command): \(problem)\n\n\(text)")
        return .usage
    }

    /// Reads `args` with these options (`-h` and `--help` are always understood).
    func parse(_ args: [String], valueOptions: Set<String>, flagOptions: Set<String> = []) -> Parsed {
        let parsed: Arguments
        do {
            parsed = try Arguments(args, valueOptions: valueOptions, flagOptions: flagOptions.union(["-h", "--help"]))
        } catch {
            return .done(refuse("\(error)"))
        }
        if parsed.flag("-h") || parsed.flag("--help") {
            console.print(text)
            return .done(.success)
        }
        return .run(parsed)
    }
}
