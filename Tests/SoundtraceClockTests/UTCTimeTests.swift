import SoundtraceClock
import Testing

@Suite struct UTCTimeTests {
    @Test func everyFormOfOneMoment() {
        let moment: Int64 = 1_795_966_802_125  // 2026-11-29 15:40:02.125 UTC
        #expect(UTCTime.iso8601(unixMilliseconds: moment) == "2026-11-29T15:40:02.125Z")
        #expect(UTCTime.compact(unixMilliseconds: moment) == "20261129T154002Z")
        #expect(UTCTime.timeOfDay(unixMilliseconds: moment) == "15:40:02")
    }

    @Test func theEpochAndTheMillisecondBeforeIt() {
        #expect(UTCTime.iso8601(unixMilliseconds: 0) == "1970-01-01T00:00:00.000Z")
        // Floor division: one millisecond before 1970 is 23:59:59.999 of the day before, not 00:00:00.-01.
        #expect(UTCTime.iso8601(unixMilliseconds: -1) == "1969-12-31T23:59:59.999Z")
        #expect(UTCTime.timeOfDay(unixMilliseconds: -1) == "23:59:59")
        #expect(UTCTime.compact(unixMilliseconds: -1000) == "19691231T235959Z")
    }

    @Test func theFarthestTimesStillFormatWithoutTrapping() {
        // A corrupt or hostile timestamp (the history is a file) must not crash a reply.
        #expect(UTCTime.iso8601(unixMilliseconds: .max) == "292278994-08-17T07:12:55.807Z")
        #expect(UTCTime.iso8601(unixMilliseconds: .min).hasSuffix(".192Z"))
    }

    @Test func theClocksMoveForwardAndAgree() {
        let monotonic = SystemClock.monotonicNanoseconds()
        let wall = SystemClock.wallMilliseconds()
        #expect(SystemClock.monotonicNanoseconds() >= monotonic)
        #expect(SystemClock.monotonicMilliseconds() >= Int64(monotonic / 1_000_000))
        #expect(wall > 1_700_000_000_000, "the wall clock reads Unix time in milliseconds")
    }
}
