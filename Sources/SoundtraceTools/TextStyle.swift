/// ANSI emphasis for terminal output, or plain text when colour is off.
struct TextStyle {
    let enabled: Bool

    private func wrap(_ code: String, _ text: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func bold(_ text: String) -> String { wrap("1", text) }
    func dim(_ text: String) -> String { wrap("2", text) }
    /// A match, a success.
    func good(_ text: String) -> String { wrap("32", text) }
    /// A no-match or a cancel: an honest outcome that is not a result.
    func notice(_ text: String) -> String { wrap("33", text) }
    /// A failure.
    func bad(_ text: String) -> String { wrap("31", text) }
}
