/// The name of an app setting, validated on creation so that only well-formed keys reach the database.
public struct SettingKey: Sendable, Hashable, CustomStringConvertible {
    /// The key's text, e.g. "calm-mode".
    public let name: String

    /// A key from its text: 1–64 characters of `a`–`z`, `0`–`9`, `-` and `.`, starting with a letter.
    public init(_ name: String) throws(HistoryError) {
        try InputValidation.settingKey(name)
        self.name = name
    }

    private init(known name: String) { self.name = name }

    /// Calm mode: LEDs stay steady for people who must avoid flashing ("on" or "off").
    public static let calmMode = SettingKey(known: "calm-mode")

    /// The number of the next listening session ("s-N"), kept so that a restarted daemon never
    /// reuses the id of a recorded session, even one whose recognition was deleted since.
    public static let nextSession = SettingKey(known: "next-session")

    public var description: String { name }
}
