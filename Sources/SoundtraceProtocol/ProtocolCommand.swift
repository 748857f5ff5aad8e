/// What a client may do. Loopback clients and LAN clients that presented the token get `control`;
/// other LAN clients get `read`.
public enum ProtocolPermission: Int, Sendable, Comparable {
    case read = 0
    case control = 1

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// One row of the command table: its name, the permission it needs and the arguments it takes,
/// checked before the command runs.
///
/// This is the only list of the protocol's commands. It lives in the codec, without handlers,
/// because the CLI reads it too (summaries for `soundtrace commands`) and the codec does no I/O;
/// the daemon binds a handler to every row in one place (`Appliance.commandTable`), naming rows by
/// these constants, never by a string, and a test checks that every row is bound once with a
/// handler of its arity.
public struct ProtocolCommand: Sendable, Equatable {
    public let name: String
    public let permission: ProtocolPermission
    public let arity: ProtocolArity
    /// One line for people (the `commands` reply and docs/PROTOCOL.md).
    public let summary: String

    /// The fewest arguments the command accepts.
    public var minArguments: Int { arity.minArguments }
    /// The most arguments the command accepts.
    public var maxArguments: Int { arity.maxArguments }

    public static let ping = ProtocolCommand(
        name: "ping", permission: .read, arity: .noArguments,
        summary: "check the connection")
    public static let commands = ProtocolCommand(
        name: "commands", permission: .read, arity: .noArguments,
        summary: "list the commands this connection may use")
    public static let token = ProtocolCommand(
        name: "token", permission: .read, arity: .one,
        summary: "present the LAN token to gain control")
    public static let status = ProtocolCommand(
        name: "status", permission: .read, arity: .noArguments,
        summary: "state, session, last outcome, catalog, device, calm mode")
    public static let idle = ProtocolCommand(
        name: "idle", permission: .read, arity: .upTo(4),
        summary: "wait until state, history, favorites or catalog change")
    public static let noidle = ProtocolCommand(
        name: "noidle", permission: .read, arity: .noArguments,
        summary: "stop waiting")
    public static let session = ProtocolCommand(
        name: "session", permission: .read, arity: .one,
        summary: "one recent session's state and outcome")
    public static let listen = ProtocolCommand(
        name: "listen", permission: .control, arity: .noArguments,
        summary: "start a listening session")
    public static let cancel = ProtocolCommand(
        name: "cancel", permission: .control, arity: .optional,
        summary: "cancel the listening session (only SESSION, if named)")
    public static let history = ProtocolCommand(
        name: "history", permission: .read, arity: .optional,
        summary: "recognitions, newest first, by range START:END")
    public static let show = ProtocolCommand(
        name: "show", permission: .read, arity: .one,
        summary: "one recognition with its metadata")
    public static let share = ProtocolCommand(
        name: "share", permission: .read, arity: .one,
        summary: "one recognition as plain text to paste")
    public static let favorite = ProtocolCommand(
        name: "favorite", permission: .control, arity: .one,
        summary: "mark a reference as a favorite")
    public static let unfavorite = ProtocolCommand(
        name: "unfavorite", permission: .control, arity: .one,
        summary: "unmark a favorite")
    public static let favorites = ProtocolCommand(
        name: "favorites", permission: .read, arity: .noArguments,
        summary: "the favorite references")
    public static let delete = ProtocolCommand(
        name: "delete", permission: .control, arity: .one,
        summary: "delete a recognition")
    public static let catalog = ProtocolCommand(
        name: "catalog", permission: .read, arity: .optional,
        summary: "the catalog's references, by range START:END")
    public static let reference = ProtocolCommand(
        name: "reference", permission: .read, arity: .one,
        summary: "one reference's metadata")
    public static let guide = ProtocolCommand(
        name: "guide", permission: .read, arity: .noArguments,
        summary: "what the catalog covers and how to add recordings")

    /// The commands of protocol version 1, in the order `commands` lists them.
    public static let all: [ProtocolCommand] = [
        ping, commands, token, status, idle, noidle, session, listen, cancel, history, show, share,
        favorite, unfavorite, favorites, delete, catalog, reference, guide
    ]

    /// The table entry for `name`, if the protocol has such a command.
    public static func named(_ name: String) -> ProtocolCommand? {
        all.first { $0.name == name }
    }
}
