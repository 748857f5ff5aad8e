import Glibc

/// Plain log lines on stderr (journald adds time and unit), one `write` per line so lines from
/// different threads never interleave.
public enum DaemonLog {
    public static func info(_ message: String) { emit(message) }
    public static func warning(_ message: String) { emit("warning: " + message) }
    public static func error(_ message: String) { emit("error: " + message) }

    private static func emit(_ message: String) {
        let line = Array(("soundtraced: " + message.replacingControlCharacters() + "\n").utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}

extension String {
    /// Newlines inside a message would split one log entry into several.
    fileprivate func replacingControlCharacters() -> String {
        String(String.UnicodeScalarView(unicodeScalars.map { $0.value < 0x20 ? " " : $0 }))
    }
}
