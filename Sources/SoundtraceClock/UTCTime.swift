import Glibc

/// Every form in which Soundtrace writes a time: UTC always (the box and its reader may be in
/// different time zones, and a support request quotes what the protocol sent), integer arithmetic
/// only, and times before 1970 counted down correctly (floor division).
public enum UTCTime {
    /// `2026-11-29T15:40:02.125Z`: the protocol's form, and `--json`'s.
    public static func iso8601(unixMilliseconds: Int64) -> String {
        guard let (parts, millis) = split(unixMilliseconds) else { return "\(unixMilliseconds)ms" }
        return date(parts, separator: "-") + "T" + time(parts, separator: ":") + "." + padded(millis, 3) + "Z"
    }

    /// `20261129T154002Z`, for file names.
    public static func compact(unixMilliseconds: Int64) -> String {
        guard let (parts, _) = split(unixMilliseconds) else { return "t\(unixMilliseconds)" }
        return date(parts, separator: "") + "T" + time(parts, separator: "") + "Z"
    }

    /// `15:40:02`, the time of day, for lines people watch scroll by.
    public static func timeOfDay(unixMilliseconds: Int64) -> String {
        guard let (parts, _) = split(unixMilliseconds) else { return "\(unixMilliseconds)ms" }
        return time(parts, separator: ":")
    }

    private static func split(_ unixMilliseconds: Int64) -> (tm, Int)? {
        let (quotient, remainder) = unixMilliseconds.quotientAndRemainder(dividingBy: 1000)
        let seconds = remainder < 0 ? quotient - 1 : quotient
        var clock = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&clock, &parts) != nil else { return nil }
        return (parts, Int(remainder < 0 ? remainder + 1000 : remainder))
    }

    private static func date(_ parts: tm, separator: String) -> String {
        padded(Int(parts.tm_year) + 1900, 4) + separator + padded(Int(parts.tm_mon) + 1, 2) + separator + padded(Int(parts.tm_mday), 2)
    }

    private static func time(_ parts: tm, separator: String) -> String {
        padded(Int(parts.tm_hour), 2) + separator + padded(Int(parts.tm_min), 2) + separator + padded(Int(parts.tm_sec), 2)
    }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
