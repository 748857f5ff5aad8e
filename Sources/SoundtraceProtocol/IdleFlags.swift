/// What changed since a client last asked, one bit per subsystem: a slow client costs a few bits,
/// never a growing queue of events.
public struct IdleFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let state = IdleFlags(rawValue: 1 << 0)
    public static let history = IdleFlags(rawValue: 1 << 1)
    public static let favorites = IdleFlags(rawValue: 1 << 2)
    public static let catalog = IdleFlags(rawValue: 1 << 3)
    public static let all: IdleFlags = [.state, .history, .favorites, .catalog]

    /// Subsystem names in protocol order, for `idle` arguments and `changed:` lines.
    public static let names: [(String, IdleFlags)] = [
        ("state", .state), ("history", .history),
        ("favorites", .favorites), ("catalog", .catalog)
    ]

    /// The flags named by `idle` arguments (none named: all), or the first unknown name.
    public static func parse(_ arguments: [String]) -> Result<IdleFlags, ProtocolError> {
        guard !arguments.isEmpty else { return .success(.all) }
        var flags: IdleFlags = []
        for argument in arguments {
            guard let (_, flag) = names.first(where: { $0.0 == argument }) else {
                return .failure(
                    ProtocolError(
                        .badArguments, command: "idle", "unknown subsystem \"\(argument)\"; use state, history, favorites or catalog"))
            }
            flags.insert(flag)
        }
        return .success(flags)
    }

    /// `changed: NAME` lines for the flags, in protocol order.
    public var changedPairs: [(String, String)] {
        Self.names.filter { contains($0.1) }.map { ("changed", $0.0) }
    }
}
