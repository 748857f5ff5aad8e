import SoundtraceProtocol
import Testing

@testable import SoundtraceDaemon

/// The daemon's handlers and the codec's command list are one table: the daemon binds exactly the
/// codec's rows, in its order, each once and with a handler shaped like the row's arity.
@Suite struct CommandTableTests {
    @Test func everyCoreRowIsBoundOnceInOrder() {
        #expect(Appliance.commandTable.map(\.command) == ProtocolCommand.all)
    }

    @Test(arguments: Appliance.commandTable.map(\.command.name))
    func everyHandlerTakesItsRowsArguments(name: String) {
        let row = Appliance.commandTable.first { $0.command.name == name }
        #expect(row.map { $0.handler.accepts($0.command.arity) } == true)
    }
}
