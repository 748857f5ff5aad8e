import Testing

@testable import SoundtraceCore

/// The indicator player over time with a manual clock: it is run from deadline to deadline, as
/// the daemon's loop runs it, and the level changes are checked against the pattern table.
@Suite struct IndicatorPlayerTests {
    /// The level changes from `start` until `end`, and how many times the player asked to be woken.
    func play(_ player: inout IndicatorPlayer, from start: Int64, until end: Int64) -> (changes: [(Int64, PanelLevels)], wakes: Int) {
        var changes = [(start, player.levels)]
        var wakes = 0
        var previous = start
        while let due = player.deadline, due <= end {
            #expect(due >= previous, "deadlines never go back")
            previous = due
            wakes += 1
            let levels = player.advance(to: due)
            if levels != changes.last?.1 { changes.append((due, levels)) }
        }
        return (changes, wakes)
    }

    func levels(_ text: String) -> PanelLevels {
        // "L+ R- B+" as `PanelLevels.description` writes it.
        let parts = text.split(separator: " ").map { $0.hasSuffix("+") }
        return PanelLevels(listening: parts[0], result: parts[1], buzzer: parts[2])
    }

    @Test func listeningBlinksTheListeningLEDOnceASecondAndBeepsOnce() {
        var player = IndicatorPlayer(muted: false)
        player.show(.listening, calm: false, at: 1000)
        let (changes, _) = play(&player, from: 1000, until: 3500)
        let expected: [(Int64, String)] = [
            (1000, "L+ R- B+"), (1080, "L+ R- B-"), (1500, "L- R- B-"), (2000, "L+ R- B-"),
            (2500, "L- R- B-"), (3000, "L+ R- B-"), (3500, "L- R- B-")
        ]
        #expect(changes.map(\.0) == expected.map(\.0))
        #expect(changes.map(\.1) == expected.map { levels($0.1) })
    }

    @Test func aMatchLightsTheResultLEDSteadyAfterTwoBeepsThenNothingWakes() {
        var player = IndicatorPlayer(muted: false)
        player.show(.match, calm: false, at: 0)
        let (changes, wakes) = play(&player, from: 0, until: 60_000)
        #expect(changes.map(\.0) == [0, 100, 200, 300])
        #expect(changes.map(\.1) == ["L- R+ B+", "L- R+ B-", "L- R+ B+", "L- R+ B-"].map(levels))
        #expect(wakes == 3)
        #expect(player.deadline == nil)
    }

    @Test func theIdlePlayerSchedulesNoDeadline() {
        var player = IndicatorPlayer(muted: false)
        #expect(player.deadline == nil && player.levels == .dark)
        player.show(.listening, calm: false, at: 0)
        player.show(.idle, calm: false, at: 10)
        #expect(player.levels == .dark)
        #expect(player.deadline == nil)
        player.show(.idle, calm: true, at: 20)
        #expect(player.deadline == nil)
    }

    @Test(arguments: IndicatorState.allCases, [false, true])
    func everyStateFollowsItsPatternWithinTheRules(state: IndicatorState, calm: Bool) {
        var player = IndicatorPlayer(muted: false)
        player.show(state, calm: calm, at: 0)
        let (changes, _) = play(&player, from: 0, until: 20_000)
        let pattern = IndicatorPattern.pattern(for: state, calm: calm, muted: false)
        // The buzzer: exactly the pattern's tones, once, within the first 1.5 s.
        let buzzerOn = changes.indices.filter { changes[$0].1.buzzer && ($0 == 0 || !changes[$0 - 1].1.buzzer) }.map { changes[$0].0 }
        #expect(buzzerOn.count == pattern.tones.filter(\.on).count)
        #expect(buzzerOn.allSatisfy { $0 < 1500 })
        #expect(!(changes.last?.1.buzzer ?? false))
        // Flashes: at most 3 LED onsets in any one-second window, none at all in calm mode after the first step.
        var onsets: [Int64] = []
        for index in changes.indices.dropFirst() {
            let before = changes[index - 1].1
            let now = changes[index].1
            if (now.listening && !before.listening) || (now.result && !before.result) { onsets.append(changes[index].0) }
        }
        for start in onsets { #expect(onsets.filter { $0 >= start && $0 < start + 1000 }.count <= 3) }
        if calm { #expect(onsets.isEmpty, "calm mode never turns an LED on after the state began") }
        // Repeating patterns keep going; the others stop waking once their lights and tones are done.
        #expect((player.deadline != nil) == pattern.repeats)
    }

    @Test(arguments: IndicatorState.allCases)
    func mutedNeverSoundsTheBuzzer(state: IndicatorState) {
        var player = IndicatorPlayer(muted: true)
        player.show(state, calm: false, at: 0)
        let (changes, _) = play(&player, from: 0, until: 10_000)
        #expect(changes.allSatisfy { !$0.1.buzzer })
        player.calmChanged(true, at: 10_000)
        #expect(!player.levels.buzzer)
    }

    @Test func aCalmToggleSoundsTheConfirmationAndMakesFlashingSteady() {
        var player = IndicatorPlayer(muted: false)
        player.show(.failure, calm: false, at: 0)
        _ = play(&player, from: 0, until: 5200)
        player.calmChanged(true, at: 5200)
        let (changes, _) = play(&player, from: 5200, until: 20_000)
        // Three 60 ms ticks 60 ms apart, with both LEDs steady (failure in calm mode) throughout.
        let ticks = changes.filter(\.1.buzzer).map(\.0)
        #expect(ticks == [5200, 5320, 5440])
        #expect(changes.allSatisfy { $0.1.listening && $0.1.result })
        #expect(player.deadline == nil)
    }

    @Test func aFinishedPatternStaysFinishedWhenCalmIsToggled() {
        var player = IndicatorPlayer(muted: false)
        player.show(.canceled, calm: false, at: 0)
        _ = play(&player, from: 0, until: 5000)
        #expect(player.levels == .dark && player.deadline == nil)
        player.calmChanged(true, at: 5000)
        let (changes, _) = play(&player, from: 5000, until: 10_000)
        #expect(changes.allSatisfy { !$0.1.listening && !$0.1.result })
    }

    @Test func aLittleLateOwnerStretchesTheTonesButDropsNoBeep() {
        var player = IndicatorPlayer(muted: false)
        player.show(.canceled, calm: false, at: 0)
        #expect(player.advance(to: 0).buzzer)
        // Woken 160 ms late, after the first click and the whole gap should have ended: the gap
        // starts now, so the second click still sounds, later.
        #expect(!player.advance(to: 200).buzzer)
        #expect(player.deadline == 320)
        #expect(player.advance(to: 320).buzzer)
        #expect(player.deadline == 360)
        #expect(!player.advance(to: 360).buzzer)
        // Tones over a second overdue are dropped: they would no longer mean the change.
        var stale = IndicatorPlayer(muted: false)
        stale.show(.failure, calm: false, at: 0)
        #expect(!stale.advance(to: 5_000).buzzer)
        let pending = stale.deadline
        #expect(pending == nil || pending! > 5_000)
    }

    @Test func aLateOwnerKeepsThePhaseOfARepeatingPattern() {
        var player = IndicatorPlayer(muted: false)
        player.show(.listening, calm: false, at: 0)
        // Woken an hour late (a suspended board): the blink is where it would have been.
        let late = player.advance(to: 3_600_000 + 250)
        #expect(late.listening && !late.buzzer)
        let next: Int64? = player.deadline
        #expect(next == Int64(3_600_500))
        #expect(!player.advance(to: 3_600_000 + 700).listening)
    }
}
