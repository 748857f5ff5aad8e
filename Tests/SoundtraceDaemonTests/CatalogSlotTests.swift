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
        #expect(problem.hasPrefix("catalog \(ApplianceSessionTests.root)/catalog/no-such.catalog does not exist; rebuild it with `"))
    }

    /// After an upgrade that changed the format, the owner's own catalog is refused with the
    /// daemon's advice, once (the reader's shorter advice is left out).
    @Test(arguments: [
        CatalogError.unsupportedFormatVersion(
            path: "/srv/c.catalog", found: CatalogFile.formatVersion - 1, supported: CatalogFile.formatVersion),
        CatalogError.contentHashMismatch(path: "/srv/c.catalog")
    ])
    func anUnusableCatalogIsExplainedWithOneAdvice(error: CatalogError) throws {
        let problem = try #require(CatalogSlot.unusable(path: "/srv/c.catalog", error).problem)
        #expect(problem.ranges(of: "rebuild it with").count == 1, "\(problem)")
        #expect(problem.hasPrefix(error.problem + "; rebuild it with `soundtrace catalog build --out /srv/c.catalog`"))
        #expect(!error.problem.contains("rebuild") && !error.problem.hasSuffix(";"))
    }
}
