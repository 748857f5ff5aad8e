import Glibc

/// How the daemon writes values in replies: UTC ISO 8601 times with milliseconds, seconds with
/// three decimals, yes/no. Integer arithmetic only, so a reply never depends on float formatting.
enum ProtocolValues {
    /// `2026-11-29T15:40:02.125Z` for Unix milliseconds.
    static func time(_ unixMilliseconds: Int64) -> String {
        var seconds = time_t(floorDivide(unixMilliseconds, 1000))
        let millis = Int(unixMilliseconds - Int64(seconds) * 1000)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "\(unixMilliseconds)ms" }
        return padded(Int(parts.tm_year) + 1900, 4) + "-" + padded(Int(parts.tm_mon) + 1, 2) + "-" + padded(Int(parts.tm_mday), 2)
            + "T" + padded(Int(parts.tm_hour), 2) + ":" + padded(Int(parts.tm_min), 2) + ":" + padded(Int(parts.tm_sec), 2)
            + "." + padded(millis, 3) + "Z"
    }

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

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
