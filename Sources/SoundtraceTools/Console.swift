import Glibc
import SoundtracePlatform

/// Where a command writes: standard output for results, standard error for progress and errors.
/// Tests capture both.
public final class Console: @unchecked Sendable {
    private let writeOut: (String) -> Void
    private let writeErr: (String) -> Void
    /// True when standard error is a terminal, so progress may redraw a line.
    public let isInteractive: Bool
    /// The output that notes how it ended, when this console writes to a descriptor (`Console.writing`).
    private let output: DescriptorOutput?

    /// Why a command's output stopped before its end.
    public typealias OutputEnd = DescriptorOutput.End

    public init(isInteractive: Bool, out: @escaping (String) -> Void, err: @escaping (String) -> Void) {
        self.isInteractive = isInteractive
        writeOut = out
        writeErr = err
        output = nil
    }

    private init(isInteractive: Bool, outDescriptor: Int32, errDescriptor: Int32) {
        self.isInteractive = isInteractive
        let output = DescriptorOutput(descriptor: outDescriptor)
        self.output = output
        writeOut = { output.write($0) }
        writeErr = { _ = DescriptorOutput.writeAll($0, to: errDescriptor) }
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
    public var outputEnded: OutputEnd? { output?.ended }

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
    /// Standard output could not be written (a full disk, an I/O error): the results are
    /// incomplete, while what the command did (a saved manifest, a session on the box) stands.
    case outputFailed = 7
    /// A live session was canceled (Ctrl-C), by the shell's convention for SIGINT; also a declined
    /// `delete` confirmation.
    case canceled = 130
}
