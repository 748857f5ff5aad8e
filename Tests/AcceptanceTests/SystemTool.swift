import Foundation
import Glibc
import SoundtraceTestSupport

/// System programs the acceptance tests run to their end (`ip`, `unshare`, `nsenter`, `setpriv`).
enum SystemTool {
    /// A system program by name: on PATH, or in the sbin folders a user's PATH may lack.
    static func path(_ name: String) throws -> String {
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = searchPath.split(separator: ":").map { String($0) } + ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]
        let candidates: [String] = folders.map { $0 + "/" + name }
        guard let found = candidates.first(where: { access($0, X_OK) == 0 }) else {
            throw TestFailure("\(name) is not installed (iproute2 has `ip`, util-linux `unshare`, `nsenter` and `setpriv`)")
        }
        return found
    }

    /// Runs a program to its end: its exit status and what it wrote on stdout, then stderr.
    @discardableResult
    static func run(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws -> (
        status: Int32, output: String
    ) {
        let out = NSTemporaryDirectory() + "soundtrace-tool-\(getpid())-\(UUID().uuidString)"
        defer {
            unlink(out)
            unlink(out + ".err")
        }
        let program = arguments[0].hasPrefix("/") ? arguments[0] : try path(arguments[0])
        let child = try ChildProcess(
            path: program, arguments: Array(arguments.dropFirst()), environment: environment,
            stdout: out, stderr: out + ".err")
        let status = child.waitForExit()
        let text =
            ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "")
            + ((try? String(contentsOfFile: out + ".err", encoding: .utf8)) ?? "")
        return (status, text)
    }

    /// Like `run`, but a failure throws with the command and what it said.
    @discardableResult
    static func must(_ arguments: [String]) throws -> String {
        let (status, output) = try run(arguments)
        guard status == 0 else { throw TestFailure("`\(arguments.joined(separator: " "))` failed (\(status)): \(output)") }
        return output
    }
}
