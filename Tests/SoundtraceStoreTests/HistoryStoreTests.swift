import Testing
import SoundtraceStore

@Test func linksSQLite() {
    #expect(HistoryStorePlaceholder.sqliteVersion.hasPrefix("3."))
}
