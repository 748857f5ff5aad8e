import Glibc
import SoundtraceClock
import SoundtracePlatform

/// Plain log lines on stderr (journald adds time and unit), one `write` per line so lines from
/// different threads never interleave. Lines pass a `LogGate`: repeats are counted and summarized
/// and each window writes a bounded number of lines, so a client churning commands cannot flood
/// the journal (journald's rate limit would drop whole bursts, the rare important line with them).
public enum DaemonLog {
    public static func info(_ message: String) { emit(message) }
    public static func warning(_ message: String) { emit("warning: " + message) }
    public static func error(_ message: String) { emit("error: " + message) }

    /// The gate in front of stderr; the main loop flushes its summaries (`deadline`, `flushIfDue`).
    static let gate = LogGate(
        clock: SystemTime(),
        output: { writeLine("soundtraced: " + $0, to: 2) })

    /// Writes what is pending now (before the process exits).
    public static func flush() { gate.flush() }

    private static func emit(_ message: String) {
        gate.write(message.replacingControlCharacters())
    }

    /// One line on `descriptor` in one `write`.
    static func writeLine(_ line: String, to descriptor: Int32) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}

extension String {
    /// Newlines inside a message would split one log entry into several.
    fileprivate func replacingControlCharacters() -> String {
        String(String.UnicodeScalarView(unicodeScalars.map { $0.value < 0x20 ? " " : $0 }))
    }
}
