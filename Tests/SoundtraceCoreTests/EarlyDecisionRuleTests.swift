import Testing

@testable import SoundtraceCore

@Suite struct EarlyDecisionRuleTests {
    let rule = EarlyDecisionRule()
    let song = ScriptedRecognizer.song

    func weakMatch(heard: Int, confirmedTwice: Bool) -> RecognizerSnapshot {
        RecognizerSnapshot(
            isMatch: true, reference: song, offsetMilliseconds: 12_000, score: 11, runnerUpScore: 5,
            peaks: 100, heardMilliseconds: heard, confirmedTwice: confirmedTwice)
    }

    @Test func aWeakMatchWaitsForTheWindowUnlessConfirmedTwice() {
        let weak = [weakMatch(heard: 2750, confirmedTwice: false), weakMatch(heard: 3000, confirmedTwice: false)]
        #expect(!rule.isConfident(weak))
        let confirmed = [weakMatch(heard: 2750, confirmedTwice: false), weakMatch(heard: 3000, confirmedTwice: true)]
        #expect(rule.isConfident(confirmed))
    }

    @Test func confirmationNeverMakesANoMatchOrTooLittleAudioConfident() {
        let early = [weakMatch(heard: 500, confirmedTwice: true), weakMatch(heard: 750, confirmedTwice: true)]
        #expect(!rule.isConfident(early))
        let notAMatch = RecognizerSnapshot(
            isMatch: false, reference: song, offsetMilliseconds: 0, score: 3, runnerUpScore: 3,
            peaks: 100, heardMilliseconds: 4000, confirmedTwice: true)
        #expect(!rule.isConfident([weakMatch(heard: 3750, confirmedTwice: false), notAMatch]))
    }

    @Test func strongStableMatchesStillDecideAsBefore() {
        let strong = [ScriptedRecognizer.match(score: 40, heard: 1500), ScriptedRecognizer.match(score: 44, heard: 1750)]
        #expect(rule.isConfident(strong))
    }

    /// A match heard deep in noise is named only by the window's final verdict, however strong
    /// and however often confirmed before it.
    @Test func aMatchThatWaitsForTheWindowNeverStopsASessionEarly() {
        func deep(heard: Int) -> RecognizerSnapshot {
            RecognizerSnapshot(
                isMatch: true, reference: song, offsetMilliseconds: 12_000, score: 44, runnerUpScore: 3,
                peaks: 100, heardMilliseconds: heard, confirmedTwice: true, waitsForWindow: true)
        }
        #expect(!rule.isConfident([deep(heard: 4000), deep(heard: 4250)]))
        // Once the latest look no longer waits, the rule decides as before.
        #expect(rule.isConfident([deep(heard: 4000), weakMatch(heard: 4250, confirmedTwice: true)]))
    }
}

extension EarlyDecisionRuleTests {
    /// A match from a catalog whose content check is still running is not named early, however
    /// strong; the first look after the check passed decides as before.
    @Test func aMatchAwaitingTheCatalogCheckNeverStopsASessionEarly() {
        func awaiting(heard: Int) -> RecognizerSnapshot {
            RecognizerSnapshot(
                isMatch: true, reference: song, offsetMilliseconds: 12_000, score: 44, runnerUpScore: 3,
                peaks: 100, heardMilliseconds: heard, confirmedTwice: true, awaitsCatalogCheck: true)
        }
        #expect(!rule.isConfident([awaiting(heard: 4000), awaiting(heard: 4250)]))
        let checked = RecognizerSnapshot(
            isMatch: true, reference: song, offsetMilliseconds: 12_000, score: 44, runnerUpScore: 3,
            peaks: 100, heardMilliseconds: 4500)
        #expect(rule.isConfident([awaiting(heard: 4250), checked]))
    }
}
