import Testing

@testable import SoundtraceCore

@Suite struct TokenThrottleTests {
    @Test func eachWrongTokenDoublesTheWaitOfTheNextFromThatAddressUpToACeiling() {
        var throttle = TokenThrottle(firstDelayMilliseconds: 1000, maxDelayMilliseconds: 8000, globalSpacingMilliseconds: 0)
        var now: Int64 = 0
        var waits: [Int64] = []
        for _ in 0..<6 {
            let turn = throttle.turn(for: "192.0.2.9", now: now)
            waits.append(turn - now)
            throttle.failed("192.0.2.9", answeredAt: turn)
            now = turn
        }
        #expect(waits == [0, 1000, 2000, 4000, 8000, 8000])
        #expect(throttle.turn(for: "198.51.100.7", now: now) == now)
        throttle.succeeded("192.0.2.9")
        #expect(throttle.turn(for: "192.0.2.9", now: now) == now)
    }

    @Test func manyAddressesTogetherStillWaitForTheSharedSpacing() {
        var throttle = TokenThrottle(globalSpacingMilliseconds: 100)
        for n in 0..<50 { throttle.failed("10.0.0.\(n)", answeredAt: 0) }
        #expect(throttle.turn(for: "10.0.1.1", now: 0) == 5_000)
    }

    @Test func itRemembersABoundedNumberOfAddresses() {
        var throttle = TokenThrottle(capacity: 4, globalSpacingMilliseconds: 0)
        for n in 0..<10 { throttle.failed("10.0.0.\(n)", answeredAt: Int64(n)) }
        // The quietest were forgotten, the latest are still held back.
        #expect(throttle.turn(for: "10.0.0.0", now: 100) == 100)
        #expect(throttle.turn(for: "10.0.0.9", now: 100) > 100)
    }

    @Test func onlyPowersOfTenOfWrongTokensAreLogged() {
        #expect((1...1000).filter(TokenThrottle.isWorthLogging) == [1, 10, 100, 1000])
    }
}
