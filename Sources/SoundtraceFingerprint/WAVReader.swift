/// Reads RIFF/WAVE files (PCM 16/24/32-bit integer or 32-bit float, mono or stereo, 8–48 kHz) and
/// mixes them down to mono 16-bit with integer arithmetic, so every machine gets the same samples.
public enum WAVReader {
    /// Largest WAV file accepted: about 45 minutes of 48 kHz stereo 32-bit audio.
    public static let maximumFileBytes = 1 << 30
    public static let supportedRates = 8000...48000

    public static func read(path: String) throws(WAVError) -> PCMAudio {
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path: path, limit: maximumFileBytes)
        } catch {
            switch error {
            case let .system(_, reason): throw .cannotRead(path: path, reason: reason)
            case let .tooLarge(size): throw .tooLarge(path: path, bytes: size, limit: maximumFileBytes)
            }
        }
        return try decode(bytes, name: path)
    }

    fileprivate enum Encoding { case integer, float }

    fileprivate struct Format {
        var encoding: Encoding
        var channels: Int
        var rate: Int
        var bits: Int
    }

    /// Where a file's samples lie and at what rate: what its chunks before the data say.
    public struct Layout: Sendable {
        fileprivate let format: Format
        /// Byte offset and length of the data chunk's body.
        public let dataStart: Int
        public let dataBytes: Int
        public var sampleRate: Int { format.rate }
        /// Sample frames (one per channel group) in the data chunk.
        public var frames: Int { dataBytes / (format.channels * format.bits / 8) }
    }

    public static func decode(_ bytes: [UInt8], name: String) throws(WAVError) -> PCMAudio {
        guard let layout = try layout(bytes, fileSize: bytes.count, name: name) else { throw .missingDataChunk(path: name) }
        return try decodeSamples(bytes, from: layout.dataStart, count: layout.dataBytes, format: layout.format, name: name)
    }

    /// The mono samples of whole frames in `block`, a stretch of the data chunk of the recording
    /// `layout` describes that starts at frame `firstFrame`: exactly what `decode` gives for those
    /// frames, so a recording decoded a block at a time is the same audio (`RecordingStream`).
    static func decodeBlock(_ block: [UInt8], layout: Layout, firstFrame: Int, name: String) throws(WAVError) -> [Int16] {
        guard block.count >= layout.format.channels * layout.format.bits / 8 else { return [] }
        return try decodeSamples(block, from: 0, count: block.count, format: layout.format, name: name, firstFrame: firstFrame).samples
    }

    /// Bytes of one frame (every channel's sample) of the recording `layout` describes.
    static func frameBytes(_ layout: Layout) -> Int { layout.format.channels * layout.format.bits / 8 }

    /// Reads the chunks before the data from `head`, the first bytes of a file of `fileSize` bytes
    /// (all of it, or a prefix: enough to know a long recording's length without reading it).
    /// Nil when `head` ends before the data chunk's header; with the whole file it never is.
    public static func layout(_ head: [UInt8], fileSize: Int, name: String) throws(WAVError) -> Layout? {
        var reader = ByteReader(head)
        do {
            guard head.count >= 12, try reader.fourCC() == "RIFF" else { throw WAVError.notRIFF(path: name) }
            _ = try reader.u32()  // RIFF size: often wrong in streamed files; chunks are checked instead.
            guard try reader.fourCC() == "WAVE" else { throw WAVError.notWAVE(path: name) }
        } catch let error as WAVError {
            throw error
        } catch {
            throw .notRIFF(path: name)
        }

        var format: Format?
        var position = reader.position
        while fileSize - position > 0 {
            // Some writers pad the end of the file; a few stray bytes after the chunks are harmless.
            guard fileSize - position >= 8 else { break }
            guard position + 8 <= head.count else { return nil }
            var header = ByteReader(head, position: position)
            let id: String
            let size: Int
            do {
                id = try header.fourCC()
                size = Int(try header.u32())
            } catch {
                throw .malformedChunk(path: name, detail: "chunk header cut short")
            }
            position += 8
            let remaining = fileSize - position
            if id == "data" {
                guard let format else { throw .missingFormatChunk(path: name) }
                guard size <= remaining else {
                    throw .truncatedData(path: name, declared: size, available: remaining)
                }
                return Layout(format: format, dataStart: position, dataBytes: size)
            }
            guard size <= remaining else {
                throw .malformedChunk(
                    path: name, detail: "chunk '\(printable(id))' declares \(size) bytes but only \(remaining) remain")
            }
            if id == "fmt " {
                guard position + size <= head.count else { return nil }
                format = try parseFormat(Array(head[position..<(position + size)]), name: name)
            }
            position += size + (size & 1 == 1 && remaining > size ? 1 : 0)
        }
        throw .missingDataChunk(path: name)
    }

    private static func printable(_ id: String) -> String {
        String(id.unicodeScalars.map { $0.value >= 32 && $0.value < 127 ? Character($0) : "?" })
    }

    private static func parseFormat(_ chunk: [UInt8], name: String) throws(WAVError) -> Format {
        var r = ByteReader(chunk)
        do {
            guard chunk.count >= 16 else {
                throw WAVError.malformedChunk(path: name, detail: "'fmt ' chunk is \(chunk.count) bytes, needs 16")
            }
            var tag = Int(try r.u16())
            let channels = Int(try r.u16())
            let rate = Int(try r.u32())
            let byteRate = Int(try r.u32())
            let blockAlign = Int(try r.u16())
            let bits = Int(try r.u16())
            if tag == 0xFFFE {
                // WAVE_FORMAT_EXTENSIBLE: the real encoding is the first two bytes of the sub-format GUID.
                guard chunk.count >= 40 else {
                    throw WAVError.malformedChunk(path: name, detail: "extensible 'fmt ' chunk is \(chunk.count) bytes, needs 40")
                }
                try r.skip(2 + 2 + 4)
                tag = Int(try r.u16())
            }
            let encoding: Encoding
            switch tag {
            case 1: encoding = .integer
            case 3: encoding = .float
            default: throw WAVError.unsupportedEncoding(path: name, formatTag: tag)
            }
            guard channels == 1 || channels == 2 else { throw WAVError.unsupportedChannelCount(path: name, channels: channels) }
            guard supportedRates.contains(rate) else { throw WAVError.unsupportedSampleRate(path: name, rate: rate) }
            switch (encoding, bits) {
            case (.integer, 16), (.integer, 24), (.integer, 32), (.float, 32): break
            default: throw WAVError.unsupportedBitDepth(path: name, bits: bits, encoding: encoding == .float ? "float" : "integer")
            }
            guard blockAlign == channels * bits / 8 else {
                throw WAVError.inconsistentFormat(path: name, detail: "block align \(blockAlign) for \(channels) × \(bits)-bit samples")
            }
            guard byteRate == rate * blockAlign else {
                throw WAVError.inconsistentFormat(path: name, detail: "byte rate \(byteRate) for \(rate) Hz × \(blockAlign) bytes")
            }
            return Format(encoding: encoding, channels: channels, rate: rate, bits: bits)
        } catch let error as WAVError {
            throw error
        } catch {
            throw .malformedChunk(path: name, detail: "'fmt ' chunk cut short")
        }
    }

    private static func decodeSamples(
        _ bytes: [UInt8], from start: Int, count: Int, format: Format, name: String, firstFrame: Int = 0
    ) throws(WAVError)
        -> PCMAudio
    {
        let bytesPerSample = format.bits / 8
        let blockAlign = bytesPerSample * format.channels
        let frames = count / blockAlign
        guard frames > 0 else { throw .empty(path: name) }
        if format.encoding == .integer && format.bits == 16 && format.channels == 1 {
            // The common query format: widening to 32 bits and rounding back, as below, gives each
            // sample back unchanged, so the bytes are copied as they are (little-endian, like the
            // file, on every host the appliance runs on; swapped where the host is not).
            let samples = [Int16](unsafeUninitializedCapacity: frames) { buffer, initialized in
                bytes.withUnsafeBytes { raw in
                    UnsafeMutableRawBufferPointer(buffer).copyMemory(
                        from: UnsafeRawBufferPointer(rebasing: raw[start..<(start + 2 * frames)]))
                }
                #if _endian(big)
                    for i in 0..<frames { buffer[i] = Int16(littleEndian: buffer[i]) }
                #endif
                initialized = frames
            }
            return PCMAudio(sampleRate: format.rate, samples: samples)
        }
        var out = [Int16](repeating: 0, count: frames)
        var p = start
        for frame in 0..<frames {
            // Each channel's sample widened to a common signed 32-bit scale, then averaged.
            var sum: Int64 = 0
            for _ in 0..<format.channels {
                let value: Int64
                switch (format.encoding, format.bits) {
                case (.integer, 16):
                    value = Int64(Int16(bitPattern: UInt16(bytes[p]) | UInt16(bytes[p + 1]) << 8)) << 16
                case (.integer, 24):
                    let raw = Int32(bitPattern: UInt32(bytes[p]) << 8 | UInt32(bytes[p + 1]) << 16 | UInt32(bytes[p + 2]) << 24)
                    value = Int64(raw)
                case (.integer, _):
                    value = Int64(
                        Int32(
                            bitPattern: UInt32(bytes[p]) | UInt32(bytes[p + 1]) << 8 | UInt32(bytes[p + 2]) << 16 | UInt32(bytes[p + 3])
                                << 24))
                default:
                    let f = Float(
                        bitPattern: UInt32(bytes[p]) | UInt32(bytes[p + 1]) << 8 | UInt32(bytes[p + 2]) << 16 | UInt32(bytes[p + 3]) << 24)
                    guard f.isFinite else { throw .invalidFloatSample(path: name, index: firstFrame + frame) }
                    // Scaling by a power of two is exact in IEEE arithmetic, and so is this rounding.
                    let clamped = min(max(Double(f), -1.0), 1.0)
                    value = Int64((clamped * 2_147_483_648.0).rounded(.toNearestOrEven)).clamped(to: -2_147_483_648...2_147_483_647)
                }
                sum += value
                p += bytesPerSample
            }
            let mono = format.channels == 2 ? sum >> 1 : sum
            out[frame] = Int16((mono + 0x8000) >> 16 == 0x8000 ? 0x7FFF : (mono + 0x8000) >> 16)
        }
        return PCMAudio(sampleRate: format.rate, samples: out)
    }
}

extension Int64 {
    func clamped(to range: ClosedRange<Int64>) -> Int64 { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
}
