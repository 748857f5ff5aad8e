/// How many arguments a command takes, as a shape rather than two numbers: the daemon binds each
/// command to a handler of the same shape, so a handler receives its arguments typed (a `String`,
/// a `String?`, a list) instead of indexing an array on the strength of a count written elsewhere.
public enum ProtocolArity: Sendable, Equatable {
    /// No arguments.
    case noArguments
    /// Exactly one argument.
    case one
    /// At most one argument.
    case optional
    /// Up to this many arguments.
    case upTo(Int)

    /// The fewest arguments the command accepts.
    public var minArguments: Int {
        self == .one ? 1 : 0
    }

    /// The most arguments the command accepts.
    public var maxArguments: Int {
        switch self {
        case .noArguments: 0
        case .one, .optional: 1
        case let .upTo(count): count
        }
    }
}
