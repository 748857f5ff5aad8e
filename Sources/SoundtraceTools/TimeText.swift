import Glibc

/// Times for people. The daemon sends UTC in ISO 8601 with milliseconds; people read
/// `2026-11-29 15:40:02 UTC`. Kept in UTC on purpose: the box and the reader may be in different
/// time zones, and the protocol's times are what a support request will quote.
enum TimeText {
    /// `2026-11-29T15:40:02.375Z` → `2026-11-29 15:40:02 UTC`; anything else is shown as sent.
    static func readable(_ iso: String) -> String {
        let characters = Array(iso)
        guard characters.count >= 20, characters[10] == "T", characters.last == "Z" else { return iso }
        return String(characters[0..<10]) + " " + String(characters[11..<19]) + " UTC"
    }

    /// The time of day of a Unix time in milliseconds, `15:40:02`, for `watch` lines.
    static func clock(_ unixMilliseconds: Int64) -> String {
        var seconds = time_t(unixMilliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }

    /// ISO 8601 UTC with milliseconds, the protocol's own form, for `watch --json`.
    static func iso(_ unixMilliseconds: Int64) -> String {
        var seconds = time_t(unixMilliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ n: Int, _ width: Int) -> String {
            let text = String(n)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))T" +
            "\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2)).\(pad(Int(unixMilliseconds % 1000), 3))Z"
    }
}
