import Foundation
import SoundtraceTestSupport

/// A running `soundtrace-store-writer`: its stdout is read line by line; each line is a session id
/// whose event the child has committed.
final class WriterProcess {
    let pid: pid_t
    private let output: Int32
    private var pending: [UInt8] = []
    private var finished = false
    private var exitCode: Int32 = -1
    /// Complete lines received so far.
    private(set) var lines: [String] = []

    /// The writer built with this test bundle (`BuiltProducts`: next to the bundle, else the
    /// package's `.build/release`, then `.build/debug`).
    static func executable(filePath: String = #filePath) throws -> String {
        let root = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let candidate = BuiltProducts.path("soundtrace-store-writer", packageRoot: root)
        guard FileManager.default.isExecutableFile(atPath: candidate) else {
            throw TestFailure(
                "soundtrace-store-writer is not built; build it first with: swift build -c release --product soundtrace-store-writer")
        }
        return candidate
    }

    /// Starts the writer on `database`, with its stderr appended to `stderrPath`.
    convenience init(executable: String, database: String, prefix: String, stderrPath: String) throws {
        try self.init(command: [executable, database, prefix], stderrPath: stderrPath)
    }

    /// Starts `command` (an absolute program path and its arguments), with its stderr appended to `stderrPath`.
    init(command: [String], stderrPath: String) throws {
        var descriptors: [Int32] = [0, 0]
        // A socket pair rather than pipe(2) because it can be created close-on-exec atomically (pipe2 is
        // not visible to Swift): a copy of the write end leaking into another child (tests run in
        // parallel) would keep the stream open after this child dies, and draining would never see EOF.
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &descriptors) == 0 else {
            throw TestFailure("socketpair: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, descriptors[1], STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderrPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        let arguments = command.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, command[0], &actions, nil, arguments, environ)
        close(descriptors[1])
        guard rc == 0 else {
            close(descriptors[0])
            throw TestFailure("posix_spawn \(command[0]): \(String(cString: strerror(rc)))")
        }
        pid = child
        output = descriptors[0]
    }

    deinit {
        kill()
        close(output)
    }

    /// Reads until at least `count` complete lines arrived; false if the child closed stdout first.
    func waitForLines(_ count: Int) -> Bool {
        while lines.count < count {
            guard readChunk() else { return false }
        }
        return true
    }

    /// Kills the child with SIGKILL (if still running), reaps it, and reads what it printed before dying.
    func kill() {
        guard !finished else { return }
        _ = Foundation.kill(pid, SIGKILL)
        _ = waitForExit()
    }

    /// Reads the child's output to the end and reaps it; returns its exit code (128 + signal if killed).
    func waitForExit() -> Int32 {
        while readChunk() {}
        guard !finished else { return exitCode }
        finished = true
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG are C macros Swift cannot import.
        exitCode = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return exitCode
    }

    /// One read(2) from the pipe; false at EOF or on error.
    private func readChunk() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { return true }
        guard count > 0 else { return false }
        pending += buffer[0..<count]
        // Only complete lines count: the child writes each id and its newline in one write(2).
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: pending[..<newline], as: UTF8.self))
            pending.removeSubrange(...newline)
        }
        return true
    }
}
