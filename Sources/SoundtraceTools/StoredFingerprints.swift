import SoundtraceFingerprint

/// The fingerprints an existing catalog lends a rebuild, by the SHA-256 of the recording they were
/// made from. A recording with the same bytes, analysed with the same engine parameters (the
/// catalog is only loaded if its parameters match), has the same fingerprint: reusing it gives
/// the same catalog as analysing it again, in a fraction of the time.
struct StoredFingerprints: Sendable {
    private let bySHA256: [[UInt8]: ReferenceFingerprint]

    static let none = StoredFingerprints(bySHA256: [:])

    /// The fingerprints in the catalog at `path`. A catalog that is missing lends nothing; one that
    /// cannot be used (unreadable, damaged, another format or other engine parameters) lends
    /// nothing either, and `note` says why: it only means a full build, never an error.
    static func load(path: String, parameters: EngineParameters) -> (stored: StoredFingerprints, note: String?) {
        let catalog: Catalog
        do {
            catalog = try CatalogFile.load(path: path, parameters: parameters)
        } catch {
            guard let reason = reason(error) else { return (.none, nil) }
            return (.none, "not reusing \(path): \(reason); analysing every recording")
        }
        let fingerprints = catalog.storedFingerprints(at: Set(catalog.references.indices))
        // Read from the mapped file: a rewrite meanwhile would lend another file's bytes.
        do {
            try catalog.checkUnchangedSinceLoading()
        } catch {
            return (.none, "not reusing \(path): \(reason(error) ?? "it changed"); analysing every recording")
        }
        var bySHA256: [[UInt8]: ReferenceFingerprint] = [:]
        for (position, reference) in catalog.references.enumerated() where bySHA256[reference.sourceSHA256] == nil {
            bySHA256[reference.sourceSHA256] = fingerprints[position]
        }
        return (StoredFingerprints(bySHA256: bySHA256), nil)
    }

    /// Whether there is nothing to reuse (no previous catalog, or `--full`).
    var isEmpty: Bool { bySHA256.isEmpty }

    /// The stored fingerprint of the recording whose file has this SHA-256, if there is one.
    func fingerprint(sourceSHA256: [UInt8]) -> ReferenceFingerprint? { bySHA256[sourceSHA256] }

    /// Why a catalog lends nothing, without the advice to rebuild (that is what is happening);
    /// nil for a catalog that does not exist yet.
    private static func reason(_ error: CatalogError) -> String? {
        switch error {
        case .notFound: return nil
        case let .cannotRead(_, reason): return "it cannot be read (\(reason))"
        case .tooLarge, .notACatalog: return "it is not a Soundtrace catalog"
        case let .unsupportedFormatVersion(_, found, supported):
            return "it has format version \(found), this soundtrace writes version \(supported)"
        case .truncated, .contentHashMismatch, .structureChecksumMismatch, .damaged: return "it is damaged"
        case let .parameterMismatch(_, field, stored, expected):
            return "it was built with engine parameter \(field) = \(stored), this soundtrace uses \(expected)"
        case .cannotWrite, .cannotBuild: return "it cannot be used"
        case .rewrittenInPlace: return "it was rewritten in place while it was read"
        }
    }
}
