import Testing

@testable import SoundtraceDaemon

@Suite struct ProtocolValuesTests {
    @Test func timesAreUTCWithMilliseconds() {
        #expect(ProtocolValues.time(0) == "1970-01-01T00:00:00.000Z")
        #expect(ProtocolValues.time(1_795_966_802_125) == "2026-11-29T15:40:02.125Z")
        // Before 1970 the milliseconds still count forward within the second.
        #expect(ProtocolValues.time(-1) == "1969-12-31T23:59:59.999Z")
        #expect(ProtocolValues.humanTime(1_795_966_802_125) == "2026-11-29 at 15:40 UTC")
    }

    @Test func secondsHaveThreeDecimalsAndASign() {
        #expect(ProtocolValues.seconds(12_345) == "12.345")
        #expect(ProtocolValues.seconds(5) == "0.005")
        #expect(ProtocolValues.seconds(-250) == "-0.250")
        #expect(ProtocolValues.seconds(-12_345) == "-12.345")
        #expect(ProtocolValues.shortSeconds(12_349) == "12.3")
        #expect(ProtocolValues.shortSeconds(12_350) == "12.4")
        #expect(ProtocolValues.shortSeconds(-950) == "-1.0")
    }

    @Test func tokensCompareWholly() {
        #expect(Appliance.constantTimeEqual(Array("secret-token".utf8), Array("secret-token".utf8)))
        #expect(!Appliance.constantTimeEqual(Array("secret-token".utf8), Array("secret-tokeN".utf8)))
        #expect(!Appliance.constantTimeEqual(Array("secret".utf8), Array("secret-token".utf8)))
        #expect(!Appliance.constantTimeEqual(Array("secret-token-x".utf8), Array("secret-token".utf8)))
        #expect(!Appliance.constantTimeEqual([], Array("x".utf8)))
        #expect(Appliance.constantTimeEqual([], []))
    }
}
