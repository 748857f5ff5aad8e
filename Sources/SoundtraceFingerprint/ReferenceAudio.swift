/// One permitted recording of the catalog, with the metadata a person sees when it is recognized.
public struct ReferenceAudio: Sendable, Equatable {
    /// Stable identifier: never reused, survives rebuilds.
    public let id: String
    public let title: String
    public let creator: String
    public let license: String
    /// Path of the recording relative to the manifest's folder.
    public let sourceFile: String
    /// Free-form key/value metadata, sorted by key so that catalogs are byte-identical.
    public let metadata: [MetadataEntry]

    public init(id: String, title: String, creator: String, license: String, sourceFile: String, metadata: [MetadataEntry]) {
        self.id = id
        self.title = title
        self.creator = creator
        self.license = license
        self.sourceFile = sourceFile
        self.metadata = metadata.sorted { $0.key < $1.key }
    }

    public struct MetadataEntry: Sendable, Equatable {
        public let key: String
        public let value: String
        public init(key: String, value: String) {
            self.key = key
            self.value = value
        }
    }

    /// Ids are 3–64 characters of lowercase ASCII letters, digits and hyphens, starting with a letter
    /// or digit, so they are safe in URLs, file names and the line protocol.
    public static func isValidID(_ id: String) -> Bool {
        let scalars = Array(id.unicodeScalars)
        guard (3...64).contains(scalars.count), let first = scalars.first, first != "-" else { return false }
        return scalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }
}

/// What identifies a built catalog: its version, the references it holds and its content hash.
public struct CatalogManifest: Sendable, Equatable {
    public let version: Int
    public let referenceIds: [String]
    /// SHA-256 of the catalog file's content (hex), which identifies the exact built catalog.
    public let hash: String
}

/// A reference as stored in a catalog: its metadata plus what the builder measured.
public struct CatalogReference: Sendable, Equatable {
    public let audio: ReferenceAudio
    /// Frames the engine analysed (duration in hops).
    public let durationFrames: Int
    /// SHA-256 of the source recording file as it was indexed.
    public let sourceSHA256: [UInt8]

    public init(audio: ReferenceAudio, durationFrames: Int, sourceSHA256: [UInt8]) {
        self.audio = audio
        self.durationFrames = durationFrames
        self.sourceSHA256 = sourceSHA256
    }
}
