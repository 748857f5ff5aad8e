/// A loaded catalog: what was indexed, with which parameters, and the index itself. Immutable, so
/// one catalog can serve any number of concurrent queries.
public final class Catalog: Sendable {
    public let parameters: EngineParameters
    public let manifest: CatalogManifest
    public let references: [CatalogReference]
    public let index: CatalogIndex
    /// One signature per analysed frame, references one after another, read where the file holds
    /// them (like the index): mapped file pages, not a copy that would grow the daemon's anonymous
    /// memory by 125 bytes per audio second.
    let signatures: StoredWords<UInt16>
    /// Where each reference's signatures start in `signatures`.
    let signatureStart: [Int]
    /// The band levels of every `levelStepFrames`-th frame, references one after another, and
    /// where each reference's start.
    let levels: StoredWords<UInt32>
    let levelStart: [Int]
    /// The mapped file the index, signatures and levels read, for a catalog loaded from a file.
    private let file: FileMapping?

    init(
        parameters: EngineParameters, manifest: CatalogManifest, references: [CatalogReference], index: CatalogIndex,
        signatures: StoredWords<UInt16>, levels: StoredWords<UInt32>, file: FileMapping? = nil
    ) {
        self.parameters = parameters
        self.manifest = manifest
        self.references = references
        self.index = index
        self.signatures = signatures
        var start: [Int] = []
        var position = 0
        for reference in references {
            start.append(position)
            position += reference.durationFrames
        }
        signatureStart = start
        self.levels = levels
        var levelPosition = 0
        levelStart = references.map { reference in
            defer { levelPosition += ReferenceLevels.count(frames: reference.durationFrames, parameters: parameters) }
            return levelPosition
        }
        self.file = file
    }

    /// Whether the catalog's file was rewritten in place after loading (see `CatalogFile.load`):
    /// its index then no longer says what was validated, and the catalog must not be used.
    public var fileChangedSinceLoading: Bool { file?.changedSinceMapping ?? false }

    /// Lets the kernel take the pages of the catalog's file out of this process's resident set:
    /// they stay in the page cache (clean file pages), and a later read maps them again. Idle, the
    /// daemon then holds none of the catalog; a session brings back only the index buckets, and
    /// the signatures and levels around its candidates, that it reads.
    public func releaseResidentPages() {
        file?.releaseResidentPages()
    }

    /// The reference with this id, if the catalog holds it.
    public func reference(id: String) -> CatalogReference? {
        references.first { $0.audio.id == id }
    }

    /// Total analysed frames of all references (the denominator of chance alignments).
    public var totalFrames: Int { references.reduce(0) { $0 + $1.durationFrames } }
}
