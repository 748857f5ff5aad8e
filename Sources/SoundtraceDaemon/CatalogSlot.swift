import SoundtraceFingerprint

/// The catalog the daemon serves, or why it has none. A missing or corrupt catalog does not stop
/// the daemon: history, favorites and the guide keep working and `status`/`listen` explain.
struct CatalogSlot: Sendable {
    let path: String
    let catalog: Catalog?
    /// Why no catalog could be loaded, with the fix.
    let problem: String?

    /// Loads the file at `path`; never throws: a failure becomes the slot's problem. Only the
    /// structure is checked (`CatalogFile.Check.structure`): a few hundred KB whatever the
    /// catalog's size, so start and reload stay fast; `CatalogContentCheck` hashes the rest after.
    /// No catalog is too big for a session's memory: its vote counters are bounded whatever the
    /// catalog's size (`QueryMatcher.maximumVoteCounterBytes`).
    static func load(path: String) -> CatalogSlot {
        do {
            return CatalogSlot(path: path, catalog: try CatalogFile.load(path: path, check: .structure), problem: nil)
        } catch {
            return unusable(path: path, error)
        }
    }

    /// The slot of a catalog at `path` that cannot be used because of `error`, with the fix.
    static func unusable(path: String, _ error: CatalogError) -> CatalogSlot {
        CatalogSlot(
            path: path, catalog: nil,
            problem:
                "\(error.problem); rebuild it with `soundtrace catalog build --out \(path)` (or put a good catalog there with `install -m 0644 FILE \(path)`, which replaces the file rather than rewriting the one the daemon has mapped), then `systemctl reload soundtraced`"
        )
    }

    /// The slot that says so when the loaded catalog's file was rewritten in place since loading
    /// (rather than replaced): the mapped index no longer holds what was validated, so the catalog
    /// must not be used again. nil while the catalog is sound (or there is none).
    func rewrittenInPlace() -> CatalogSlot? {
        guard let catalog, catalog.fileChangedSinceLoading else { return nil }
        return CatalogSlot(
            path: path, catalog: nil,
            problem:
                "catalog \(path) was rewritten in place after it was loaded, so the index in memory no longer matches what was checked; replace catalog files instead (`install -m 0644 FILE \(path)` or `soundtrace catalog build --out \(path)`), then `systemctl reload soundtraced`"
        )
    }

    /// The catalog's content hash, as history events record it.
    var hash: String? { catalog?.manifest.hash }

    /// Seconds of audio in a reference, from the frames the engine analysed.
    static func durationMilliseconds(_ reference: CatalogReference, parameters: EngineParameters) -> Int {
        reference.durationFrames * parameters.hopSize * 1000 / parameters.sampleRate
    }
}
