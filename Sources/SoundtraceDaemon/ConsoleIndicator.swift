import Glibc
import SoundtraceCore

/// The indicator for machines without GPIO: one line per state change on stdout, naming what the
/// LEDs would show, so `soundtraced` on a laptop is a working kiosk.
final class ConsoleIndicator: StateIndicator {
    private let buttonHint: Bool
    private let gate: LogGate?

    /// `buttonHint`: say that Enter acts as the button (only when stdin is a terminal). `gate`: what
    /// the lines pass when stdout is a log rather than a screen (nil: every line is written).
    init(buttonHint: Bool, gate: LogGate?) {
        self.buttonHint = buttonHint
        self.gate = gate
    }

    func show(_ state: IndicatorState, calm: Bool, detail: String) {
        let mark: String
        switch state {
        case .idle: mark = "idle"
        case .listening: mark = "listening"
        case .match: mark = "MATCH"
        case .noMatch: mark = "no match"
        case .canceled: mark = "canceled"
        case .failure: mark = "FAILED"
        }
        var line = "[\(clockTime())] \(mark)"
        if !detail.isEmpty { line += " — \(detail)" }
        if calm { line += " (calm mode)" }
        if buttonHint, state != .listening { line += "  [Enter: listen]" } else if buttonHint { line += "  [Enter: cancel]" }
        emit(line)
    }

    func calmModeChanged(_ calm: Bool) {
        emit("[\(clockTime())] calm mode \(calm ? "on: LEDs steady" : "off")")
    }

    private func emit(_ line: String) {
        if let gate { gate.write(line) } else { DaemonLog.writeLine(line, to: 1) }
    }

    private func clockTime() -> String {
        var now = time_t(0)
        time(&now)
        var parts = tm()
        localtime_r(&now, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }
}
