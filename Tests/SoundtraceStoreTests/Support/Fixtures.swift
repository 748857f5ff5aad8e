import SoundtraceClock
import SoundtraceStore
import SoundtraceTestSupport

/// Deterministic inputs shared by the tests.
enum Fixture {
    /// 2026-11-29T14:05:01Z, the time every fixed-clock test runs at.
    static let now: Int64 = 1_795_961_101_000
    static let nowStamp = "20261129T140501Z"
    static let catalogHash = String(repeating: "0123456789abcdef", count: 4)

    /// Both clocks stopped at `now` (the history stamps with the wall clock).
    static var fixedClock: ManualClock { ManualClock(now, wall: now) }

    static func snapshot(
        title: String = "Harbor Lights",
        metadata: [ReferenceSnapshot.MetadataEntry] = [
            .init(key: "key", value: "D major"),
            .init(key: "instrumentation", value: "piano")
        ],
        catalogHash: String = catalogHash
    ) -> ReferenceSnapshot {
        ReferenceSnapshot(
            title: title, creator: "Soundtrace project", license: "CC0-1.0",
            sourceFile: "audio/harbor-lights-piano.wav", metadata: metadata, catalogHash: catalogHash)
    }

    static func recognition(
        session: String, reference: String = "harbor-lights-piano", matchedAt: Int64 = now,
        offset: Int64 = 12_345, score: Int = 42,
        snapshot: ReferenceSnapshot = snapshot()
    ) -> NewRecognition {
        NewRecognition(
            sessionId: session, referenceId: reference, matchedAt: matchedAt,
            offsetMilliseconds: offset, score: score, snapshot: snapshot)
    }

    /// Opens the store at `path` with the fixed clock.
    static func open(_ path: String, clock: any TimeSource = fixedClock) throws -> HistoryStore {
        try HistoryStore.open(path: path, clock: clock).store
    }
}
