import Glibc
import SoundtraceCore

/// The indicator for machines without GPIO: one line per state change on stdout, naming what the
/// LEDs would show, so `soundtraced` on a laptop is a working kiosk.
final class ConsoleIndicator: StateIndicator {
    private let buttonHint: Bool

    /// `buttonHint`: say that Enter acts as the button (only when stdin is a terminal).
    init(buttonHint: Bool) {
        self.buttonHint = buttonHint
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
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    }

    func calmModeChanged(_ calm: Bool) {
        let line = "[\(clockTime())] calm mode \(calm ? "on: LEDs steady" : "off")\n"
        let bytes = Array(line.utf8)
        _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
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
