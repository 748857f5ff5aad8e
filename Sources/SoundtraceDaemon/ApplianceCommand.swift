import SoundtracePlatform
import SoundtraceProtocol

/// One row of the daemon's command table: the codec's row (name, permission, arity, summary) with
/// the handler that runs it.
///
/// Why the codec's row plus a handler here rather than one generic row in SoundtraceProtocol: the
/// codec must stay free of I/O and the CLI reads the same names and summaries without linking the
/// daemon, so the list of commands stays in `ProtocolCommand`, and this is the one place that gives
/// each of its rows work to do. The handler's shape mirrors the row's arity, so arguments arrive typed and a handler
/// never indexes an array trusting a count declared elsewhere.
struct ApplianceCommand: Sendable {
    let command: ProtocolCommand
    let handler: CommandHandler

    init(_ command: ProtocolCommand, _ handler: CommandHandler) {
        self.command = command
        self.handler = handler
    }

    /// Runs the handler on arguments the table already checked (`ProtocolRequest.check`).
    func run(on state: inout ApplianceState, _ arguments: [String], client: LineServer.Client) throws(ProtocolError) -> CommandOutcome {
        // A shape that disagrees with the row's arity is refused rather than trapped on: the
        // command table test keeps the two in step, and a daemon must not crash on a line.
        guard handler.accepts(command.arity) else {
            throw ProtocolError(
                .system, command: command.name,
                "the daemon's handler does not take \(command.name)'s arguments; please report this")
        }
        switch handler {
        case let .noArguments(run): return try run(&state, client)
        case let .one(run): return try run(&state, arguments.first ?? "", client)
        case let .optional(run): return try run(&state, arguments.first, client)
        case let .list(run): return try run(&state, arguments, client)
        }
    }
}

/// A command's work, shaped like its arguments (see `ProtocolArity`). Handlers run inside the
/// appliance's lock and throw the error the client is answered with.
enum CommandHandler: Sendable {
    case noArguments(@Sendable (inout ApplianceState, LineServer.Client) throws(ProtocolError) -> CommandOutcome)
    case one(@Sendable (inout ApplianceState, String, LineServer.Client) throws(ProtocolError) -> CommandOutcome)
    case optional(@Sendable (inout ApplianceState, String?, LineServer.Client) throws(ProtocolError) -> CommandOutcome)
    case list(@Sendable (inout ApplianceState, [String], LineServer.Client) throws(ProtocolError) -> CommandOutcome)

    /// Whether this handler takes the arguments a row of `arity` lets through.
    func accepts(_ arity: ProtocolArity) -> Bool {
        switch (self, arity) {
        case (.noArguments, .noArguments), (.one, .one), (.optional, .optional), (.list, .upTo): true
        default: false
        }
    }
}

/// What a command produced; a refusal is thrown as a `ProtocolError` instead.
enum CommandOutcome {
    case reply([(String, String)])
    /// No answer yet: an `idle` waiting for a change, or a delayed answer (the client's state says which).
    case waiting
    /// Not run yet: a `listen` while the previous session's device closes runs again after it has
    /// closed; the client's later lines wait behind it.
    case deferred
}
