import Glibc
import SoundtraceClock
import SoundtraceCore
import SoundtracePlatform

/// The simulated panel for machines without GPIO: the console indicator on stdout and, when stdin
/// is a terminal, Enter as a short press (there is no hold: calm mode stays as stored).
final class ConsolePanel: Panel {
    let indicator: StateIndicator
    private var watchStdin: Bool
    private var input = [UInt8](repeating: 0, count: 256)
    /// On a terminal a person watches every state line; anywhere else (the journal under systemd,
    /// a file) the lines are a log, and a client churning listen/cancel must not flood it.
    private let gate: LogGate?

    /// `consoleButton`: stdin is a terminal whose Enter acts as the button. `wake`: makes the main
    /// loop look at `deadline` again (a state-line summary became pending).
    init(consoleButton: Bool, wake: @escaping @Sendable () -> Void) {
        gate =
            isatty(1) == 1
            ? nil
            : LogGate(
                clock: SystemTime(),
                output: { DaemonLog.writeLine($0, to: 1) })
        gate?.setWhenPending(wake)
        indicator = ConsoleIndicator(buttonHint: consoleButton, gate: gate)
        watchStdin = consoleButton
    }

    var pollDescriptor: Int32 { watchStdin ? 0 : -1 }
    var deadline: Int64? { gate?.deadline }
    func becomeReady(at time: Int64) {}
    func close() { gate?.flush() }

    func service(now: Int64, readable: Bool) -> [ButtonGestures.Gesture] {
        gate?.flushIfDue()
        guard readable, watchStdin else { return [] }
        let count = read(0, &input, input.count)
        guard count > 0 else {
            // End of input (or an error): stop watching rather than spin on it.
            watchStdin = false
            return []
        }
        return Array(repeating: .shortPress, count: input.prefix(count).filter { $0 == UInt8(ascii: "\n") }.count)
    }
}
