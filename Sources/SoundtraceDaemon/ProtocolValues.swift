import Glibc
import SoundtraceClock

/// How the daemon writes values in replies: UTC ISO 8601 times with milliseconds, seconds with
/// three decimals, yes/no. Integer arithmetic only, so a reply never depends on float formatting.
enum ProtocolValues {
    /// `2026-11-29T15:40:02.125Z` for Unix milliseconds.
    static func time(_ unixMilliseconds: Int64) -> String { UTCTime.iso8601(unixMilliseconds: unixMilliseconds) }

    /// `2026-11-29 at 15:40 UTC`, for text meant for people.
    static func humanTime(_ unixMilliseconds: Int64) -> String {
        let iso = time(unixMilliseconds)
        guard iso.count >= 16 else { return iso }
        let chars = Array(iso)
        return String(chars[0..<10]) + " at " + String(chars[11..<16]) + " UTC"
    }

    /// `12.345` (or `-0.250`) for milliseconds.
    static func seconds(_ milliseconds: Int) -> String {
        let sign = milliseconds < 0 ? "-" : ""
        let magnitude = milliseconds.magnitude
        return sign + String(magnitude / 1000) + "." + padded(Int(magnitude % 1000), 3)
    }

    /// `12.3` for milliseconds (one decimal, rounded half away from zero), for people.
    static func shortSeconds(_ milliseconds: Int) -> String {
        let sign = milliseconds < 0 ? "-" : ""
        let tenths = (milliseconds.magnitude + 50) / 100
        return sign + String(tenths / 10) + "." + String(tenths % 10)
    }

    static func yesNo(_ value: Bool) -> String { value ? "yes" : "no" }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
