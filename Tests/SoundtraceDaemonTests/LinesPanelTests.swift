import Foundation
import Glibc
import SoundtraceCore
import SoundtraceStore
import SoundtraceTestSupport
import Testing

@testable import SoundtraceDaemon
@testable import SoundtracePlatform

/// The GPIO panel's logic end to end with a manual clock and fake lines: raw button edges in,
/// the appliance's reactions, and the LED and buzzer levels written over time. The rig runs the
/// panel exactly as the daemon's main loop does: at each edge and each deadline, and again at
/// once when the appliance's state change woke it.
@Suite(.serialized) struct LinesPanelTests {
    /// Every file a test writes, removed when the test ends.
    private let scratch: TemporaryFolder

    init() throws { scratch = try TemporaryFolder("soundtrace-panel-tests") }

    /// Lines that record every write with the manual time and hand out scripted edges.
    final class FakeLines: PanelLines {
        let clock: ManualClock
        let debouncedEdges: Bool
        var available: [ButtonEdge] = []
        var writes: [(Int64, PanelLevels)] = []
        var failReads = false
        init(clock: ManualClock, debounced: Bool) {
            self.clock = clock
            debouncedEdges = debounced
        }
        var buttonDescriptor: Int32 { 99 }
        func readButtonEdges() throws(PanelLinesFault) -> [ButtonEdge] {
            if failReads { throw PanelLinesFault("the line went away") }
            defer { available = [] }
            return available
        }
        func buttonIsPressed() throws(PanelLinesFault) -> Bool { false }
        func set(_ levels: PanelLevels) throws(PanelLinesFault) { writes.append((clock.now, levels)) }
    }

    /// Records the states the appliance shows and passes them on to the panel.
    final class Tee: StateIndicator, @unchecked Sendable {
        // @unchecked: the records are touched only while `lock` is held: the appliance shows
        // states from whichever thread ended a session (a capture thread too) while the test reads.
        // Readers get copies in buffers of their own (see LineServerTests.Recorder for why).
        let next: StateIndicator
        private let lock = NSLock()
        private var shown: [IndicatorState] = []
        private var calmToggles: [Bool] = []
        var states: [IndicatorState] { lock.withLock { shown.map { $0 } } }
        var calmChanges: [Bool] { lock.withLock { calmToggles.map { $0 } } }
        init(_ next: StateIndicator) { self.next = next }
        func show(_ state: IndicatorState, calm: Bool, detail: String) {
            lock.withLock { shown.append(state) }
            next.show(state, calm: calm, detail: detail)
        }
        func calmModeChanged(_ calm: Bool) {
            lock.withLock { calmToggles.append(calm) }
            next.calmModeChanged(calm)
        }
    }

    final class WakeCount: @unchecked Sendable {
        // @unchecked: `wakes` is touched only while `lock` is held. The mailbox wakes the loop
        // from whichever thread posted a change (after releasing its own lock).
        private let lock = NSLock()
        private var wakes = 0
        var count: Int { lock.withLock { wakes } }
        func increment() { lock.withLock { wakes += 1 } }
    }

    final class Rig {
        let clock = ManualClock()
        let lines: FakeLines
        let panel: LinesPanel
        let tee: Tee
        let appliance: Appliance
        let wakes = WakeCount()
        let channel = ApplianceProtocolTests.RecordingChannel()
        var edges: [ButtonEdge] = []

        init(
            debounced: Bool = false, muted: Bool = false, store: HistoryStore? = nil, microphone: (any AudioSource & Sendable)? = nil,
            readyAt: Int64? = 0
        ) {
            lines = FakeLines(clock: clock, debounced: debounced)
            let wakes = self.wakes
            panel = LinesPanel(lines: lines, muted: muted, wake: { wakes.increment() })
            tee = Tee(panel.indicator)
            let clock = self.clock
            let environment = Appliance.Environment(
                device: "scripted", settings: .standard, token: nil,
                makeSource: { _ in microphone ?? ApplianceSessionTests.ScriptedMicrophone(samples: [], fault: .busy(device: "scripted")) },
                clock: clock, timersChanged: {})
            let catalog =
                microphone == nil
                ? CatalogSlot(path: "/nowhere.catalog", catalog: nil, problem: "no file")
                : CatalogSlot(path: "sample", catalog: ApplianceSessionTests.catalog, problem: nil)
            appliance = Appliance(
                environment: environment, channel: channel, indicator: tee, catalog: catalog,
                store: store, storeProblem: store == nil ? "not opened in this test" : nil)
            if let readyAt { panel.becomeReady(at: readyAt) }
        }

        /// Queues raw edges (ms, pressed).
        func press(_ list: [(Int64, Bool)]) {
            edges += list.map { ButtonEdge(pressed: $0.1, at: $0.0) }
        }

        /// Runs the panel like the main loop until `end`.
        func run(until end: Int64) {
            while true {
                let nextEdge = edges.first?.at
                guard let time = [nextEdge, panel.deadline].compactMap({ $0 }).min(), time <= end else { break }
                clock.now = max(clock.now, time)
                while let edge = edges.first, edge.at <= clock.now {
                    lines.available.append(edge)
                    edges.removeFirst()
                }
                turn(readable: !lines.available.isEmpty)
            }
            clock.now = end
            turn(readable: false)
        }

        /// One turn of the loop, and another at once for every wake the appliance caused.
        func turn(readable: Bool) {
            var readable = readable
            repeat {
                let before = wakes.count
                for gesture in panel.service(now: clock.now, readable: readable) {
                    switch gesture {
                    case .shortPress: appliance.buttonPressed()
                    case .hold: appliance.toggleCalmMode()
                    }
                }
                readable = false
                if wakes.count == before { break }
            } while true
        }

        /// Times at which the buzzer switched on.
        var buzzerOnsets: [Int64] {
            var onsets: [Int64] = []
            var previous = false
            for (time, levels) in lines.writes {
                if levels.buzzer && !previous { onsets.append(time) }
                previous = levels.buzzer
            }
            return onsets
        }

        func levels(at time: Int64) -> PanelLevels {
            lines.writes.last { $0.0 <= time }?.1 ?? .dark
        }
    }

    @Test(arguments: [false, true])
    func aBouncingPressIsOnePressAndTheFailureIsShownOnce(debounced: Bool) {
        let rig = Rig(debounced: debounced)
        // No catalog: a press fails at once, which shows that it arrived, and how often.
        if debounced {
            rig.press([(100, true), (250, false)])
        } else {
            rig.press([(100, true), (102, false), (104, true), (107, false), (109, true), (250, false), (251, true), (253, false)])
        }
        rig.run(until: 3000)
        #expect(rig.tee.states == [.failure])
        let shownAt: Int64 = debounced ? 250 : 283
        // Failure: three 200 ms beeps 150 ms apart, once; the LEDs take turns every 0.5 s.
        #expect(rig.buzzerOnsets == [shownAt, shownAt + 350, shownAt + 700])
        #expect(rig.levels(at: shownAt + 10) == PanelLevels(listening: true, result: false, buzzer: true))
        #expect(rig.levels(at: shownAt + 560) == PanelLevels(listening: false, result: true, buzzer: false))
        #expect(rig.levels(at: shownAt + 1010) == PanelLevels(listening: true, result: false, buzzer: false))
    }

    @Test func aHoldTogglesCalmModePersistsItAndConfirmsWithTheCalmTone() throws {
        let directory = scratch.path + "/\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = try HistoryStore.open(path: directory + "/history.db").store
        let rig = Rig(store: store)
        let client = LineServer.Client(id: 1, isLoopback: true, peer: "127.0.0.1:50000")
        rig.appliance.clientConnected(client)
        rig.appliance.clientLine(client, Array("idle state".utf8))
        rig.press([(1000, true), (1003, false), (1005, true), (3000, false)])
        rig.run(until: 5000)
        #expect(rig.tee.calmChanges == [true])
        #expect(rig.tee.states.isEmpty, "the hold's release is not also a press")
        #expect(try store.isCalmModeOn())
        #expect(rig.channel.take(client) == ["changed: state\nOK\n"])
        #expect(rig.appliance.state.withLock { $0.statusPairs() }.contains { $0 == ("calm", "yes") })
        // The confirmation: three 60 ms ticks from the moment the hold was recognised (1005 + 1500).
        #expect(rig.buzzerOnsets == [2505, 2625, 2745])
        // Calm mode survives a restart: a new appliance on the same store starts calm.
        let restarted = Rig(store: store)
        #expect(restarted.appliance.state.withLock { $0.calm })
        // A second hold turns it off again.
        rig.press([(6000, true), (8000, false)])
        rig.run(until: 9000)
        #expect(rig.tee.calmChanges == [true, false])
        #expect(try !store.isCalmModeOn())
    }

    @Test func inCalmModeTheStatesAreSteady() throws {
        let directory = scratch.path + "/\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = try HistoryStore.open(path: directory + "/history.db").store
        try store.setCalmMode(true)
        let rig = Rig(store: store)
        rig.press([(100, true), (200, false)])
        rig.run(until: 10_000)
        #expect(rig.tee.states == [.failure])
        // Failure in calm mode: both LEDs on from the start and never off, no flashing.
        let lights = rig.lines.writes.filter { $0.0 >= 230 }.map { ($0.1.listening, $0.1.result) }
        #expect(lights.allSatisfy { $0 == (true, true) })
        #expect(rig.buzzerOnsets.count == 3)
    }

    @Test func mutedSoundsNothingButTheLEDsStillShow() {
        let rig = Rig(muted: true)
        rig.press([(100, true), (200, false)])
        rig.run(until: 3000)
        #expect(rig.buzzerOnsets.isEmpty)
        #expect(rig.lines.writes.contains { $0.1.listening } && rig.lines.writes.contains { $0.1.result })
    }

    @Test func aPressWhileListeningCancelsTheSession() throws {
        let microphone = ApplianceSessionTests.ScriptedMicrophone(samples: [], pace: 100_000)
        let rig = Rig(microphone: microphone)
        rig.press([(100, true), (180, false)])
        rig.run(until: 1500)
        #expect(rig.tee.states == [.listening])
        // Listening: the listening LED blinks once a second, with one 80 ms beep at the start.
        #expect(rig.buzzerOnsets == [210])
        #expect(rig.levels(at: 220).listening && !rig.levels(at: 800).listening && rig.levels(at: 1300).listening)
        rig.press([(1500, true), (1504, false), (1506, true), (1600, false)])
        rig.run(until: 4000)
        #expect(rig.tee.states == [.listening, .canceled])
        // Canceled: one 200 ms flash of the listening LED then dark; two 40 ms clicks.
        #expect(rig.buzzerOnsets == [210, 1630, 1790])
        #expect(rig.levels(at: 1700).listening && rig.levels(at: 4000) == .dark)
        #expect(rig.panel.deadline == nil, "dark and silent: nothing left to wake for")
        for _ in 0..<500 where rig.appliance.state.withLock({ $0.captureToken != nil }) { usleep(10_000) }
        #expect(microphone.closed == 1)
    }

    @Test func pressesDuringStartUpAreIgnored() {
        let rig = Rig(readyAt: nil)
        // Pressed and released while the daemon was starting; the edges are read only later.
        rig.press([(100, true), (300, false)])
        rig.panel.becomeReady(at: 1000)
        rig.press([(1500, true), (1600, false)])
        rig.run(until: 3000)
        #expect(rig.tee.states == [.failure])
        #expect(rig.buzzerOnsets.first == 1630)
    }

    @Test func anIdlePanelSchedulesNothingAndWritesOnlyChanges() {
        let rig = Rig()
        rig.appliance.state.withLock { $0.showIndicator(.idle, detail: "ready") }
        rig.run(until: 60_000)
        #expect(rig.panel.deadline == nil)
        // One write when the panel opened (all dark); idle changes nothing after it.
        #expect(rig.lines.writes.count == 1 && rig.lines.writes.first?.1 == .dark)
        #expect(rig.wakes.count == 1)
        var previous: PanelLevels?
        rig.press([(100, true), (200, false)])
        rig.run(until: 10_000)
        for (_, levels) in rig.lines.writes {
            #expect(levels != previous)
            previous = levels
        }
    }

    @Test func aButtonThatFailsIsNoLongerWatchedAndTheLightsStillWork() {
        let rig = Rig()
        rig.lines.failReads = true
        #expect(rig.panel.service(now: 10, readable: true).isEmpty)
        #expect(rig.panel.pollDescriptor == -1)
        rig.appliance.buttonPressed()
        rig.run(until: 100)
        #expect(rig.levels(at: 100).listening)
        rig.panel.close()
        #expect(rig.lines.writes.last?.1 == .dark)
    }
}

extension LinesPanelTests {
    @Test func statusNamesThePanelAndWhyGPIOIsNotUsed() {
        let rig = Rig()
        var status = rig.appliance.state.withLock { $0.statusPairs() }
        #expect(status.contains { $0 == ("panel", "console") } && !status.contains { $0.0 == "panel_error" })
        rig.appliance.state.withLock {
            $0.panelKind = "console"
            $0.panelProblem = "no GPIO chip: /dev has no gpiochip* device"
        }
        status = rig.appliance.state.withLock { $0.statusPairs() }
        #expect(status.contains { $0 == ("panel_error", "no GPIO chip: /dev has no gpiochip* device") })
    }

    @Test func aButtonThatSignalsWithoutEdgesIsDroppedRatherThanSpunOn() {
        let rig = Rig()
        for turn in 0..<LinesPanel.maxEmptyReads {
            #expect(rig.panel.pollDescriptor == 99, "still watched after \(turn) empty reads")
            _ = rig.panel.service(now: Int64(turn), readable: true)
        }
        #expect(rig.panel.pollDescriptor == -1)
    }
}
