import Testing

@testable import SoundtraceTools

/// How `--json` types the values of protocol records.
@Suite struct ReplyJSONTests {
    @Test func jsonValuesAreTypedOnlyWhenTheyFit() {
        #expect(ReplyJSON.value("12.345", key: "offset") == "12.345")
        #expect(ReplyJSON.value("-0.250", key: "offset") == "-0.250")
        #expect(ReplyJSON.value("1e9", key: "offset") == "\"1e9\"")
        #expect(ReplyJSON.value("012", key: "offset") == "\"012\"")
        #expect(ReplyJSON.value("0", key: "offset") == "0")
        // Found by the reply fuzzer: a digit with a combining mark is one Character within "0"..."9".
        #expect(ReplyJSON.value("1\u{301}", key: "offset") == "\"1\u{301}\"")
        #expect(ReplyJSON.value("2.5\u{20DD}", key: "heard") == "\"2.5\u{20DD}\"")
        // A number no double holds stays a string, so every JSON reader can read what --json prints.
        #expect(
            ReplyJSON.value(String(repeating: "9", count: 15) + ".123456789", key: "offset") == String(repeating: "9", count: 15)
                + ".123456789")
        #expect(ReplyJSON.value(String(repeating: "9", count: 16), key: "offset") == "\"" + String(repeating: "9", count: 16) + "\"")
        #expect(
            ReplyJSON.value("1." + String(repeating: "5", count: 10), key: "duration") == "\"1." + String(repeating: "5", count: 10) + "\"")
        #expect(ReplyJSON.value("yes", key: "favorite") == "true")
        #expect(ReplyJSON.value("maybe", key: "favorite") == "\"maybe\"")
        #expect(ReplyJSON.key("catalog_hash") == "catalogHash")
        #expect(ReplyJSON.key("reference") == "referenceId")
    }
}
