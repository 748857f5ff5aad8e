// WAV files, as `soundtrace match FILE` and `catalog build` read them (RecordingLoader): decoded by
// WAVReader, then resampled to the engine's rate.
//
// SOUNDTRACE_FUZZ_SEEDS=DIR fuzz-wav writes the seed files: every encoding, channel count and
// chunk arrangement the reader accepts, a few bad ones, each a few hundred bytes.
import Glibc
@testable import SoundtraceFingerprint

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let audio = try? WAVReader.decode(bytes, name: "fuzz.wav") else { return 0 }
    expect(!audio.samples.isEmpty && WAVReader.supportedRates.contains(audio.sampleRate), "accepted audio out of bounds")
    let converted = Resampler.convert(audio, to: EngineParameters().sampleRate)
    // The output length follows the rate ratio (the filter's tail aside): no sample is lost or made up.
    let expected = audio.samples.count * converted.sampleRate / audio.sampleRate
    expect(abs(converted.samples.count - expected) <= 2, "resampled \(audio.samples.count) samples into \(converted.samples.count)")
    return 0
}

enum Seeds {
    struct Writer {
        var bytes: [UInt8] = []
        mutating func text(_ s: String) { bytes += Array(s.utf8) }
        mutating func u16(_ v: Int) { bytes += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        mutating func u32(_ v: Int) { for i in 0..<4 { bytes.append(UInt8(v >> (8 * i) & 0xFF)) } }
    }

    /// A RIFF/WAVE file: a `fmt ` chunk (tag 1, 3 or extensible 0xFFFE), `extra` chunks, then `data`.
    static func wav(tag: Int, channels: Int, rate: Int, bits: Int, frames: Int, extra: [UInt8] = [], fmtFirst: Bool = true) -> [UInt8] {
        let align = channels * bits / 8
        var format = Writer()
        format.u16(tag == 0xFFFE ? 0xFFFE : tag)
        format.u16(channels)
        format.u32(rate)
        format.u32(rate * align)
        format.u16(align)
        format.u16(bits)
        if tag == 0xFFFE {
            // cbSize, valid bits, channel mask, then the sub-format GUID whose first two bytes are the encoding.
            format.u16(22); format.u16(bits); format.u32(channels == 2 ? 3 : 4)
            format.u16(bits == 32 ? 3 : 1)
            format.bytes += [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        }
        var samples = Writer()
        for i in 0..<frames * channels {
            // A ramp with a sign flip per channel, scaled into the sample width.
            let value = ((i * 2654435761) % 65536 - 32768) * (i % 2 == 0 ? 1 : -1)
            switch (tag == 3 || (tag == 0xFFFE && bits == 32), bits) {
            case (true, _): samples.u32(Int(Float(Double(value) / 20000).bitPattern))  // some beyond ±1, which clamp
            case (false, 16): samples.u16(value)
            case (false, 24): samples.bytes += [0x5A, UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]
            default: samples.u16(0x1234); samples.u16(value)
            }
        }
        var fmt = Writer()
        fmt.text("fmt "); fmt.u32(format.bytes.count); fmt.bytes += format.bytes
        var body = Writer()
        body.text("WAVE")
        if fmtFirst { body.bytes += fmt.bytes + extra } else { body.bytes += extra }
        body.text("data"); body.u32(samples.bytes.count); body.bytes += samples.bytes
        if !fmtFirst { body.bytes += fmt.bytes }
        var file = Writer()
        file.text("RIFF"); file.u32(body.bytes.count); file.bytes += body.bytes
        return file.bytes
    }

    static func writeAll(to directory: String) {
        var list = Writer()
        list.text("LIST"); list.u32(13); list.text("INFOISFT"); list.u32(1); list.text("x")
        list.bytes.append(0)  // the pad byte of an odd-sized chunk
        let seeds: [(String, [UInt8])] = [
            ("pcm16-mono-8k", wav(tag: 1, channels: 1, rate: 8000, bits: 16, frames: 120)),
            ("pcm16-stereo-44k-list", wav(tag: 1, channels: 2, rate: 44100, bits: 16, frames: 90, extra: list.bytes)),
            ("pcm16-mono-16k", wav(tag: 1, channels: 1, rate: 16000, bits: 16, frames: 100)),
            ("pcm24-stereo-48k", wav(tag: 1, channels: 2, rate: 48000, bits: 24, frames: 60)),
            ("pcm32-mono-22k", wav(tag: 1, channels: 1, rate: 22050, bits: 32, frames: 60)),
            ("float-stereo-32k", wav(tag: 3, channels: 2, rate: 32000, bits: 32, frames: 50)),
            ("extensible-pcm16-11k", wav(tag: 0xFFFE, channels: 1, rate: 11025, bits: 16, frames: 80)),
            ("extensible-float-mono-48k", wav(tag: 0xFFFE, channels: 1, rate: 48000, bits: 32, frames: 60)),
            ("data-before-fmt", wav(tag: 1, channels: 1, rate: 8000, bits: 16, frames: 20, fmtFirst: false)),
            ("unsupported-8bit", wav(tag: 1, channels: 1, rate: 8000, bits: 8, frames: 40)),
            ("truncated", Array(wav(tag: 1, channels: 2, rate: 16000, bits: 16, frames: 50).prefix(150))),
        ]
        for (name, bytes) in seeds {
            let file = fopen("\(directory)/\(name)", "wb")
            expect(file != nil, "cannot write \(directory)/\(name)")
            _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            fclose(file)
            let outcome: String
            do { outcome = "\(try WAVReader.decode(bytes, name: name).samples.count) samples" } catch { outcome = "\(error)" }
            print("\(name): \(bytes.count) bytes, \(outcome)")
        }
    }
}

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutableRawPointer?, _ argv: UnsafeMutableRawPointer?) -> Int32 {
    if let directory = getenv("SOUNDTRACE_FUZZ_SEEDS") {
        Seeds.writeAll(to: String(cString: directory))
        exit(0)
    }
    return 0
}
