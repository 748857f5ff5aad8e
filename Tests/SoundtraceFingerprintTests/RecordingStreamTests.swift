import Foundation
import SoundtraceTestSupport
import Testing

@testable import SoundtraceFingerprint

/// A recording read a block at a time must be the same audio, the same checksum and the same
/// errors as the whole file read at once, however the blocks fall across frames and chunks.
@Suite struct RecordingStreamTests {
    let parameters = EngineParameters()

    private func file(_ bytes: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "recording-stream-\(UUID().uuidString).wav"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func bytes(_ values: [Int], width: Int) -> [UInt8] {
        values.flatMap { v in (0..<width).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    }

    /// Stereo, mono, 16/24/32-bit integer and float, with a chunk before the audio, one after it,
    /// and a partial frame at the end of the data.
    private func recordings() -> [(name: String, bytes: [UInt8])] {
        let tone = TestAudio.music(seed: 11, seconds: 3, rate: 44100).samples
        let list = Array("LIST".utf8) + [5, 0, 0, 0] + Array("abcde".utf8) + [0]
        let trailer = Array("junk".utf8) + [3, 0, 0, 0, 1, 2, 3]
        let stereo16 = TestAudio.int16Bytes(tone.flatMap { [$0, $0 / 2] })
        var withTrailer = TestAudio.wav(channels: 2, rate: 44100, data: stereo16 + [9], extraChunks: list)
        withTrailer += [0] + trailer
        let samples24 = bytes(tone.prefix(48000).map { Int($0) * 256 + 17 }, width: 3)
        let samples32 = bytes(tone.prefix(32000).map { Int($0) * 65536 - 5 }, width: 4)
        let floats = tone.prefix(22050).flatMap { value -> [UInt8] in
            let bits = (Float(value) / 32768).bitPattern
            return (0..<4).map { UInt8(truncatingIfNeeded: bits >> (8 * UInt32($0))) }
        }
        return [
            ("stereo 44.1 kHz 16-bit with chunks around the audio", withTrailer),
            ("mono 48 kHz 24-bit", TestAudio.wav(rate: 48000, bits: 24, data: samples24)),
            ("stereo 32 kHz 32-bit", TestAudio.wav(channels: 2, rate: 32000, bits: 32, data: samples32)),
            ("mono 22.05 kHz float", TestAudio.wav(formatTag: 3, rate: 22050, bits: 32, data: floats)),
            ("mono at the engine's rate", TestAudio.wav(rate: UInt32(parameters.sampleRate), data: TestAudio.int16Bytes(tone)))
        ]
    }

    @Test(arguments: [1, 7, 4096, RecordingStream.defaultBlockBytes])
    func blocksOfAnySizeGiveTheWholeFilesAudioAndChecksum(blockBytes: Int) throws {
        for recording in recordings() {
            let path = try file(recording.bytes)
            defer { unlink(path) }
            let whole = try RecordingLoader.load(path: path, parameters: parameters, checksum: true)
            var streamed: [Int16] = []
            let summary = try RecordingStream.decode(path: path, parameters: parameters, blockBytes: blockBytes) { streamed += $0 }
            #expect(streamed == whole.audio.samples, "\(recording.name), blocks of \(blockBytes)")
            #expect(summary.samples == whole.audio.samples.count)
            #expect(summary.sourceSHA256 == whole.sourceSHA256, "\(recording.name)")
            #expect(try RecordingStream.sha256(path: path, blockBytes: blockBytes) == whole.sourceSHA256)
            #expect(try RecordingLoader.engineSampleCount(path: path, parameters: parameters) == whole.audio.samples.count)
        }
    }

    @Test func aFingerprintBuiltAPieceAtATimeIsTheWholeRecordingsFingerprint() throws {
        let audio = TestAudio.micChain(TestAudio.music(seed: 5, seconds: 12, rate: parameters.sampleRate), seed: 3)
        let whole = try ReferenceFingerprinter.fingerprint(of: audio, parameters: parameters)
        let builder = try ReferenceFingerprinter.Builder(parameters: parameters)
        var start = 0
        var piece = 1
        while start < audio.samples.count {
            let end = min(audio.samples.count, start + piece)
            builder.push(Array(audio.samples[start..<end]))
            start = end
            piece = piece * 3 % 5003 + 1  // pieces from 1 sample to several frames, never aligned
        }
        let pieces = builder.finish()
        #expect(pieces.landmarks == whole.landmarks)
        #expect(pieces.frames == whole.frames)
        #expect(pieces.signatures == whole.signatures)
        #expect(pieces.levels == whole.levels)
        #expect(!whole.landmarks.isEmpty)
    }

    /// Damaged files: the streamed read refuses each with the error the whole read gives.
    @Test func damagedFilesGiveTheErrorsOfTheWholeRead() throws {
        let samples = TestAudio.int16Bytes([Int16](repeating: 1000, count: 16000))
        var nan = TestAudio.int16Bytes([Int16](repeating: 0, count: 3000))
        nan += [0, 0, 0xC0, 0x7F]  // a NaN as the 1,501st float sample
        let cases: [(String, [UInt8])] = [
            ("not RIFF", Array("RIFX".utf8) + [UInt8](repeating: 0, count: 40)),
            ("data longer than the file", TestAudio.wav(data: samples, dataSize: UInt32(samples.count + 100))),
            ("no audio", TestAudio.wav(data: [])),
            ("a NaN sample", TestAudio.wav(formatTag: 3, bits: 32, data: nan)),
            ("no data chunk", Array(TestAudio.wav(data: samples).prefix(36)))
        ]
        for (name, bytes) in cases {
            let path = try file(bytes)
            defer { unlink(path) }
            var wholeError: WAVError? = nil
            do { _ = try RecordingLoader.load(path: path, parameters: parameters) } catch { wholeError = error }
            var streamError: WAVError? = nil
            do { _ = try RecordingStream.decode(path: path, parameters: parameters, blockBytes: 5) { _ in } } catch { streamError = error }
            #expect(wholeError != nil, "\(name)")
            #expect(streamError == wholeError, "\(name): \(String(describing: streamError)) vs \(String(describing: wholeError))")
        }
    }

    @Test func aMissingFileOrADirectoryIsACannotRead() throws {
        for path in ["/nonexistent/recording.wav", NSTemporaryDirectory()] {
            #expect(throws: WAVError.self) { try RecordingStream.sha256(path: path) }
            do {
                _ = try RecordingStream.decode(path: path, parameters: parameters) { _ in }
                Issue.record("\(path) was read")
            } catch {
                guard case .cannotRead = error else {
                    Issue.record("\(error)")
                    continue
                }
            }
        }
    }

    @Test(arguments: [1, 4096, 1 << 16])
    func aQueryReadsOnlyWhatItAnalysesAndTheSamplesAreTheWholeReadsFirst(blockBytes: Int) throws {
        for recording in recordings() {
            let path = try file(recording.bytes)
            defer { unlink(path) }
            let whole = try RecordingLoader.load(path: path, parameters: parameters).audio.samples
            for count in [1, 1000, whole.count - 100, whole.count, whole.count + 5000] {
                let prefix = try RecordingStream.prefix(path: path, parameters: parameters, count: count, blockBytes: blockBytes).samples
                #expect(prefix.count >= min(count, whole.count), "\(recording.name), \(count)")
                #expect(Array(whole.prefix(prefix.count)) == prefix, "\(recording.name), \(count)")
            }
        }
        // A file far longer than a query is read only as far as the query needs: the rest of
        // this one is not even audio, and it is not reached.
        var parameters = EngineParameters()
        parameters.maxQuerySeconds = 1
        let tone = TestAudio.int16Bytes(TestAudio.music(seed: 3, seconds: 2, rate: 8000).samples)
        var long = TestAudio.wav(rate: 8000, data: tone + [UInt8](repeating: 0, count: 4 << 20))
        let garbageFrom = long.count - (4 << 20)
        long.replaceSubrange(garbageFrom..<long.count, with: [UInt8](repeating: 0x80, count: 4 << 20))
        let path = try file(long)
        defer { unlink(path) }
        let audio = try RecordingLoader.loadQuery(path: path, parameters: parameters)
        #expect(audio.samples.count > parameters.maxQuerySeconds * parameters.sampleRate)
        // At most one 64 KiB block beyond what was wanted (32,768 samples here), not the file's
        // two million.
        #expect(audio.samples.count <= parameters.maxQuerySeconds * parameters.sampleRate + parameters.fftSize + 32_768)
        #expect(Array(audio.samples.prefix(8000)) == Array(TestAudio.music(seed: 3, seconds: 2, rate: 8000).samples.prefix(8000)))
    }

    @Test func aPipeOrADeviceIsRefusedAtOnceInsteadOfReadForever() throws {
        let fifo = NSTemporaryDirectory() + "recording-stream-\(UUID().uuidString).fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        // Opening a FIFO nobody writes to would wait for a writer; it must not even be opened blocking.
        for path in [fifo, "/dev/zero"] {
            do {
                _ = try RecordingLoader.load(path: path, parameters: parameters)
                Issue.record("\(path) was read")
            } catch {
                #expect(error.description.contains("not a regular file; give the path of a file"), "\(error)")
                #expect(!error.description.contains("permissions"), "\(error)")
            }
        }
        do {
            _ = try FileBytes.read(path: fifo, limit: 4096)
            Issue.record("the FIFO was read")
        } catch {
            #expect(error == .system(code: EINVAL, reason: "it is a pipe or FIFO, not a regular file; give the path of a file"))
        }
    }
}
