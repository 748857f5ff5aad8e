/// Builds a catalog from references whose audio is already at the engine's rate. Pure: the same
/// inputs give the same bytes on every machine.
public enum CatalogBuilder {
    public struct Input: Sendable {
        public let audio: ReferenceAudio
        public let samples: PCMAudio
        public let sourceSHA256: [UInt8]
        public init(audio: ReferenceAudio, samples: PCMAudio, sourceSHA256: [UInt8]) {
            self.audio = audio
            self.samples = samples
            self.sourceSHA256 = sourceSHA256
        }
    }

    /// Fingerprints one reference; exposed so callers can report progress between references.
    public static func fingerprint(of input: Input, parameters: EngineParameters) throws(CatalogError) -> ReferenceFingerprint {
        do {
            return try ReferenceFingerprinter.fingerprint(of: input.samples, parameters: parameters)
        } catch {
            switch error {
            case let .wrongSampleRate(rate):
                throw .cannotBuild(detail: "reference '\(input.audio.id)' is at \(rate) Hz, not the engine's \(parameters.sampleRate) Hz")
            case .fftUnavailable:
                throw .cannotBuild(detail: "the fixed-point FFT could not be set up for \(parameters.fftSize) points")
            }
        }
    }

    /// A fingerprint to be fed one recording's samples a block at a time (`RecordingStream`).
    public static func fingerprintBuilder(for audio: ReferenceAudio, parameters: EngineParameters) throws(CatalogError)
        -> ReferenceFingerprinter.Builder
    {
        do {
            return try ReferenceFingerprinter.Builder(parameters: parameters)
        } catch {
            throw .cannotBuild(detail: "the fixed-point FFT could not be set up for \(parameters.fftSize) points")
        }
    }

    /// Encodes the catalog file from references and their fingerprints (in the same order).
    public static func encode(
        version: Int, inputs: [Input], fingerprints: consuming [ReferenceFingerprint],
        parameters: EngineParameters
    ) throws(CatalogError) -> [UInt8] {
        try encode(
            version: version, references: inputs.map(\.audio), sourceSHA256: inputs.map(\.sourceSHA256),
            fingerprints: consume fingerprints, parameters: parameters)
    }

    /// Encodes the catalog file from references, their recordings' SHA-256 and their fingerprints
    /// (all in the same order): a fingerprint may come from an older catalog instead of audio.
    /// The fingerprints are taken rather than shared: their landmarks are let go once they are in
    /// the index, before the file's bytes are made (at 100 hours, 384 MB of landmarks, a 192 MB
    /// index and a 250 MB file), so a caller that hands them over (`consume`) builds in less memory.
    public static func encode(
        version: Int, references audio: [ReferenceAudio], sourceSHA256: [[UInt8]],
        fingerprints: consuming [ReferenceFingerprint], parameters: EngineParameters
    ) throws(CatalogError) -> [UInt8] {
        precondition(audio.count == fingerprints.count && sourceSHA256.count == fingerprints.count, "one fingerprint per reference")
        let index: CatalogIndex
        do {
            index = try CatalogIndex.build(
                landmarks: fingerprints.map(\.landmarks), hashBits: parameters.hashBits,
                minimumDirectoryBits: parameters.directoryBits)
        } catch {
            switch error {
            case let .tooManyReferences(count, max):
                throw .cannotBuild(
                    detail: "\(count) references of this length are more than the \(max) one catalog can hold; split the catalog")
            case let .referenceTooLong(frames, maxFrames):
                throw .cannotBuild(
                    detail: "a reference has \(frames) frames, more than the \(maxFrames) one catalog entry can address; shorten it")
            case let .inconsistent(detail):
                throw .cannotBuild(detail: detail)
            }
        }
        // What the index holds is let go before the next copies are made; so are the per-reference
        // signatures and levels once they are gathered, before the file's bytes are.
        for i in fingerprints.indices { fingerprints[i].landmarks = [] }
        let references = fingerprints.indices.map { i in
            CatalogReference(audio: audio[i], durationFrames: fingerprints[i].frames, sourceSHA256: sourceSHA256[i])
        }
        let signatures = fingerprints.flatMap(\.signatures)
        let levels = fingerprints.flatMap(\.levels)
        fingerprints = []
        return CatalogFile.encode(
            version: version, references: references, index: index, signatures: signatures, levels: levels,
            parameters: parameters)
    }
}
