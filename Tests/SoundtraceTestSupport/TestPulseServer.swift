import Foundation
import Glibc

/// A private PulseAudio server with one null sink, `vmic`, whose monitor is the simulated
/// microphone: audio played into `vmic` with `paplay` comes out of `vmic.monitor` in real time.
///
/// The server runs as a child of the test process (not daemonized) so that stopping it can be
/// waited for exactly; readiness is its own sd_notify "READY=1" on a socket the test listens on,
/// so nothing waits by sleeping. Its socket, cookie and logs stay in a private directory.
public final class TestPulseServer {
    /// Debian packages the PulseAudio tests need, named in the failure when something is missing.
    public static let packages = "pulseaudio, pulseaudio-utils, libasound2-plugins"

    public let name: String
    public let directory: String
    private var process: ChildProcess?

    /// Prepares (does not start) test server `name` whose socket, state and logs live in
    /// `directory` (its socket is `<directory>/pulse/native`).
    public init(_ name: String, directory: String) {
        self.name = name
        self.directory = directory
    }

    /// An ALSA PCM definition named `pcm` that reads this server's `vmic.monitor`.
    public func alsaDefinition(pcm: String) -> String {
        """
        pcm.\(pcm) {
            type pulse
            server "unix:\(directory)/pulse/native"
            device "vmic.monitor"
        }

        """
    }

    deinit {
        stop()
    }

    /// Why the PulseAudio tests cannot run here, if they cannot: a missing program or ALSA plugin.
    public static func missingRequirements() -> String? {
        var missing: [String] = []
        for program in ["pulseaudio", "paplay", "pactl"] where executable(program) == nil {
            missing.append("program '\(program)'")
        }
        let plugins = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib/arm-linux-gnueabihf", "/usr/lib64", "/usr/lib"]
            .map { "\($0)/alsa-lib/libasound_module_pcm_pulse.so" }
        if !plugins.contains(where: { access($0, R_OK) == 0 }) {
            missing.append("ALSA's pulse plugin (libasound_module_pcm_pulse.so)")
        }
        guard !missing.isEmpty else { return nil }
        return "missing \(missing.joined(separator: ", ")); install the Debian packages \(packages)"
    }

    /// The environment for this server and its clients (paplay, pactl).
    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = directory
        environment["HOME"] = directory
        environment["XDG_CONFIG_HOME"] = "\(directory)/config"
        environment["PULSE_SERVER"] = "unix:\(directory)/pulse/native"
        environment.removeValue(forKey: "NOTIFY_SOCKET")
        return environment
    }

    /// Starts the server and returns once it reported ready (at most `timeoutSeconds`).
    public func start(timeoutSeconds: Int = 10) throws {
        stop()
        mkdir(directory, 0o700)
        let notifyPath = "\(directory)/notify"
        let readiness = try NotifySocket(path: notifyPath)
        var environment = self.environment
        environment["NOTIFY_SOCKET"] = notifyPath
        let process = try ChildProcess(
            path: try Self.executable("pulseaudio").orThrow("pulseaudio is not installed"),
            arguments: [
                "-n", "--daemonize=no", "--exit-idle-time=-1", "--system=no",
                "--log-target=file:\(directory)/pulseaudio.log", "--log-level=notice",
                // The socket lives in a 0700 directory, so anonymous access reaches only this user.
                "--load=module-native-protocol-unix auth-anonymous=1",
                "--load=module-null-sink sink_name=vmic rate=16000 channels=1"
            ],
            environment: environment)
        self.process = process
        guard readiness.waitForReady(milliseconds: timeoutSeconds * 1_000) else {
            stop()
            throw TestFailure("PulseAudio did not report ready within \(timeoutSeconds) s; see \(directory)/pulseaudio.log")
        }
    }

    /// Ends the server the hard way (as a crash would) and waits until it is gone.
    public func kill() {
        guard let process else { return }
        process.send(SIGKILL)
        process.waitForExit()
        self.process = nil
    }

    /// Stops the server politely and waits until it is gone; harmless when not running.
    public func stop() {
        guard let process else { return }
        process.send(SIGTERM)
        process.waitForExit()
        self.process = nil
    }

    /// Starts a PulseAudio client (`paplay`, `pactl`) against this server and returns it running.
    public func client(_ program: String, _ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(
            path: try Self.executable(program).orThrow("\(program) is not installed"),
            arguments: arguments, environment: environment)
    }

    /// Runs a client to completion; throws unless it exits 0.
    public func run(_ program: String, _ arguments: [String]) throws {
        let status = try client(program, arguments).waitForExit()
        guard status == 0 else {
            throw TestFailure("\(program) \(arguments.joined(separator: " ")) exited with \(status)")
        }
    }

    public static func executable(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(program)" }.first { access($0, X_OK) == 0 }
    }
}

/// A failure with a message, for test helpers that throw.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension Optional {
    public func orThrow(_ message: String) throws -> Wrapped {
        guard let self else { throw TestFailure(message) }
        return self
    }
}

/// The receiving end of sd_notify: a Unix datagram socket a service reports "READY=1" to.
private final class NotifySocket {
    private let descriptor: Int32

    init(path: String) throws {
        unlink(path)
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            Glibc.close(descriptor)
            throw TestFailure("socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            Glibc.close(descriptor)
            throw TestFailure("bind \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        Glibc.close(descriptor)
    }

    /// Waits for a datagram containing READY=1.
    func waitForReady(milliseconds: Int) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(milliseconds)
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while ContinuousClock.now < deadline {
            let left = deadline - ContinuousClock.now
            let wait = Int32(left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000)
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, max(wait, 1)) > 0 else { continue }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { continue }
            let message = String(decoding: buffer.prefix(count), as: UTF8.self)
            if message.split(separator: "\n").contains("READY=1") { return true }
        }
        return false
    }
}
