import Glibc

/// Compact ISO 8601 UTC timestamps ("20261129T140501Z") for file names, without Foundation.
enum UTCTimestamp {
    static func compact(unixMilliseconds: Int64) -> String {
        var seconds = time_t(unixMilliseconds / 1000)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "t\(unixMilliseconds)" }
        return padded(Int(parts.tm_year) + 1900, 4) + padded(Int(parts.tm_mon) + 1, 2) + padded(Int(parts.tm_mday), 2)
            + "T" + padded(Int(parts.tm_hour), 2) + padded(Int(parts.tm_min), 2) + padded(Int(parts.tm_sec), 2) + "Z"
    }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
