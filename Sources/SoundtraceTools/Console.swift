import Glibc

/// Where a command writes: standard output for results, standard error for progress and errors.
/// Tests capture both.
public final class Console: @unchecked Sendable {
    private let writeOut: (String) -> Void
    private let writeErr: (String) -> Void
    /// True when standard error is a terminal, so progress may redraw a line.
    public let isInteractive: Bool

    public init(isInteractive: Bool, out: @escaping (String) -> Void, err: @escaping (String) -> Void) {
        self.isInteractive = isInteractive
        writeOut = out
        writeErr = err
    }

    /// The process's own standard output and error.
    public static func standard() -> Console {
        Console(
            isInteractive: isatty(STDERR_FILENO) == 1,
            out: { write($0, to: STDOUT_FILENO) },
            err: { write($0, to: STDERR_FILENO) })
    }

    /// All of `text`, across partial writes and signals. A reader that went away (a closed pipe)
    /// or a full disk leaves nobody to tell, so the rest is dropped.
    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            guard let start = bytes.baseAddress else { return }
            var done = 0
            while done < bytes.count {
                let written = Glibc.write(descriptor, start + done, bytes.count - done)
                if written < 0, errno == EINTR { continue }
                if written <= 0 { return }
                done += written
            }
        }
    }

    public func print(_ line: String) { writeOut(line + "\n") }
    public func error(_ line: String) { writeErr(line + "\n") }
    /// A question on standard error, left open for the answer on the same line.
    public func prompt(_ question: String) { writeErr(question) }
    /// A progress line that is redrawn in place on a terminal and omitted elsewhere.
    public func progress(_ line: String) {
        if isInteractive { writeErr("\r\u{1B}[2K" + line) }
    }
    public func endProgress() {
        if isInteractive { writeErr("\r\u{1B}[2K") }
    }
}

/// Exit statuses of `soundtrace`, documented in docs/CLI.md and man/soundtrace.1.
public enum ExitCode: Int32, Sendable {
    case success = 0
    /// A check failed: `catalog verify` found a reference that does not match itself.
    case checkFailed = 1
    /// The command line was wrong.
    case usage = 2
    /// An input (file, catalog, manifest) could not be used.
    case inputError = 3
    /// A live session failed: the capture device is missing, denied, busy, unplugged or unusable.
    case deviceFailed = 4
    /// soundtraced could not be reached, or the peer does not speak protocol 1 (or broke it).
    case unreachable = 5
    /// soundtraced answered with an error (ACK): busy, unavailable, not found, permission, wrong token.
    case refused = 6
    /// A live session was canceled (Ctrl-C), by the shell's convention for SIGINT; also a declined
    /// `delete` confirmation.
    case canceled = 130
}
