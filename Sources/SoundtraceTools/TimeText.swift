import Glibc
import SoundtraceClock

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
    static func clock(_ unixMilliseconds: Int64) -> String { UTCTime.timeOfDay(unixMilliseconds: unixMilliseconds) }

    /// ISO 8601 UTC with milliseconds, the protocol's own form, for `watch --json`.
    static func iso(_ unixMilliseconds: Int64) -> String { UTCTime.iso8601(unixMilliseconds: unixMilliseconds) }
}
