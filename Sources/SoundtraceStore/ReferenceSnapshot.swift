/// The reference's metadata as the catalog described it when the match happened, kept with the
/// event so that it stays readable after the catalog changes or drops the reference.
public struct ReferenceSnapshot: Sendable, Equatable {
    /// One metadata key/value pair; the order of entries is kept as given.
    public struct MetadataEntry: Sendable, Equatable {
        /// The metadata key, e.g. "instrumentation".
        public let key: String
        /// The metadata value.
        public let value: String

        /// An entry with the given key and value.
        public init(key: String, value: String) {
            self.key = key
            self.value = value
        }
    }

    /// The recording's title.
    public let title: String
    /// Who made the recording.
    public let creator: String
    /// Its license (an SPDX id where one fits).
    public let license: String
    /// The recording's file, relative to the catalog manifest.
    public let sourceFile: String
    /// Free-form metadata, in the order given.
    public let metadata: [MetadataEntry]
    /// SHA-256 (64 lowercase hex digits) of the catalog that produced the match.
    public let catalogHash: String

    /// A snapshot with the given fields; they are validated when recorded.
    public init(
        title: String, creator: String, license: String, sourceFile: String,
        metadata: [MetadataEntry], catalogHash: String
    ) {
        self.title = title
        self.creator = creator
        self.license = license
        self.sourceFile = sourceFile
        self.metadata = metadata
        self.catalogHash = catalogHash
    }
}
