import Foundation
import Glibc
import SoundtraceTestSupport

/// A running `soundtraced` started by a test: its port (from its log), its log, and a clean stop.
final class DaemonProcess {
    let child: ChildProcess
    let port: Int
    let logPath: String
    let outputPath: String
    let stateDirectory: String

    static var binary: String { Microphones.binary + "d" }

    /// Starts the daemon on a free port (loopback unless `config` binds elsewhere) with `extra`
    /// arguments added, and waits until it serves.
    /// `launcher` is a command that runs it (e.g. `ip netns exec NAME`, `setpriv …`) and must end by
    /// exec-ing it, so that the child's pid is the daemon's; `binary` replaces the built daemon.
    init(
        stateDirectory: String, device: String = "st_acc_switch", catalog: String = Microphones.catalogPath,
        extra: [String] = [], environment: [String: String] = [:], config: String = "/dev/null",
        stdin: String = "/dev/null", launcher: [String] = [], binary: String = DaemonProcess.binary
    ) throws {
        let mics = Microphones.shared
        self.stateDirectory = stateDirectory
        try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true)
        logPath = stateDirectory + ".log"
        outputPath = stateDirectory + ".out"
        var env = mics.environment
        for (key, value) in environment { env[key] = value }
        let command =
            launcher + [
                binary, "--config", config, "--no-gpio", "--port", "0", "--state-dir", stateDirectory,
                "--device", device, "--catalog", catalog
            ] + extra
        child = try ChildProcess(
            path: command[0], arguments: Array(command.dropFirst()),
            environment: env, stdin: stdin, stdout: outputPath, stderr: logPath)
        let deadline = ProtocolConnection.now() + 15_000
        var found: Int?
        while found == nil, ProtocolConnection.now() < deadline {
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            if let range = log.range(of: #"serving protocol 1 on \S+ port (\d+)"#, options: .regularExpression) {
                found = Int(log[range].split(separator: " ").last ?? "")
            } else if !child.isRunning {
                throw TestFailure("soundtraced exited before serving: \(log)")
            } else {
                usleep(20_000)
            }
        }
        guard let found else {
            throw TestFailure("soundtraced did not serve within 15 s: \((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")")
        }
        port = found
    }

    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// A protocol client; `networkNamespace` (a path such as `/run/netns/NAME`) connects from there.
    func connect(host: String = "127.0.0.1", networkNamespace: String? = nil) throws -> ProtocolConnection {
        try ProtocolConnection(host: host, port: port, networkNamespace: networkNamespace)
    }

    /// SIGTERM and the exit status.
    @discardableResult
    func stop() -> Int32 {
        child.send(SIGTERM)
        return child.waitForExit()
    }

    /// A fresh state folder for one test.
    static func stateDirectory(_ name: String) -> String {
        Microphones.shared.directory + "/daemon-\(name)-\(UUID().uuidString.prefix(8))"
    }
}
