import SoundtraceStore
import Testing

@Suite struct SettingTests {
    @Test func calmModeIsOffUntilSetAndSurvivesReopen() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/history.db"
            let store = try Fixture.open(path)
            #expect(try store.isCalmModeOn() == false)
            #expect(try store.setting(.calmMode) == nil)
            try store.setCalmMode(true)
            store.close()

            let reopened = try Fixture.open(path)
            #expect(try reopened.isCalmModeOn())
            #expect(try reopened.setting(.calmMode) == "on")
            try reopened.setCalmMode(false)
            #expect(try reopened.isCalmModeOn() == false)
        }
    }

    @Test func genericSettingsCanBeSetReplacedAndRemoved() throws {
        try withTemporaryDirectory { directory in
            let store = try Fixture.open(directory + "/history.db")
            let key = try SettingKey("led.brightness")
            try store.setSetting(key, "40")
            try store.setSetting(key, "80")
            #expect(try store.setting(key) == "80")
            try store.removeSetting(key)
            #expect(try store.setting(key) == nil)
        }
    }

    @Test func refusesAnOverlongOrControlCharacterValue() throws {
        try withTemporaryDirectory { directory in
            let store = try Fixture.open(directory + "/history.db")
            let key = try SettingKey("note")
            #expect(throws: HistoryError.self) { try store.setSetting(key, String(repeating: "v", count: 1001)) }
            #expect(throws: HistoryError.self) { try store.setSetting(key, "bell\u{7}") }
            #expect(try store.setting(key) == nil)
        }
    }
}
