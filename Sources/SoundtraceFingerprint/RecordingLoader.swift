/// Loads a recording for the engine: the WAV file's checksum, and its audio at the engine's rate.
public enum RecordingLoader {
    public struct Loaded: Sendable {
        public let audio: PCMAudio
        public let sourceSampleRate: Int
        /// SHA-256 of the file, when asked for (catalog build and verify); empty otherwise.
        public let sourceSHA256: [UInt8]
    }

    public static func load(path: String, parameters: EngineParameters = EngineParameters(), checksum: Bool = false) throws(WAVError)
        -> Loaded
    {
        try decode(read(path: path), path: path, parameters: parameters, checksum: checksum)
    }

    /// A query's audio: what `load` gives, cut a little beyond the `maxQuerySeconds` the matcher
    /// analyses, and read from the file only that far (`RecordingStream.prefix`). Everything the
    /// matcher looks at is the same as from `load`, and it still sees that there was more.
    public static func loadQuery(path: String, parameters: EngineParameters = EngineParameters()) throws(WAVError) -> PCMAudio {
        let wanted = parameters.maxQuerySeconds * parameters.sampleRate + parameters.fftSize
        let (samples, _) = try RecordingStream.prefix(path: path, parameters: parameters, count: wanted)
        return PCMAudio(sampleRate: parameters.sampleRate, samples: samples)
    }

    /// The file's bytes, as `load` reads them (catalog build reads first, to see whether the
    /// recording changed, and decodes only when it did).
    public static func read(path: String) throws(WAVError) -> [UInt8] {
        do {
            return try FileBytes.read(path: path, limit: WAVReader.maximumFileBytes)
        } catch {
            switch error {
            case let .system(_, reason): throw .cannotRead(path: path, reason: reason)
            case let .tooLarge(size): throw .tooLarge(path: path, bytes: size, limit: WAVReader.maximumFileBytes)
            }
        }
    }

    /// Decodes the bytes `read` returned.
    public static func decode(_ bytes: [UInt8], path: String, parameters: EngineParameters = EngineParameters(), checksum: Bool = false)
        throws(WAVError) -> Loaded
    {
        let source = try WAVReader.decode(bytes, name: path)
        return Loaded(
            audio: Resampler.convert(source, to: parameters.sampleRate), sourceSampleRate: source.sampleRate,
            sourceSHA256: checksum ? SHA256.digest(bytes) : [])
    }

    /// How many samples at the engine's rate the recording in `bytes` becomes, from its header
    /// alone: what `decode(...).audio.samples.count` would be, without the work.
    public static func engineSampleCount(_ bytes: [UInt8], path: String, parameters: EngineParameters = EngineParameters())
        throws(WAVError) -> Int
    {
        guard let layout = try WAVReader.layout(bytes, fileSize: bytes.count, name: path) else { throw .missingDataChunk(path: path) }
        guard layout.frames > 0 else { throw .empty(path: path) }
        return Resampler.outputCount(inputCount: layout.frames, inputRate: layout.sampleRate, outputRate: parameters.sampleRate)
    }

    /// The same count from the file's header alone, read from `path` (as much of the file as it
    /// takes to reach the data chunk, usually a few kilobytes).
    public static func engineSampleCount(path: String, parameters: EngineParameters = EngineParameters()) throws(WAVError) -> Int {
        let layout = try RecordingStream.layout(path: path)
        return Resampler.outputCount(inputCount: layout.frames, inputRate: layout.sampleRate, outputRate: parameters.sampleRate)
    }
}
