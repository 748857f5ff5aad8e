/// Every bound the store enforces, in one place. Text limits match the catalog manifest's rules
/// (docs/CATALOG.md), so anything a catalog can hold can be recorded.
public enum HistoryLimits {
    /// Most events one `events(before:limit:)` call returns; larger limits are clamped to this.
    public static let maximumPageSize = 100
    /// Session ids: 1–64 characters of ASCII letters, digits, `-`, `_` and `.`.
    public static let sessionIdLength = 1...64
    /// Reference ids: 3–64 characters of `a`–`z`, `0`–`9` and `-`, not starting with `-` (as in the catalog).
    public static let referenceIdLength = 3...64
    /// Title and creator: 1–200 characters, no control characters.
    public static let titleLength = 1...200
    /// License: 1–100 characters, no control characters.
    public static let licenseLength = 1...100
    /// Source file: 1–255 characters, no control characters.
    public static let sourceFileLength = 1...255
    /// At most this many metadata entries per event.
    public static let maximumMetadataEntries = 32
    /// Metadata keys: 1–64 characters; values: at most 500 characters; no control characters.
    public static let metadataKeyLength = 1...64
    /// Metadata values: at most 500 characters.
    public static let maximumMetadataValueLength = 500
    /// Catalog hash: exactly 64 lowercase hex digits (SHA-256).
    public static let catalogHashLength = 64
    /// Offsets beyond ±48 h cannot come from a catalog recording (1 GiB of 8 kHz 16-bit mono is ~18.6 h).
    public static let offsetMilliseconds: ClosedRange<Int64> = -172_800_000...172_800_000
    /// Match times: after 1970 and before the year 10000, in unix milliseconds.
    public static let matchedAt: ClosedRange<Int64> = 0...253_402_300_799_999
    /// Match scores: non-negative, at most one billion.
    public static let score: ClosedRange<Int> = 0...1_000_000_000
    /// Setting keys: 1–64 characters of `a`–`z`, `0`–`9`, `-` and `.`, starting with a letter.
    public static let settingKeyLength = 1...64
    /// Setting values: at most 1000 characters, no control characters.
    public static let maximumSettingValueLength = 1000
    /// How long a write waits for another connection's lock before failing with "busy".
    public static let busyTimeoutMilliseconds: Int32 = 5000
    /// After a checkpoint, SQLite truncates a -wal file larger than this (bytes).
    public static let walSizeLimitBytes = 1_048_576
}
