import Glibc
import SoundtracePlatform

/// Where a command writes: standard output for results, standard error for progress and errors.
/// Tests capture both.
public final class Console: @unchecked Sendable {
    private let writeOut: (String) -> Void
    private let writeErr: (String) -> Void
    /// True when standard error is a terminal, so progress may redraw a line.
    public let isInteractive: Bool
    /// How writing the output ended early, if it did (`Console.writing`); nothing more is written.
    private let outputEnd = Guarded<OutputEnd?>(nil)
    /// The descriptor results are written to, when this console notes how its output ended.
    private let outDescriptor: Int32?

    /// Why a command's output stopped before its end.
    public enum OutputEnd: Equatable, Sendable {
        /// The reader went away (a closed pipe, as `soundtrace history | head -1` does): nothing is
        /// wrong, and nobody reads the rest.
        case readerGone
        /// The output could not be written (a full disk, an I/O error; the `errno`): what was
        /// meant to be kept is incomplete.
        case failed(Int32)
    }

    public init(isInteractive: Bool, out: @escaping (String) -> Void, err: @escaping (String) -> Void) {
        self.isInteractive = isInteractive
        writeOut = out
        writeErr = err
        outDescriptor = nil
    }

    private init(isInteractive: Bool, outDescriptor: Int32, errDescriptor: Int32) {
        self.isInteractive = isInteractive
        writeErr = { _ = Self.write($0, to: errDescriptor) }
        writeOut = { _ in }
        self.outDescriptor = outDescriptor
    }

    /// The process's own standard output and error.
    public static func standard() -> Console {
        writing(out: STDOUT_FILENO, err: STDERR_FILENO, isInteractive: isatty(STDERR_FILENO) == 1)
    }

    /// A console on two open descriptors, which notes when its output could not be written
    /// (`outputEnded`); `standard()` is this on the process's own.
    public static func writing(out: Int32, err: Int32, isInteractive: Bool = false) -> Console {
        Console(isInteractive: isInteractive, outDescriptor: out, errDescriptor: err)
    }

    /// How the output ended early, or nil while all of it was written.
    public var outputEnded: OutputEnd? { outputEnd.withLock { $0 } }

    /// All of `text`, across partial writes and signals; 0, or the `errno` that stopped it.
    private static func write(_ text: String, to descriptor: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { bytes in
            guard let start = bytes.baseAddress else { return 0 }
            var done = 0
            while done < bytes.count {
                let written = Glibc.write(descriptor, start + done, bytes.count - done)
                if written < 0, errno == EINTR { continue }
                if written < 0 { return errno }
                if written == 0 { return EIO }
                done += written
            }
            return 0
        }
    }

    public func print(_ line: String) {
        guard let outDescriptor else { return writeOut(line + "\n") }
        guard outputEnded == nil else { return }
        let failure = Self.write(line + "\n", to: outDescriptor)
        guard failure != 0 else { return }
        outputEnd.withLock { $0 = $0 ?? (failure == EPIPE ? .readerGone : .failed(failure)) }
    }
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
    /// Standard output could not be written (a full disk, an I/O error): the results are
    /// incomplete, while what the command did (a saved manifest, a session on the box) stands.
    case outputFailed = 7
    /// A live session was canceled (Ctrl-C), by the shell's convention for SIGINT; also a declined
    /// `delete` confirmation.
    case canceled = 130
}
