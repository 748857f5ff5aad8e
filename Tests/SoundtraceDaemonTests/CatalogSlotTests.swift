import Testing

@testable import SoundtraceDaemon
@testable import SoundtraceFingerprint

@Suite struct CatalogSlotTests {
    static let path = ApplianceSessionTests.root + "/catalog/soundtrace.catalog"

    @Test func theSampleCatalogIsServed() {
        let slot = CatalogSlot.load(path: Self.path)
        #expect(slot.catalog != nil && slot.problem == nil)
    }

    @Test func aMissingCatalogIsAProblemWithTheFix() throws {
        let slot = CatalogSlot.load(path: ApplianceSessionTests.root + "/catalog/no-such.catalog")
        #expect(slot.catalog == nil)
        let problem = try #require(slot.problem)
        #expect(problem.contains("soundtrace catalog build --out") && problem.contains("systemctl reload soundtraced"))
    }
}
