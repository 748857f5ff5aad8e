import Dispatch
import Foundation
import Glibc
import SoundtraceTestSupport
import Testing

/// Ctrl-C for real: the built `soundtrace` binary gets a SIGINT from the kernel while it waits in
/// `idle`, and must cancel on the daemon and exit 130 instead of dying.
@Suite struct InterruptBinaryTests {
    static let binary: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        return BuiltProducts.path("soundtrace", packageRoot: root)
    }()

    @Test func sigintWhileListeningCancelsOnTheDaemonAndExits130() throws {
        final class Child: @unchecked Sendable {
            let ready = DispatchSemaphore(value: 0)
            var pid: pid_t = 0
        }
        let child = Child()
        let steps = [
            FakeDaemon.Step(expect: "listen", reply: .text(Canned.listening)),
            FakeDaemon.Step(
                expect: "idle state", reply: .hold,
                action: {
                    child.ready.wait()
                    kill(child.pid, SIGINT)
                }),
            FakeDaemon.Step(expect: "noidle", reply: .text("OK\n")),
            FakeDaemon.Step(expect: "cancel s-4", reply: .text(Canned.canceled))
        ]
        let daemon = try FakeDaemon(steps)
        let directory = FileManager.default.temporaryDirectory.path
        let stamp = "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let out = directory + "/soundtrace-sigint-\(stamp).out"
        let err = directory + "/soundtrace-sigint-\(stamp).err"
        defer {
            unlink(out)
            unlink(err)
        }
        let process = try ChildProcess(
            path: Self.binary, arguments: ["listen", "--port", String(daemon.port)],
            environment: ["PATH": "/usr/bin:/bin"], stdout: out, stderr: err)
        child.pid = process.pid
        child.ready.signal()
        // A bound, not a synchronization sleep: a hung child is killed and the test fails. The
        // flag keeps the watchdog from signalling the pid once the child is reaped (and the
        // number free for reuse).
        final class Watchdog: @unchecked Sendable {
            let lock = NSLock()
            var exited = false
        }
        let watchdog = Watchdog()
        let pid = process.pid
        DispatchQueue.global().asyncAfter(deadline: .now() + 20) {
            watchdog.lock.lock()
            if !watchdog.exited { kill(pid, SIGKILL) }
            watchdog.lock.unlock()
        }
        let status = process.waitForExit()
        watchdog.lock.lock()
        watchdog.exited = true
        watchdog.lock.unlock()
        daemon.stop()
        #expect(status == 130)
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "s-4: canceled\n")
        #expect(daemon.problems.isEmpty, "\(daemon.problems); stderr: \((try? String(contentsOfFile: err, encoding: .utf8)) ?? "")")
        #expect(daemon.received == ["listen", "idle state", "noidle", "cancel s-4"])
    }
}
