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
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path: path, limit: WAVReader.maximumFileBytes)
        } catch {
            switch error {
            case let .system(_, reason): throw .cannotRead(path: path, reason: reason)
            case let .tooLarge(size): throw .tooLarge(path: path, bytes: size, limit: WAVReader.maximumFileBytes)
            }
        }
        let source = try WAVReader.decode(bytes, name: path)
        return Loaded(
            audio: Resampler.convert(source, to: parameters.sampleRate), sourceSampleRate: source.sampleRate,
            sourceSHA256: checksum ? SHA256.digest(bytes) : [])
    }
}
