/// A WAV recording read, checksummed and decoded a block at a time, its audio handed on at the
/// engine's rate: the same samples and the same SHA-256 as `RecordingLoader` gives from the whole
/// file, in memory that does not grow with the recording (a block, the resampler's few taps, and
/// whatever the consumer keeps).
public enum RecordingStream {
    /// Bytes read at a time: large enough that system calls cost nothing next to decoding.
    public static let defaultBlockBytes = 1 << 18

    /// What one pass over a recording found.
    public struct Summary: Sendable, Equatable {
        /// SHA-256 of every byte of the file.
        public let sourceSHA256: [UInt8]
        /// Samples handed on, at the engine's rate.
        public let samples: Int
        public let sourceSampleRate: Int
    }

    /// The SHA-256 of the file at `path`, read a block at a time.
    public static func sha256(path: String, blockBytes: Int = defaultBlockBytes) throws(WAVError) -> [UInt8] {
        let file = try open(path)
        var hasher = SHA256()
        while file.position < file.size { hasher.update(try read(file, blockBytes, path: path)) }
        return hasher.finalize()
    }

    /// Decodes the recording at `path`, handing its audio at `parameters.sampleRate` to `consume`
    /// in order, and checksums the whole file on the way. Errors are those `RecordingLoader.load`
    /// gives for the same file.
    public static func decode(
        path: String, parameters: EngineParameters, blockBytes: Int = defaultBlockBytes, consume: ([Int16]) -> Void
    ) throws(WAVError) -> Summary {
        let file = try open(path)
        var hasher = SHA256()
        let (samples, rate) = try decodeAudio(
            file, path: path, parameters: parameters, blockBytes: blockBytes, stopAfter: Int.max,
            bytesRead: { hasher.update($0) }, consume: consume)
        // Chunks after the audio count in the checksum too.
        while file.position < file.size { hasher.update(try read(file, blockBytes, path: path)) }
        return Summary(sourceSHA256: hasher.finalize(), samples: samples, sourceSampleRate: rate)
    }

    /// The first samples of the recording at `path` at the engine's rate: at least `count` when
    /// the recording has them (a little more, never much), otherwise all of it. The file is read
    /// only as far as they need, so a query, which analyses its first seconds, does not read a
    /// long file whole; the samples are the first ones `decode` hands on. The rest of the file is
    /// not read and so not checked.
    public static func prefix(path: String, parameters: EngineParameters, count: Int, blockBytes: Int = 1 << 16) throws(WAVError)
        -> (samples: [Int16], sourceSampleRate: Int)
    {
        var samples: [Int16] = []
        let (_, rate) = try decodeAudio(
            try open(path), path: path, parameters: parameters, blockBytes: blockBytes, stopAfter: count, bytesRead: { _ in },
            consume: { samples += $0 })
        return (samples, rate)
    }

    /// The decoding both share: the header, then the data a block at a time until it ends or
    /// `stopAfter` samples were handed on (then the resampler's tail, which needs the end of the
    /// data, is left out). `bytesRead` sees every byte read, in order.
    private static func decodeAudio(
        _ file: SequentialFile, path: String, parameters: EngineParameters, blockBytes: Int, stopAfter: Int,
        bytesRead: ([UInt8]) -> Void, consume: ([Int16]) -> Void
    ) throws(WAVError) -> (samples: Int, sourceSampleRate: Int) {
        let (layout, head) = try header(file, blockBytes: blockBytes, path: path)
        bytesRead(head)
        let frameBytes = WAVReader.frameBytes(layout)

        var resampler = Resampler(inputRate: layout.sampleRate, outputRate: parameters.sampleRate)
        var samples = 0
        var frame = 0
        let dataEnd = layout.dataStart + layout.dataBytes
        // Data already read with the header, then the rest a block at a time; a frame cut by a
        // block's end waits for the next block.
        var pending = Array(head[min(layout.dataStart, head.count)..<min(dataEnd, head.count)])
        func decodeWholeFrames() throws(WAVError) {
            let whole = pending.count - pending.count % frameBytes
            guard whole > 0 else { return }
            let mono = try WAVReader.decodeBlock(Array(pending[0..<whole]), layout: layout, firstFrame: frame, name: path)
            pending.removeFirst(whole)
            frame += mono.count
            let out = resampler.process(mono)
            samples += out.count
            if !out.isEmpty { consume(out) }
        }
        try decodeWholeFrames()
        while file.position < dataEnd {
            if samples >= stopAfter { return (samples, layout.sampleRate) }
            let block = try read(file, min(blockBytes, dataEnd - file.position), path: path)
            bytesRead(block)
            pending += block
            try decodeWholeFrames()
        }
        let tail = resampler.finish()
        samples += tail.count
        if !tail.isEmpty { consume(tail) }
        return (samples, layout.sampleRate)
    }

    /// The recording's layout from its header, reading only as far as the data chunk.
    public static func layout(path: String) throws(WAVError) -> WAVReader.Layout {
        try header(open(path), blockBytes: 1 << 16, path: path).layout
    }

    /// The header: as many blocks as it takes to find the data chunk, and the bytes read for it.
    private static func header(_ file: SequentialFile, blockBytes: Int, path: String) throws(WAVError)
        -> (layout: WAVReader.Layout, head: [UInt8])
    {
        var head: [UInt8] = []
        while true {
            head += try read(file, max(blockBytes, 4096), path: path)
            if let layout = try WAVReader.layout(head, fileSize: file.size, name: path) {
                guard layout.frames > 0 else { throw .empty(path: path) }
                return (layout, head)
            }
            if file.position >= file.size { throw .missingDataChunk(path: path) }
        }
    }

    private static func open(_ path: String) throws(WAVError) -> SequentialFile {
        do {
            return try SequentialFile(path: path, limit: WAVReader.maximumFileBytes)
        } catch {
            switch error {
            case let .system(_, reason): throw .cannotRead(path: path, reason: reason)
            case let .tooLarge(size): throw .tooLarge(path: path, bytes: size, limit: WAVReader.maximumFileBytes)
            }
        }
    }

    private static func read(_ file: SequentialFile, _ count: Int, path: String) throws(WAVError) -> [UInt8] {
        let wanted = min(count, file.size - file.position)
        let block: [UInt8]
        do {
            block = try file.read(count)
        } catch {
            switch error {
            case let .system(_, reason): throw .cannotRead(path: path, reason: reason)
            case let .tooLarge(size): throw .tooLarge(path: path, bytes: size, limit: WAVReader.maximumFileBytes)
            }
        }
        // Blocks are asked for within the size the file had when opened, which the header was
        // read against: one comes short only if the file was cut meanwhile.
        guard block.count == wanted else { throw .cannotRead(path: path, reason: "the file became shorter while it was read") }
        return block
    }
}
