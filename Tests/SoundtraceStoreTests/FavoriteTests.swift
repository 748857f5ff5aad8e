import SoundtraceStore
import SoundtraceTestSupport
import Testing

@Suite struct FavoriteTests {
    @Test func favoriteAndUnfavoriteAreIdempotentAndKeepTheFirstTime() throws {
        try withTemporaryDirectory { directory in
            let clock = ManualClock(wall: Fixture.now)
            let store = try HistoryStore.open(path: directory + "/history.db", clock: clock).store
            #expect(try store.setFavorite(referenceId: "harbor-lights-piano", true))
            clock.wall += 60_000
            #expect(try store.setFavorite(referenceId: "harbor-lights-piano", true) == false)
            #expect(try store.favorites() == [Favorite(referenceId: "harbor-lights-piano", favoritedAt: Fixture.now)])
            #expect(try store.isFavorite(referenceId: "harbor-lights-piano"))
            #expect(try store.setFavorite(referenceId: "harbor-lights-piano", false))
            #expect(try store.setFavorite(referenceId: "harbor-lights-piano", false) == false)
            #expect(try store.isFavorite(referenceId: "harbor-lights-piano") == false)
            #expect(try store.favorites().isEmpty)
        }
    }

    @Test func favoritesSurviveReopenNewestFirst() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/history.db"
            let clock = ManualClock(wall: Fixture.now)
            let store = try HistoryStore.open(path: path, clock: clock).store
            for (offset, reference) in ["first-ref", "second-ref", "third-ref"].enumerated() {
                clock.wall = Fixture.now + Int64(offset) * 1000
                try store.setFavorite(referenceId: reference, true)
            }
            try store.setFavorite(referenceId: "second-ref", false)
            store.close()

            let reopened = try Fixture.open(path)
            #expect(
                try reopened.favorites() == [
                    Favorite(referenceId: "third-ref", favoritedAt: Fixture.now + 2000),
                    Favorite(referenceId: "first-ref", favoritedAt: Fixture.now)
                ])
        }
    }

    @Test func refusesAMalformedReferenceId() throws {
        try withTemporaryDirectory { directory in
            let store = try Fixture.open(directory + "/history.db")
            #expect(throws: HistoryError.self) { try store.setFavorite(referenceId: "Not Valid", true) }
            #expect(throws: HistoryError.self) { try store.isFavorite(referenceId: "") }
            #expect(try store.favorites().isEmpty)
        }
    }
}
