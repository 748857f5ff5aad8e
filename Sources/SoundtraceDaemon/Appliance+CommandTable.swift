import SoundtracePlatform
import SoundtraceProtocol

extension Appliance {
    /// Every command the daemon serves, bound to its handler, in `ProtocolCommand.all`'s order.
    /// Rows are named by the codec's constants, so a name is spelled once; `CommandTableTests` checks
    /// that this table and the codec's list hold the same rows and that every handler fits its arity.
    /// Closures that throw name their error type: Swift infers `any Error` for a closure's throws
    /// even where the parameter's type says `throws(ProtocolError)`.
    static let commandTable: [ApplianceCommand] = [
        .init(.ping, .noArguments { _, _ in .reply([]) }),
        .init(.commands, .noArguments { state, client in state.commands(client) }),
        .init(
            .token,
            .one { state, presented, client throws(ProtocolError) in
                try state.token(presented, client: client)
            }),
        .init(.status, .noArguments { state, _ in .reply(state.statusPairs()) }),
        .init(.idle, .list { state, flags, client throws(ProtocolError) in try state.idle(flags, client: client) }),
        // The connection answers a noidle while idling; one that crossed the idle's answer gets
        // none of its own, as in MPD.
        .init(.noidle, .noArguments { _, _ in .waiting }),
        .init(.session, .one { state, id, _ throws(ProtocolError) in try state.session(id) }),
        .init(.listen, .noArguments { state, client throws(ProtocolError) in try state.listen(client) }),
        .init(.cancel, .optional { state, id, _ throws(ProtocolError) in try state.cancel(id) }),
        .init(.history, .optional { state, range, _ throws(ProtocolError) in try state.history(range) }),
        .init(.show, .one { state, id, _ throws(ProtocolError) in try state.show(id) }),
        .init(.share, .one { state, id, _ throws(ProtocolError) in try state.share(id) }),
        .init(.favorite, .one { state, id, _ throws(ProtocolError) in try state.favorite(id, on: true) }),
        .init(.unfavorite, .one { state, id, _ throws(ProtocolError) in try state.favorite(id, on: false) }),
        .init(.favorites, .noArguments { state, _ throws(ProtocolError) in try state.favorites() }),
        .init(.delete, .one { state, id, _ throws(ProtocolError) in try state.delete(id) }),
        .init(.catalog, .optional { state, range, _ throws(ProtocolError) in try state.catalog(range) }),
        .init(.reference, .one { state, id, _ throws(ProtocolError) in try state.reference(id) }),
        .init(.guide, .noArguments { state, _ in state.guide() })
    ]

    /// The table's rows by name, for dispatch.
    fileprivate static let commandsByName: [String: ApplianceCommand] =
        Dictionary(commandTable.map { ($0.command.name, $0) }, uniquingKeysWith: { first, _ in first })
}

extension ApplianceState {
    /// Runs a command whose permission and argument count were checked against `command`.
    mutating func execute(
        _ command: ProtocolCommand, _ arguments: [String],
        client: LineServer.Client
    ) throws(ProtocolError) -> CommandOutcome {
        guard let row = Appliance.commandsByName[command.name] else { throw ProtocolError.unknown(command: command.name) }
        return try row.run(on: &self, arguments, client: client)
    }
}
