/// A loaded catalog: what was indexed, with which parameters, and the index itself. Immutable, so
/// one catalog can serve any number of concurrent queries.
public final class Catalog: Sendable {
    public let parameters: EngineParameters
    public let manifest: CatalogManifest
    public let references: [CatalogReference]
    public let index: CatalogIndex

    init(parameters: EngineParameters, manifest: CatalogManifest, references: [CatalogReference], index: CatalogIndex) {
        self.parameters = parameters
        self.manifest = manifest
        self.references = references
        self.index = index
    }

    /// The reference with this id, if the catalog holds it.
    public func reference(id: String) -> CatalogReference? {
        references.first { $0.audio.id == id }
    }

    /// Total analysed frames of all references (the denominator of chance alignments).
    public var totalFrames: Int { references.reduce(0) { $0 + $1.durationFrames } }
}
