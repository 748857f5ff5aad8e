import Foundation
import SoundtracePlatform
import SoundtraceProtocol
import SoundtraceTestSupport

@testable import SoundtraceTools

/// A scripted soundtraced for the client's tests: the real `LineServer` on a free loopback port,
/// answering each expected request line with a canned reply from docs/PROTOCOL.md, in order.
/// Whatever the client sends is recorded, so tests can assert the exact lines (quoting, token).
final class FakeDaemon: @unchecked Sendable {
    // @unchecked: `steps`, `received` and `mismatches` are guarded by `lock`; the server runs on
    // its own thread.

    enum Reply {
        /// Reply lines, sent as given (include the final `OK\n` or an ACK line).
        case text(String)
        /// No reply now (an `idle` that waits); the next step answers the next line.
        case hold
        /// Close the connection instead of answering.
        case close
        /// Send these lines (a partial reply), then close.
        case textThenClose(String)
    }

    struct Step {
        let expect: String
        let reply: Reply
        /// Runs when the line arrives, before the reply (e.g. raise Ctrl-C).
        var action: (@Sendable () -> Void)? = nil
    }

    let port: Int
    private let server: LineServer
    private let lock = NSLock()
    private var steps: [Step]
    private var receivedLines: [String] = []
    private var mismatches: [String] = []
    private let finished = DispatchSemaphore(value: 0)

    init(greeting: String = ProtocolText.greeting, _ steps: [Step]) throws {
        server = try LineServer(address: "127.0.0.1", port: 0, greeting: greeting)
        port = server.port
        self.steps = steps
        let thread = Thread { [self] in
            server.run { event in self.handle(event) }
            finished.signal()
        }
        thread.start()
    }

    /// Shorthand: each request answered with its reply text.
    convenience init(greeting: String = ProtocolText.greeting, _ exchanges: [(String, String)]) throws {
        try self.init(greeting: greeting, exchanges.map { Step(expect: $0.0, reply: .text($0.1)) })
    }

    private func handle(_ event: LineServer.Event) {
        guard case let .line(client, bytes) = event else { return }
        let line = String(decoding: bytes, as: UTF8.self)
        lock.lock()
        receivedLines.append(line)
        let step = steps.isEmpty ? nil : steps.removeFirst()
        if let step, step.expect != line { mismatches.append("expected '\(step.expect)', got '\(line)'") }
        if step == nil { mismatches.append("unexpected '\(line)'") }
        lock.unlock()
        guard let step, step.expect == line else {
            server.send("ACK [5@0] {} the fake daemon did not expect \"\(line)\"\n", to: client)
            return
        }
        step.action?()
        switch step.reply {
        case let .text(text): server.send(text, to: client)
        case .hold: break
        case .close: server.close(client)
        case let .textThenClose(text):
            server.send(text, to: client)
            server.close(client)
        }
    }

    /// Stops the server and waits for its thread.
    func stop() {
        server.stop()
        finished.wait()
    }

    var received: [String] {
        lock.lock()
        defer { lock.unlock() }
        return receivedLines
    }
    /// Script problems: lines that were not the expected ones, and steps never reached.
    var problems: [String] {
        lock.lock()
        defer { lock.unlock() }
        return mismatches + steps.map { "never received '\($0.expect)'" }
    }
}

/// Runs the CLI in-process against a daemon, with a scripted environment, and captures output.
struct DaemonRun {
    var out = ""
    var err = ""
    var status: ExitCode = .success

    static let testLimits: ProtocolClient.Limits = {
        var limits = ProtocolClient.Limits()
        // Bounds, not sleeps: a broken test fails in seconds instead of hanging.
        limits.connectTimeoutMilliseconds = 3_000
        limits.replyTimeoutMilliseconds = 3_000
        return limits
    }()

    init(
        _ args: [String], port: Int? = nil, variables: [String: String] = [:], stdinIsTerminal: Bool = false,
        stdoutIsTerminal: Bool = false, answer: String? = nil, interrupt: InterruptSignal = InterruptSignal(),
        limits: ProtocolClient.Limits = DaemonRun.testLimits, console given: Console? = nil
    ) {
        final class Box: @unchecked Sendable {
            var out = ""
            var err = ""
        }
        let box = Box()
        let console = given ?? Console(isInteractive: false, out: { box.out += $0 }, err: { box.err += $0 })
        var variables = variables
        if let port, variables["SOUNDTRACE_PORT"] == nil { variables["SOUNDTRACE_PORT"] = String(port) }
        var environment = ClientEnvironment(
            variables: variables, standardInputIsTerminal: stdinIsTerminal,
            standardOutputIsTerminal: stdoutIsTerminal, readAnswer: { answer },
            clock: ManualClock(0, wall: 1_795_966_802_375))  // 2026-11-29T15:40:02.375Z
        environment.interrupt = interrupt
        environment.limits = limits
        status = SoundtraceCLI.run(args, console: console, environment: environment)
        out = box.out
        err = box.err
    }
}
