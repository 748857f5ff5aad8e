import Testing

@testable import SoundtraceCore

@Suite struct IndicatorPatternTests {
    /// Off→on transitions of either LED within any one-second window of the looping pattern.
    func maxFlashesPerSecond(_ pattern: IndicatorPattern) -> Int {
        guard pattern.repeats else { return 0 }
        // Unroll three periods at 10 ms resolution and slide a one-second window.
        var timeline: [(Bool, Bool)] = []
        for _ in 0..<3 {
            for step in pattern.lights { timeline += Array(repeating: (step.listening, step.result), count: step.milliseconds / 10) }
        }
        var onsets: [Int] = []
        for i in 1..<timeline.count where (timeline[i].0 && !timeline[i - 1].0) || (timeline[i].1 && !timeline[i - 1].1) {
            onsets.append(i)
        }
        return onsets.map { start in onsets.filter { $0 >= start && $0 < start + 100 }.count }.max() ?? 0
    }

    @Test(arguments: IndicatorState.allCases)
    func noPatternFlashesMoreThanThreeTimesASecondAndCalmNeverFlashes(state: IndicatorState) {
        #expect(maxFlashesPerSecond(.pattern(for: state, calm: false, muted: false)) <= 3)
        let calm = IndicatorPattern.pattern(for: state, calm: true, muted: false)
        #expect(!calm.repeats)
        // Steady: at most one change of each LED, ending dark or lit — never on, off, on.
        for led in [\IndicatorPattern.Lights.listening, \IndicatorPattern.Lights.result] {
            let levels = calm.lights.map { $0[keyPath: led] }
            let changes = zip(levels, levels.dropFirst()).filter { $0 != $1 }.count
            #expect(changes <= 1)
        }
    }

    @Test func statesAreDistinctByLedAndRhythm() {
        let patterns = IndicatorState.allCases.map { IndicatorPattern.pattern(for: $0, calm: false, muted: false) }
        for i in patterns.indices {
            for j in patterns.indices where j > i {
                #expect(
                    patterns[i].lights != patterns[j].lights, "\(IndicatorState.allCases[i]) and \(IndicatorState.allCases[j]) look alike")
                if !patterns[i].tones.isEmpty || !patterns[j].tones.isEmpty {
                    #expect(patterns[i].tones != patterns[j].tones)
                }
            }
        }
    }

    @Test(arguments: IndicatorState.allCases)
    func theBuzzerSoundsOnceBrieflyAndNeverWhenMuted(state: IndicatorState) {
        let pattern = IndicatorPattern.pattern(for: state, calm: false, muted: false)
        #expect(pattern.tones.reduce(0) { $0 + $1.milliseconds } <= 1500)
        #expect(pattern.tones.last?.on ?? true)  // ends on its last tone: nothing loops or trails
        #expect(IndicatorPattern.pattern(for: state, calm: true, muted: true).tones.isEmpty)
    }
}

@Suite struct ButtonTests {
    /// Feeds raw edges (ms, pressed) and settles at every deadline, as the daemon's timer would.
    func gestures(_ edges: [(Int64, Bool)], readyAt: Int64 = 0, until end: Int64 = 10_000) -> [(ButtonGestures.Gesture, Int64)] {
        var debouncer = ButtonDebouncer()
        var gestures = ButtonGestures()
        var out: [(ButtonGestures.Gesture, Int64)] = []
        var ready = false
        func handle(_ change: ButtonChange?, at now: Int64) {
            if let change, let g = gestures.change(change) { out.append((g, now)) }
        }
        func advance(to time: Int64) {
            while true {
                let next = [debouncer.deadline, gestures.deadline].compactMap { $0 }.min()
                guard let due = next, due <= time else { break }
                if !ready && readyAt <= due {
                    gestures.becomeReady()
                    ready = true
                }
                handle(debouncer.settle(now: due), at: due)
                if let g = gestures.settle(now: due) { out.append((g, due)) }
            }
            if !ready && readyAt <= time {
                gestures.becomeReady()
                ready = true
            }
        }
        for (time, pressed) in edges {
            advance(to: time)
            handle(debouncer.edge(pressed: pressed, at: time), at: time)
        }
        advance(to: end)
        return out
    }

    @Test func aBouncingPressAndReleaseIsOneShortPress() {
        let bounces: [(Int64, Bool)] = [
            (100, true), (102, false), (104, true), (107, false), (109, true),
            (400, false), (401, true), (403, false)
        ]
        let result = gestures(bounces)
        #expect(result.map(\.0) == [.shortPress])
        #expect(result.first?.1 == 433)  // release accepted once stable for 30 ms
    }

    @Test func aHoldToggleFiresWhileHeldAndItsReleaseDoesNothing() {
        let result = gestures([(100, true), (1800, false)])
        #expect(result.map(\.0) == [.hold])
        #expect(result.first?.1 == 1600)
    }

    @Test func rapidPressesAreEachCountedAndNoReleaseIsDropped() {
        let result = gestures([(100, true), (180, false), (260, true), (340, false), (420, true), (500, false)])
        #expect(result.map(\.0) == [.shortPress, .shortPress, .shortPress])
    }

    @Test func glitchesShorterThanTheDebounceAreIgnored() {
        #expect(gestures([(100, true), (110, false), (500, true), (515, false)]).isEmpty)
    }

    @Test func pressesDuringStartUpAreIgnoredWithTheirRelease() {
        // Pressed while starting (ready at 1000), released after: nothing. The next press counts.
        let result = gestures([(500, true), (1200, false), (2000, true), (2100, false)], readyAt: 1000)
        #expect(result.map(\.0) == [.shortPress])
        #expect((result.first?.1 ?? 0) > 2000)
    }

    @Test func nothingIsPendingWhenTheButtonIsAtRest() {
        var debouncer = ButtonDebouncer()
        #expect(debouncer.deadline == nil)
        _ = debouncer.edge(pressed: true, at: 0)
        #expect(debouncer.deadline == 30)
        #expect(debouncer.settle(now: 30) == ButtonChange(pressed: true, at: 0))
        #expect(debouncer.deadline == nil)
    }
}
