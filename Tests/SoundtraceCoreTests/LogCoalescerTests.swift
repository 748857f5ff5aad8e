import Testing

@testable import SoundtraceCore

/// The log coalescer on a manual clock (times are milliseconds passed in; nothing sleeps).
@Suite struct LogCoalescerTests {
    static func limits(window: Int64 = 10_000, perKind: Int = 3, perWindow: Int = 30, summaryKinds: Int = 5) -> LogCoalescer.Limits {
        var limits = LogCoalescer.Limits()
        limits.windowMilliseconds = window
        limits.linesPerKind = perKind
        limits.linesPerWindow = perWindow
        limits.summaryKinds = summaryKinds
        return limits
    }

    @Test func numbersDoNotMakeADifferentKind() {
        #expect(LogCoalescer.kind(of: "session s-12 canceled") == "session s-# canceled")
        #expect(LogCoalescer.kind(of: "[15:40:02] listening — 10 s") == "[#:#:#] listening — # s")
        #expect(LogCoalescer.kind(of: "session s-12 canceled") != LogCoalescer.kind(of: "session s-12 failed"))
    }

    @Test func repeatsAreWrittenAFewTimesThenCountedAndSummarizedWhenTheWindowEnds() {
        var log = LogCoalescer(limits: Self.limits())
        var written: [String] = []
        for n in 1...10 { written += log.admit("session s-\(n) canceled", now: Int64(n)) }
        #expect(written == ["session s-1 canceled", "session s-2 canceled", "session s-3 canceled"])
        // The window opened with the first line, at 1 ms.
        #expect(log.deadline == 10_001)
        #expect(log.flush(now: 10_000) == [])
        #expect(log.flush(now: 10_001) == ["left out 7 more lines like \"session s-10 canceled\" within 10 s"])
        // Nothing is pending any more: no timer is needed until something is left out again.
        #expect(log.deadline == nil)
        #expect(log.admit("session s-11 canceled", now: 10_002) == ["session s-11 canceled"])
    }

    @Test func aQuietLogNeedsNoTimer() {
        var log = LogCoalescer(limits: Self.limits())
        #expect(log.admit("serving protocol 1", now: 0) == ["serving protocol 1"])
        #expect(log.admit("session s-1 listening", now: 5) == ["session s-1 listening"])
        #expect(log.deadline == nil)
        #expect(log.flush(now: 60_000) == [])
        #expect(log.deadline == nil)
    }

    @Test func theSummaryComesBeforeTheFirstLineAfterItsWindow() {
        var log = LogCoalescer(limits: Self.limits(perKind: 1))
        _ = log.admit("wrong token from 192.0.2.7", now: 0)
        #expect(log.admit("wrong token from 192.0.2.8", now: 100) == [])
        // No timer fired (a caller may not have one): the next line brings the summary along.
        #expect(log.admit("stopping", now: 12_000) == ["left out 1 more line like \"wrong token from 192.0.2.8\" within 10 s", "stopping"])
    }

    @Test func alternatingKindsAreEachCounted() {
        // listen/cancel churn alternates two kinds: "repeated" must not mean "the same as the last line".
        var log = LogCoalescer(limits: Self.limits(perKind: 2))
        var written: [String] = []
        for n in 1...100 {
            written += log.admit("session s-\(n) listening on default", now: Int64(n))
            written += log.admit("session s-\(n) canceled", now: Int64(n))
        }
        #expect(written.count == 4)
        #expect(
            log.finish() == [
                "left out 98 more lines like \"session s-100 listening on default\" within 10 s",
                "left out 98 more lines like \"session s-100 canceled\" within 10 s"
            ])
    }

    @Test func aWindowWritesAtMostItsCapWhateverTheKinds() {
        var log = LogCoalescer(limits: Self.limits(perKind: 5, perWindow: 4, summaryKinds: 2))
        let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett"]
        var written: [String] = []
        for (index, word) in words.enumerated() { written += log.admit("\(word) happened", now: Int64(index)) }
        #expect(written == ["alpha happened", "bravo happened", "charlie happened", "delta happened"])
        #expect(
            log.finish() == [
                "left out 1 more line like \"echo happened\" within 10 s",
                "left out 1 more line like \"foxtrot happened\" within 10 s",
                "left out 4 more lines of other kinds within 10 s"
            ])
    }

    @Test func kindsBeyondTheTableAreStillCounted() {
        var limits = Self.limits(perWindow: 2)
        limits.kindsTracked = 4
        var log = LogCoalescer(limits: limits)
        let letters = "abcdefghijklmnopqrstuvwxyz".map(String.init)
        var written = 0
        for letter in letters { written += log.admit("kind \(letter)", now: 0).count }
        #expect(written == 2)
        let summary = log.finish()
        #expect(summary.count == 3)
        #expect(summary.last == "left out 22 more lines of other kinds within 10 s")
    }

    @Test func churnForAMinuteStaysUnderTheBoundPerWindow() {
        // 1000 lines a second of three kinds for 60 s, with a timer that fires at each deadline.
        let limits = LogCoalescer.Limits()
        var log = LogCoalescer(limits: limits)
        var written = 0
        var leftOut = 0
        for millisecond in stride(from: Int64(0), to: 60_000, by: 1) {
            if let due = log.deadline, millisecond >= due {
                let summary = log.flush(now: millisecond)
                written += summary.count
                leftOut += summary.compactMap { Int($0.split(separator: " ")[2]) }.reduce(0, +)
            }
            let kind = ["session s-\(millisecond) listening", "session s-\(millisecond) canceled", "[12:00:00] idle"][Int(millisecond % 3)]
            written += log.admit(kind, now: millisecond).count
        }
        let summary = log.finish()
        written += summary.count
        leftOut += summary.compactMap { Int($0.split(separator: " ")[2]) }.reduce(0, +)
        // Six windows of 10 s, each at most its cap, instead of 60,000 lines; every line accounted for.
        #expect(written <= 6 * limits.maxLinesPerWindow)
        #expect(written - 6 * 3 + leftOut == 60_000, "written \(written), left out \(leftOut)")
    }
}
