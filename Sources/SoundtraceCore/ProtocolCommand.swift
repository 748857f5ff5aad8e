/// What a client may do. Loopback clients and LAN clients that presented the token get `control`;
/// other LAN clients get `read`.
public enum ProtocolPermission: Int, Sendable, Comparable {
    case read = 0
    case control = 1

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// One entry of the command table: its name, the permission it needs and how many arguments it
/// takes, checked before the command runs.
public struct ProtocolCommand: Sendable, Equatable {
    public let name: String
    public let permission: ProtocolPermission
    public let minArguments: Int
    public let maxArguments: Int
    /// One line for people (the `commands` reply and docs/PROTOCOL.md).
    public let summary: String

    /// The commands of protocol version 1, in the order `commands` lists them.
    public static let all: [ProtocolCommand] = [
        .init(name: "ping", permission: .read, minArguments: 0, maxArguments: 0, summary: "check the connection"),
        .init(name: "commands", permission: .read, minArguments: 0, maxArguments: 0, summary: "list the commands this connection may use"),
        .init(name: "token", permission: .read, minArguments: 1, maxArguments: 1, summary: "present the LAN token to gain control"),
        .init(name: "status", permission: .read, minArguments: 0, maxArguments: 0, summary: "state, session, last outcome, catalog, device, calm mode"),
        .init(name: "idle", permission: .read, minArguments: 0, maxArguments: 4, summary: "wait until state, history, favorites or catalog change"),
        .init(name: "noidle", permission: .read, minArguments: 0, maxArguments: 0, summary: "stop waiting"),
        .init(name: "session", permission: .read, minArguments: 1, maxArguments: 1, summary: "one recent session's state and outcome"),
        .init(name: "listen", permission: .control, minArguments: 0, maxArguments: 0, summary: "start a listening session"),
        .init(name: "cancel", permission: .control, minArguments: 0, maxArguments: 1, summary: "cancel the listening session (only SESSION, if named)"),
        .init(name: "history", permission: .read, minArguments: 0, maxArguments: 1, summary: "recognitions, newest first, by range START:END"),
        .init(name: "show", permission: .read, minArguments: 1, maxArguments: 1, summary: "one recognition with its metadata"),
        .init(name: "share", permission: .read, minArguments: 1, maxArguments: 1, summary: "one recognition as plain text to paste"),
        .init(name: "favorite", permission: .control, minArguments: 1, maxArguments: 1, summary: "mark a reference as a favorite"),
        .init(name: "unfavorite", permission: .control, minArguments: 1, maxArguments: 1, summary: "unmark a favorite"),
        .init(name: "favorites", permission: .read, minArguments: 0, maxArguments: 0, summary: "the favorite references"),
        .init(name: "delete", permission: .control, minArguments: 1, maxArguments: 1, summary: "delete a recognition"),
        .init(name: "catalog", permission: .read, minArguments: 0, maxArguments: 1, summary: "the catalog's references, by range START:END"),
        .init(name: "reference", permission: .read, minArguments: 1, maxArguments: 1, summary: "one reference's metadata"),
        .init(name: "guide", permission: .read, minArguments: 0, maxArguments: 0, summary: "what the catalog covers and how to add recordings"),
    ]

    /// The table entry for `name`, if the protocol has such a command.
    public static func named(_ name: String) -> ProtocolCommand? {
        all.first { $0.name == name }
    }
}
