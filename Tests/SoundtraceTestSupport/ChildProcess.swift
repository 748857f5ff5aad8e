import Glibc

/// A program started with posix_spawn and reaped with waitpid by the test that started it.
/// (Foundation's `Process` was not usable here: with a long-running child alive, its monitor
/// thread blocked in wait4 on that child and never noticed a short-lived one exit.)
public final class ChildProcess {
    public let pid: pid_t
    private var exitStatus: Int32?

    /// Starts `path` with `arguments` and `environment`; its stdin reads `stdin` (/dev/null, or
    /// e.g. a pseudo-terminal), and its stdout and stderr go to the given files (or /dev/null).
    /// The sanitizers' settings of this test run (`TSAN_OPTIONS` and the like) are added unless
    /// `environment` sets them, so that a sanitized child reports where the run collects reports
    /// (scripts/sanitizers.sh) even when a test gives it a minimal environment.
    public init(
        path: String, arguments: [String], environment: [String: String],
        stdin: String = "/dev/null", stdout: String = "/dev/null", stderr: String = "/dev/null"
    ) throws {
        var environment = environment
        for name in Self.sanitizerVariables where environment[name] == nil {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDWR, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // Nothing else reaches the child: suites run in parallel in this process, and a descriptor
        // one of them holds open without O_CLOEXEC (a FIFO's write end, a file being written)
        // would otherwise live on in another suite's child (a FIFO then has a writer its test did
        // not open; an executable being written is "busy").
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let failed = posix_spawn(&child, path, &actions, nil, argv, envp)
        guard failed == 0 else { throw TestFailure("cannot start \(path): \(String(cString: strerror(failed)))") }
        pid = child
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    /// glibc 2.34's `posix_spawn_file_actions_addclosefrom_np`, which the Glibc module does not
    /// export; nil on an older C library, where children inherit what is not close-on-exec.
    private static let addCloseFrom: AddCloseFrom? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }()

    /// The sanitizer runtimes' settings, which every child of a sanitized test run inherits.
    static let sanitizerVariables = ["TSAN_OPTIONS", "ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS"]

    deinit {
        if isRunning {
            kill(pid, SIGKILL)
        }
        _ = waitForExit()
    }

    /// Whether the child has not exited yet (reaps it if it has).
    public var isRunning: Bool {
        guard exitStatus == nil else { return false }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid || (result < 0 && errno == ECHILD) {
            exitStatus = status
            return false
        }
        return true
    }

    /// Sends `signal` to the child if it still runs.
    public func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Waits for the child to exit; returns its exit code (128 + signal when killed).
    @discardableResult
    public func waitForExit() -> Int32 {
        if exitStatus == nil {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            exitStatus = status
        }
        let status = exitStatus ?? 0
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros that do not reach Swift.
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}
