/// Identifies one listening session. Everything that belongs to a session — audio buffers,
/// verdicts, device errors, timers — carries its token, and anything with an old token is dropped.
public struct SessionToken: Hashable, Sendable, CustomStringConvertible {
    public let value: UInt64
    public init(_ value: UInt64) { self.value = value }
    /// The session id people and the history see, e.g. `s-42`.
    public var description: String { "s-\(value)" }

    /// The token an id such as `s-42` names: `s-` and a positive whole number in ASCII digits without
    /// a leading zero, so that each session has exactly one spelling. Nil for anything else.
    public init?(id: String) {
        let digits = id.utf8.dropFirst(2)
        guard id.utf8.starts(with: "s-".utf8), let first = digits.first, first != UInt8(ascii: "0"),
            digits.count <= 19, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let value = UInt64(id.dropFirst(2))
        else { return nil }
        self.value = value
    }
}
