import Foundation
import SoundtraceClock
import SoundtraceCore
import Testing

@testable import SoundtraceDaemon

/// The gate in front of the daemon's log, on a manual clock: it wakes the main loop only when a
/// summary becomes pending, and writes that summary when the loop comes back at its deadline.
@Suite struct LogGateTests {
    final class Rig: TimeSource, @unchecked Sendable {
        // @unchecked: one test thread uses it.
        var now: Int64 = 0
        var lines: [String] = []
        var wakes = 0
        func monotonicMilliseconds() -> Int64 { now }
        func wallMilliseconds() -> Int64 { 0 }
    }

    func gate(_ rig: Rig) -> LogGate {
        var limits = LogCoalescer.Limits()
        limits.linesPerKind = 2
        let gate = LogGate(limits: limits, clock: rig, output: { rig.lines.append($0) })
        gate.setWhenPending { rig.wakes += 1 }
        return gate
    }

    @Test func theLoopIsWokenOncePerWindowAndFlushesAtTheDeadline() {
        let rig = Rig()
        let gate = gate(rig)
        for n in 1...2 { gate.write("session s-\(n) canceled") }
        // Nothing left out yet: no deadline, no wake-up.
        #expect(gate.deadline == nil && rig.wakes == 0)
        for n in 3...50 {
            rig.now = Int64(n)
            gate.write("session s-\(n) canceled")
        }
        #expect(rig.wakes == 1)
        #expect(gate.deadline == 10_000)
        rig.now = 9_999
        gate.flushIfDue()
        #expect(rig.lines.count == 2)
        rig.now = 10_000
        gate.flushIfDue()
        #expect(
            rig.lines == [
                "session s-1 canceled", "session s-2 canceled",
                "left out 48 more lines like \"session s-50 canceled\" within 10 s"
            ])
        #expect(gate.deadline == nil)
    }

    @Test func flushWritesWhatIsPendingAtOnce() {
        let rig = Rig()
        let gate = gate(rig)
        for n in 1...3 { gate.write("session s-\(n) canceled") }
        gate.flush()
        #expect(rig.lines.last == "left out 1 more line like \"session s-3 canceled\" within 10 s")
        // A fresh window: the same kind is written again.
        gate.write("session s-4 canceled")
        #expect(rig.lines.last == "session s-4 canceled")
    }
}
