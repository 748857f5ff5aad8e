import SoundtraceTestSupport
import Testing

@testable import SoundtraceFingerprint

@Suite struct WAVReaderTests {
    let samples: [Int16] = [0, 1, -1, 32767, -32768, 1234, -4321]

    @Test func reads16BitMono() throws {
        let audio = try WAVReader.decode(TestAudio.wav(data: TestAudio.int16Bytes(samples)), name: "a.wav")
        #expect(audio.sampleRate == 8000)
        #expect(audio.samples == samples)
    }

    @Test func monoIsCopiedExactlyAsTheGeneralPathWouldGiveIt() throws {
        // Mono 16-bit takes a shortcut; the same samples in both channels of a stereo file take the
        // general path (widen, average, round), and every 16-bit value must come out the same.
        let every = (Int(Int16.min)...Int(Int16.max)).map { Int16($0) }
        let mono = try WAVReader.decode(TestAudio.wav(data: TestAudio.int16Bytes(every)), name: "m.wav")
        let stereo = try WAVReader.decode(TestAudio.wav(channels: 2, data: TestAudio.int16Bytes(every.flatMap { [$0, $0] })), name: "s.wav")
        #expect(mono.samples == every)
        #expect(stereo.samples == every)
        // An odd data size leaves a partial frame, which both paths ignore.
        let odd = try WAVReader.decode(TestAudio.wav(data: TestAudio.int16Bytes(samples) + [7]), name: "o.wav")
        #expect(odd.samples == samples)
    }

    @Test func mixesStereoDownToTheMeanOfBothChannels() throws {
        let left: [Int16] = [1000, -2000, 32767, -32768]
        let right: [Int16] = [3000, 2000, 32767, -32768]
        let interleaved = zip(left, right).flatMap { [$0, $1] }
        let audio = try WAVReader.decode(TestAudio.wav(channels: 2, rate: 44100, data: TestAudio.int16Bytes(interleaved)), name: "s.wav")
        #expect(audio.samples == [2000, 0, 32767, -32768])
        #expect(audio.sampleRate == 44100)
    }

    @Test func reads24And32BitIntegerWithRounding() throws {
        // 24-bit 0x123480 rounds to 16-bit 0x1235; -1 (0xFFFFFF) rounds to 0.
        let data24: [UInt8] = [0x80, 0x34, 0x12, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x80]
        let a = try WAVReader.decode(TestAudio.wav(bits: 24, data: data24), name: "24.wav")
        #expect(a.samples == [0x1235, 0, -32768])
        let data32: [UInt8] = [0x00, 0x00, 0x00, 0x40, 0xFF, 0xFF, 0xFF, 0x7F]
        let b = try WAVReader.decode(TestAudio.wav(bits: 32, data: data32), name: "32.wav")
        #expect(b.samples == [16384, 32767])
    }

    @Test func readsFloatAndClampsOutOfRangeValues() throws {
        let values: [Float] = [0, 0.5, -0.5, 2.0, -3.0]
        let data = values.flatMap { v -> [UInt8] in (0..<4).map { UInt8((v.bitPattern >> (8 * UInt32($0))) & 0xFF) } }
        let audio = try WAVReader.decode(TestAudio.wav(formatTag: 3, bits: 32, data: data), name: "f.wav")
        #expect(audio.samples == [0, 16384, -16384, 32767, -32768])
    }

    @Test func skipsUnknownChunksAndOddPadding() throws {
        let list: [UInt8] = Array("LIST".utf8) + [3, 0, 0, 0, 1, 2, 3, 0]
        let audio = try WAVReader.decode(TestAudio.wav(data: TestAudio.int16Bytes(samples), extraChunks: list), name: "l.wav")
        #expect(audio.samples == samples)
    }

    static let badFiles: [(String, [UInt8], WAVError)] = {
        let good = TestAudio.int16Bytes([1, 2, 3, 4])
        let nanData: [UInt8] = [0, 0, 0xC0, 0x7F]
        var noFormat = TestAudio.wav(data: good)
        noFormat.replaceSubrange(12..<16, with: Array("junk".utf8))
        let dataOnly: [UInt8] = Array("RIFF".utf8) + [20, 0, 0, 0] + Array("WAVE".utf8) + Array("data".utf8) + [4, 0, 0, 0, 1, 2, 3, 4]
        return [
            ("not riff", Array("OggS and other things".utf8), .notRIFF(path: "x")),
            ("not wave", Array("RIFF".utf8) + [4, 0, 0, 0] + Array("AVI LIST".utf8), .notWAVE(path: "x")),
            ("no fmt before data", dataOnly, .missingFormatChunk(path: "x")),
            ("no data", Array(TestAudio.wav(data: good).prefix(36)), .missingDataChunk(path: "x")),
            ("a-law", TestAudio.wav(formatTag: 6, bits: 8, data: good), .unsupportedEncoding(path: "x", formatTag: 6)),
            ("8-bit", TestAudio.wav(bits: 8, data: good), .unsupportedBitDepth(path: "x", bits: 8, encoding: "integer")),
            (
                "64-bit float", TestAudio.wav(formatTag: 3, bits: 64, data: good + good),
                .unsupportedBitDepth(path: "x", bits: 64, encoding: "float")
            ),
            ("3 channels", TestAudio.wav(channels: 3, data: good + [0, 0, 0, 0]), .unsupportedChannelCount(path: "x", channels: 3)),
            ("96 kHz", TestAudio.wav(rate: 96000, data: good), .unsupportedSampleRate(path: "x", rate: 96000)),
            ("4 kHz", TestAudio.wav(rate: 4000, data: good), .unsupportedSampleRate(path: "x", rate: 4000)),
            (
                "bad block align", TestAudio.wav(data: good, blockAlign: 3),
                .inconsistentFormat(path: "x", detail: "block align 3 for 1 × 16-bit samples")
            ),
            ("truncated", TestAudio.wav(data: good, dataSize: 4000), .truncatedData(path: "x", declared: 4000, available: 8)),
            ("nan", TestAudio.wav(formatTag: 3, bits: 32, data: nanData), .invalidFloatSample(path: "x", index: 0)),
            ("empty", TestAudio.wav(data: []), .empty(path: "x")),
            ("junk fmt", noFormat, .missingFormatChunk(path: "x"))
        ]
    }()

    @Test(arguments: badFiles.map { $0.0 })
    func refusesBadFilesWithTheirOwnError(_ name: String) throws {
        let (_, bytes, expected) = try #require(Self.badFiles.first { $0.0 == name })
        #expect(throws: expected) { try WAVReader.decode(bytes, name: "x") }
    }

    @Test func errorsSayHowToFixThem() {
        let message = WAVError.unsupportedSampleRate(path: "a.wav", rate: 96000).description
        #expect(message.contains("a.wav") && message.contains("96000") && message.contains("sox"))
        #expect(WAVError.truncatedData(path: "b.wav", declared: 10, available: 2).description.contains("truncated"))
    }

    @Test func everyPrefixOfAValidFileIsReadOrRefusedWithoutCrashing() {
        let bytes = TestAudio.wav(channels: 2, bits: 24, data: [UInt8](repeating: 7, count: 60))
        for length in 0..<bytes.count {
            _ = try? WAVReader.decode(Array(bytes.prefix(length)), name: "p")
        }
    }

    @Test func missingFileIsAReadError() {
        #expect(throws: WAVError.cannotRead(path: "/nonexistent/x.wav", reason: "No such file or directory")) {
            try WAVReader.read(path: "/nonexistent/x.wav")
        }
    }
}

@Suite struct WAVLayoutTests {
    /// `catalog build` learns a recording's length from the first bytes of its file.
    @Test func aHeadThatReachesTheDataChunkGivesRateAndLengthAndAShorterOneGivesNothing() throws {
        let file = TestAudio.wav(rate: 44100, data: TestAudio.int16Bytes([Int16](repeating: 5, count: 4410)))
        let whole = try #require(try WAVReader.layout(file, fileSize: file.count, name: "a.wav"))
        #expect(whole.sampleRate == 44100 && whole.frames == 4410 && whole.dataBytes == 8820)
        let head = try #require(try WAVReader.layout(Array(file.prefix(whole.dataStart)), fileSize: file.count, name: "a.wav"))
        #expect(head.frames == 4410 && head.dataStart == whole.dataStart)
        #expect(try WAVReader.layout(Array(file.prefix(20)), fileSize: file.count, name: "a.wav") == nil)
        // The declared data must still fit the file, as when decoding it.
        #expect(throws: WAVError.self) {
            try WAVReader.layout(Array(file.prefix(whole.dataStart)), fileSize: whole.dataStart + 10, name: "a.wav")
        }
    }
}
