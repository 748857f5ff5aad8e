import SoundtraceProtocol
import Testing

@testable import SoundtraceTools

/// One CLI run against a fake daemon following `steps`; checks the daemon's script was followed
/// exactly and returns the run and the lines the daemon received.
func converse(
    _ steps: [FakeDaemon.Step], _ args: [String], greeting: String = ProtocolText.greeting,
    variables: [String: String] = [:], stdinIsTerminal: Bool = false, stdoutIsTerminal: Bool = false,
    answer: String? = nil, interrupt: InterruptSignal = InterruptSignal(), limits: ProtocolClient.Limits = DaemonRun.testLimits,
    console: Console? = nil, sourceLocation: SourceLocation = #_sourceLocation
) throws -> (run: DaemonRun, received: [String]) {
    let daemon = try FakeDaemon(greeting: greeting, steps)
    let run = DaemonRun(
        args, port: daemon.port, variables: variables, stdinIsTerminal: stdinIsTerminal,
        stdoutIsTerminal: stdoutIsTerminal, answer: answer, interrupt: interrupt, limits: limits, console: console)
    daemon.stop()
    #expect(daemon.problems.isEmpty, "script not followed: \(daemon.problems); stderr: \(run.err)", sourceLocation: sourceLocation)
    return (run, daemon.received)
}

/// The same with plain request/reply pairs.
func converse(
    _ exchanges: [(String, String)], _ args: [String], greeting: String = ProtocolText.greeting,
    variables: [String: String] = [:], stdinIsTerminal: Bool = false, stdoutIsTerminal: Bool = false,
    answer: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
) throws -> (run: DaemonRun, received: [String]) {
    try converse(
        exchanges.map { FakeDaemon.Step(expect: $0.0, reply: .text($0.1)) }, args, greeting: greeting, variables: variables,
        stdinIsTerminal: stdinIsTerminal, stdoutIsTerminal: stdoutIsTerminal, answer: answer, sourceLocation: sourceLocation)
}
