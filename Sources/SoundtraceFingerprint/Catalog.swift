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
    /// What the content hash covers, for `verifyContent()`.
    let content: Content
    /// Whether the content was found to match its hash (at load, or by `verifyContent()` since).
    let verification: ContentVerification

    /// The bytes the stored content hash covers, and where they are.
    struct Content: Sendable {
        let path: String
        /// Bytes from the start of the file.
        let length: Int
        let digest: [UInt8]
        /// Where the file states `digest` (the content hash section's body).
        let digestOffset: Int
        /// The mapped file, for a catalog loaded from a file.
        let file: FileMapping?
    }

    init(
        parameters: EngineParameters, manifest: CatalogManifest, references: [CatalogReference], index: CatalogIndex,
        signatures: StoredWords<UInt16>, levels: StoredWords<UInt32>, content: Content, contentChecked: Bool
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
        self.content = content
        verification = ContentVerification(checked: contentChecked)
    }

    /// Whether the catalog's file was rewritten in place after loading (see `CatalogFile.load`):
    /// its index then no longer says what was validated, and the catalog must not be used.
    public var fileChangedSinceLoading: Bool {
        guard let file = content.file else { return false }
        if file.changedSinceMapping { return true }
        // Rewritten with the same size and modification time (`cp -p` of another catalog of the
        // same length, or a copy within one clock tick): the file then states another content hash
        // where this one's was. Reading it through the mapping sees the file's bytes as they are now.
        let stated = content.digestOffset..<(content.digestOffset + content.digest.count)
        guard stated.upperBound <= file.bytes.count else { return true }
        return !file.bytes[stated].elementsEqual(content.digest)
    }

    /// Throws when the file was rewritten in place since loading: what was read from it since may
    /// be another file's bytes, or zeros past a truncation, so nothing decided on it can be
    /// trusted. One fstat and 32 bytes read.
    public func checkUnchangedSinceLoading() throws(CatalogError) {
        if fileChangedSinceLoading { throw .rewrittenInPlace(path: content.path) }
    }

    /// The reference with this id, if the catalog holds it.
    public func reference(id: String) -> CatalogReference? {
        references.first { $0.audio.id == id }
    }

    /// Total analysed frames of all references (the denominator of chance alignments).
    public var totalFrames: Int { references.reduce(0) { $0 + $1.durationFrames } }
}
