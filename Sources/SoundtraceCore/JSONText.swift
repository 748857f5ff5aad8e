/// JSON written by hand for the few small objects the daemon publishes (no JSON library in the
/// daemon: it must stay small). Keys keep the order they are given in.
public struct JSONText: Sendable, Equatable {
    public private(set) var text = "{"

    public init() {}

    /// A string member.
    public mutating func add(_ key: String, _ value: String) { member(key, Self.quoted(value)) }

    /// A member whose value is already JSON (a number written by the caller, `true`, an object).
    public mutating func add(_ key: String, raw: String) { member(key, raw) }

    /// The object, closed.
    public var object: String { text + "}" }

    private mutating func member(_ key: String, _ value: String) {
        if text != "{" { text += "," }
        text += Self.quoted(key) + ":" + value
    }

    /// `value` as a JSON string: quotes, backslashes and control characters escaped (C1 controls
    /// and DEL too, as the protocol's replies never carry them raw).
    public static func quoted(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
