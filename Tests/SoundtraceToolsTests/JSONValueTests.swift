import Testing

@testable import SoundtraceTools

@Suite struct JSONValueTests {
    private func parse(_ text: String) throws(JSONValue.ParseError) -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    @Test func everyKindOfValueArrivesAsItWasWritten() throws {
        let value = try parse(
            #"{"s": "a\u00e9\n", "i": -9223372036854775808, "r": 1.5, "t": true, "f": false, "n": null, "a": [1, [2]], "o": {}}"#)
        #expect(
            value
                == .object([
                    "s": .string("aé\n"), "i": .integer(Int64.min), "r": .real(1.5), "t": .bool(true), "f": .bool(false),
                    "n": .null, "a": .array([.integer(1), .array([.integer(2)])]), "o": .object([:])
                ]))
        // A lazy sequence is not contiguous: copied first, same answer.
        #expect(try JSONValue.parse(Array("[7]".utf8).lazy.map { $0 }) == .array([.integer(7)]))
    }

    @Test(arguments: [
        ("", "line 1, column 0"),
        ("{\"a\": 1, \"a\": 2}", "duplicate object key"),
        ("[1] [2]", "end of file expected"),
        ("[\"\\u0000\"]", "NUL"),
        ("[99999999999999999999999]", "too big"),
        ("[1e999]", "overflow"),
        ("{\"a\": ", "line 1, column 6")
    ])
    func refusalsSayWhereAndWhy(text: String, expected: String) {
        #expect(throws: JSONValue.ParseError.self) { try parse(text) }
        do {
            _ = try parse(text)
        } catch {
            #expect(error.description.contains(expected), "\(error.description)")
        }
    }

    @Test func invalidUTF8AndDeepNestingAreRefusedNotCrashedOn() {
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse([0x5B, 0x22, 0xC3, 0x28, 0x22, 0x5D]) }  // ["\xC3("]
        #expect(throws: JSONValue.ParseError.self) { try parse(String(repeating: "[", count: 100_000)) }
        let deepest = String(repeating: "[", count: 2048) + String(repeating: "]", count: 2048)
        #expect((try? parse(deepest)) != nil)
    }
}
