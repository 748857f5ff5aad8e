import Testing

@testable import SoundtraceDaemon
@testable import SoundtraceFingerprint

@Suite struct CatalogSlotTests {
    static let path = ApplianceSessionTests.root + "/catalog/soundtrace.catalog"

    @Test func theCountedBytesAreWhatAMatcherReserves() throws {
        let catalog = ApplianceSessionTests.catalog
        let matcher = try QueryMatcher(catalog: catalog)
        #expect(QueryMatcher.voteCounterBytes(for: catalog) == matcher.votes.bytes)
        // Nine speed hypotheses of the sample catalog's 12 minutes, and each reference's lead-in.
        #expect((400_000..<600_000).contains(matcher.votes.bytes))
    }

    @Test func aCatalogWhoseSessionsFitTheBudgetIsServed() throws {
        let needed = QueryMatcher.voteCounterBytes(for: ApplianceSessionTests.catalog)
        for limit in [nil, needed, SessionMemoryBudget.bytes] {
            let slot = CatalogSlot.load(path: Self.path, sessionMemoryLimit: limit)
            #expect(slot.catalog != nil && slot.problem == nil, "limit \(String(describing: limit))")
        }
        // This machine says how much memory it has, and a quarter of it holds the sample catalog's sessions.
        #expect((SessionMemoryBudget.bytes ?? 0) > needed)
    }

    @Test func aCatalogTooBigForThisMachinesMemoryIsRefusedWithTheFix() throws {
        let needed = QueryMatcher.voteCounterBytes(for: ApplianceSessionTests.catalog)
        let slot = CatalogSlot.load(path: Self.path, sessionMemoryLimit: needed - 1)
        #expect(slot.catalog == nil)
        let problem = try #require(slot.problem)
        #expect(problem.contains("each listening session would need 1 MB of memory"))
        #expect(problem.contains("more than the 1 MB (a quarter of this machine's memory)"))
        #expect(problem.contains("build a smaller catalog") && problem.contains("systemctl reload soundtraced"))
    }
}
