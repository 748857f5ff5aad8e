import Glibc
import SoundtraceClock

/// What the daemon commands read from the process besides their arguments: environment
/// variables, which standard streams are terminals, the confirmation answer, Ctrl-C, the clock and
/// the network bounds. Tests supply their own.
public struct ClientEnvironment: Sendable {
    /// Environment variables (SOUNDTRACE_HOST, SOUNDTRACE_PORT, SOUNDTRACE_TOKEN, SOUNDTRACE_TOKEN_FILE, NO_COLOR).
    public var variables: [String: String]
    /// Whether a person can answer `delete`'s question.
    public var standardInputIsTerminal: Bool
    /// Whether colour may be used.
    public var standardOutputIsTerminal: Bool
    /// One line typed on standard input (nil at end of input), for `delete`'s confirmation.
    public var readAnswer: @Sendable () -> String?
    /// `watch` stamps its lines with its wall-clock time.
    public var clock: any TimeSource
    /// Ctrl-C. nil means "catch the process's SIGINT while a command waits"; tests pass their own.
    var interrupt: InterruptSignal?
    var limits = ProtocolClient.Limits()

    /// An environment given piece by piece (tests); `process()` reads the running process's.
    public init(
        variables: [String: String], standardInputIsTerminal: Bool, standardOutputIsTerminal: Bool,
        readAnswer: @escaping @Sendable () -> String?, clock: any TimeSource
    ) {
        self.variables = variables
        self.standardInputIsTerminal = standardInputIsTerminal
        self.standardOutputIsTerminal = standardOutputIsTerminal
        self.readAnswer = readAnswer
        self.clock = clock
    }

    /// The running process's environment and terminals.
    public static func process() -> ClientEnvironment {
        var variables: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") {
                variables[String(text[..<eq])] = String(text[text.index(after: eq)...])
            }
            cursor += 1
        }
        return ClientEnvironment(
            variables: variables, standardInputIsTerminal: isatty(STDIN_FILENO) == 1,
            standardOutputIsTerminal: isatty(STDOUT_FILENO) == 1,
            readAnswer: { readLine(strippingNewline: true) },
            clock: SystemTime())
    }

    /// Colour is for a person at a terminal who has not opted out (https://no-color.org: any
    /// non-empty NO_COLOR), never for --json.
    func colours(json: Bool) -> Bool {
        !json && standardOutputIsTerminal && (variables["NO_COLOR"] ?? "").isEmpty
    }
}
