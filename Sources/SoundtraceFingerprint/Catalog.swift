/// A loaded catalog: what was indexed, with which parameters, and the index itself. Immutable, so
/// one catalog can serve any number of concurrent queries.
public final class Catalog: Sendable {
    public let parameters: EngineParameters
    public let manifest: CatalogManifest
    public let references: [CatalogReference]
    public let index: CatalogIndex
    /// One signature per analysed frame, references one after another.
    let signatures: [UInt16]
    /// Where each reference's signatures start in `signatures`.
    let signatureStart: [Int]

    init(parameters: EngineParameters, manifest: CatalogManifest, references: [CatalogReference], index: CatalogIndex,
         signatures: [UInt16]) {
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
    }

    /// The reference with this id, if the catalog holds it.
    public func reference(id: String) -> CatalogReference? {
        references.first { $0.audio.id == id }
    }

    /// Total analysed frames of all references (the denominator of chance alignments).
    public var totalFrames: Int { references.reduce(0) { $0 + $1.durationFrames } }
}
