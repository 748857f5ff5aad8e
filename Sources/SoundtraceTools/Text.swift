import SoundtraceCore

/// Formatting shared by the commands.
enum Text {
    /// Seconds with millisecond precision, for people and for JSON.
    static func seconds(_ value: Double) -> String {
        let milliseconds = Int((value * 1000).rounded())
        let sign = milliseconds < 0 ? "-" : ""
        let m = abs(milliseconds)
        let fraction = String(m % 1000)
        return "\(sign)\(m / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    /// One decimal, as printf's "%.1f" shows a level (-inf stays -inf: silence has no level).
    static func oneDecimal(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return "\(value)" }
        let tenths = Int((value * 10).rounded())
        return "\(tenths < 0 ? "-" : "")\(abs(tenths) / 10).\(abs(tenths) % 10)"
    }

    /// A JSON string literal, escaped as the daemon's own JSON is (`JSONText.quoted`).
    static func json(_ s: String) -> String { JSONText.quoted(s) }

    /// One JSON object from ordered key/value pairs whose values are already JSON.
    static func jsonObject(_ pairs: [(String, String)]) -> String {
        "{" + pairs.map { "\(json($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
    }
}
