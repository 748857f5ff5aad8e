import SoundtraceStore
import Testing

/// Every input is checked at the store's boundary; refused input writes nothing.
@Suite struct InputValidationTests {
    static let tooLong = String(repeating: "x", count: 201)

    static let refused: [(field: String, match: NewRecognition)] = [
        ("sessionId", Fixture.recognition(session: "")),
        ("sessionId", Fixture.recognition(session: String(repeating: "s", count: 65))),
        ("sessionId", Fixture.recognition(session: "has space")),
        ("sessionId", Fixture.recognition(session: "sé")),
        ("sessionId", Fixture.recognition(session: "a;DROP TABLE event")),
        ("referenceId", Fixture.recognition(session: "ok", reference: "Upper-Case")),
        ("referenceId", Fixture.recognition(session: "ok", reference: "-leading")),
        ("referenceId", Fixture.recognition(session: "ok", reference: "ab")),
        ("referenceId", Fixture.recognition(session: "ok", reference: String(repeating: "r", count: 65))),
        ("matchedAt", Fixture.recognition(session: "ok", matchedAt: -1)),
        ("offsetMilliseconds", Fixture.recognition(session: "ok", offset: 172_800_001)),
        ("score", Fixture.recognition(session: "ok", score: -1)),
        ("title", Fixture.recognition(session: "ok", snapshot: Fixture.snapshot(title: ""))),
        ("title", Fixture.recognition(session: "ok", snapshot: Fixture.snapshot(title: tooLong))),
        ("title", Fixture.recognition(session: "ok", snapshot: Fixture.snapshot(title: "line\nbreak"))),
        ("title", Fixture.recognition(session: "ok", snapshot: Fixture.snapshot(title: "nul\u{0}byte"))),
        (
            "metadata",
            Fixture.recognition(
                session: "ok",
                snapshot: Fixture.snapshot(
                    metadata: (0...32).map { .init(key: "k\($0)", value: "v") }))
        ),
        ("metadata key", Fixture.recognition(session: "ok", snapshot: Fixture.snapshot(metadata: [.init(key: "", value: "v")]))),
        (
            "metadata value of \"k\"",
            Fixture.recognition(
                session: "ok",
                snapshot: Fixture.snapshot(
                    metadata: [.init(key: "k", value: String(repeating: "v", count: 501))]))
        ),
        ("catalogHash", Fixture.recognition(session: "ok", snapshot: Fixture.snapshot(catalogHash: Fixture.catalogHash.uppercased()))),
        ("catalogHash", Fixture.recognition(session: "ok", snapshot: Fixture.snapshot(catalogHash: String(Fixture.catalogHash.dropLast()))))
    ]

    @Test(arguments: refused.indices)
    func refusesBadInputWithATypedErrorAndWritesNothing(_ index: Int) throws {
        let (field, match) = Self.refused[index]
        try withTemporaryDirectory { directory in
            let store = try Fixture.open(directory + "/history.db")
            do throws(HistoryError) {
                _ = try store.recordMatch(match)
                Issue.record("accepted a bad \(field)")
            } catch {
                guard case let .invalidInput(reported, _) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(reported == field)
            }
            #expect(try store.eventCount() == 0)
        }
    }

    @Test func acceptsTheCatalogsLimitsExactly() throws {
        try withTemporaryDirectory { directory in
            let store = try Fixture.open(directory + "/history.db")
            let snapshot = Fixture.snapshot(
                title: String(repeating: "t", count: 200),
                metadata: (0..<32).map { number in
                    .init(
                        key: String(repeating: "k", count: 62) + (number < 10 ? "0\(number)" : "\(number)"),
                        value: String(repeating: "v", count: 500))
                })
            let match = Fixture.recognition(
                session: String(repeating: "S", count: 64), reference: String(repeating: "r", count: 64),
                offset: -172_800_000, score: 1_000_000_000, snapshot: snapshot)
            #expect(try store.recordMatch(match) == .recorded(eventId: 1))
            #expect(try store.event(id: 1)?.snapshot == snapshot)
        }
    }

    @Test func settingKeysAreValidated() {
        #expect(throws: HistoryError.self) { try SettingKey("") }
        #expect(throws: HistoryError.self) { try SettingKey("Calm") }
        #expect(throws: HistoryError.self) { try SettingKey("1st") }
        #expect(throws: HistoryError.self) { try SettingKey("a key") }
        #expect(throws: Never.self) { try SettingKey("led.brightness-max") }
    }
}
