/// Identifies one listening session. Everything that belongs to a session — audio buffers,
/// verdicts, device errors, timers — carries its token, and anything with an old token is dropped.
public struct SessionToken: Hashable, Sendable, CustomStringConvertible {
    public let value: UInt64
    public init(_ value: UInt64) { self.value = value }
    /// The session id people and the history see, e.g. `s-42`.
    public var description: String { "s-\(value)" }
}
