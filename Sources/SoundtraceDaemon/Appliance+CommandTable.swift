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
        .init(.commands, .noArguments { appliance, client in appliance.commandsLocked(client) }),
        .init(
            .token,
            .one { appliance, presented, client throws(ProtocolError) in
                try appliance.tokenLocked(presented, client: client)
            }),
        .init(.status, .noArguments { appliance, _ in .reply(appliance.statusPairsLocked()) }),
        .init(.idle, .list { appliance, flags, client throws(ProtocolError) in try appliance.idleLocked(flags, client: client) }),
        // The connection answers a noidle while idling; one that crossed the idle's answer gets
        // none of its own, as in MPD.
        .init(.noidle, .noArguments { _, _ in .waiting }),
        .init(.session, .one { appliance, id, _ throws(ProtocolError) in try appliance.sessionLocked(id) }),
        .init(.listen, .noArguments { appliance, _ throws(ProtocolError) in try appliance.listenLocked() }),
        .init(.cancel, .optional { appliance, id, _ throws(ProtocolError) in try appliance.cancelLocked(id) }),
        .init(.history, .optional { appliance, range, _ throws(ProtocolError) in try appliance.historyLocked(range) }),
        .init(.show, .one { appliance, id, _ throws(ProtocolError) in try appliance.showLocked(id) }),
        .init(.share, .one { appliance, id, _ throws(ProtocolError) in try appliance.shareLocked(id) }),
        .init(.favorite, .one { appliance, id, _ throws(ProtocolError) in try appliance.favoriteLocked(id, on: true) }),
        .init(.unfavorite, .one { appliance, id, _ throws(ProtocolError) in try appliance.favoriteLocked(id, on: false) }),
        .init(.favorites, .noArguments { appliance, _ throws(ProtocolError) in try appliance.favoritesLocked() }),
        .init(.delete, .one { appliance, id, _ throws(ProtocolError) in try appliance.deleteLocked(id) }),
        .init(.catalog, .optional { appliance, range, _ throws(ProtocolError) in try appliance.catalogLocked(range) }),
        .init(.reference, .one { appliance, id, _ throws(ProtocolError) in try appliance.referenceLocked(id) }),
        .init(.guide, .noArguments { appliance, _ in appliance.guideLocked() })
    ]

    /// The table's rows by name, for dispatch.
    private static let commandsByName: [String: ApplianceCommand] =
        Dictionary(commandTable.map { ($0.command.name, $0) }, uniquingKeysWith: { first, _ in first })

    /// Runs a command whose permission and argument count were checked against `command`.
    func executeLocked(
        _ command: ProtocolCommand, _ arguments: [String],
        client: LineServer.Client
    ) throws(ProtocolError) -> CommandOutcome {
        guard let row = Self.commandsByName[command.name] else { throw ProtocolError.unknown(command: command.name) }
        return try row.run(on: self, arguments, client: client)
    }
}
