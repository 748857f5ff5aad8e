import Glibc
import SoundtraceCore

/// The simulated panel for machines without GPIO: the console indicator on stdout and, when stdin
/// is a terminal, Enter as a short press (there is no hold: calm mode stays as stored).
final class ConsolePanel: Panel {
    let indicator: StateIndicator
    private var watchStdin: Bool
    private var input = [UInt8](repeating: 0, count: 256)

    /// `consoleButton`: stdin is a terminal whose Enter acts as the button.
    init(consoleButton: Bool) {
        indicator = ConsoleIndicator(buttonHint: consoleButton)
        watchStdin = consoleButton
    }

    var pollDescriptor: Int32 { watchStdin ? 0 : -1 }
    var deadline: Int64? { nil }
    func becomeReady(at time: Int64) {}
    func close() {}

    func service(now: Int64, readable: Bool) -> [ButtonGestures.Gesture] {
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
