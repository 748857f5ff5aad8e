import Glibc

/// Why a WAV file could not be read. Each description says what failed and how to fix it.
public enum WAVError: Error, Equatable, CustomStringConvertible {
    case cannotRead(path: String, reason: String)
    case tooLarge(path: String, bytes: Int, limit: Int)
    case notRIFF(path: String)
    case notWAVE(path: String)
    case malformedChunk(path: String, detail: String)
    case missingFormatChunk(path: String)
    case missingDataChunk(path: String)
    case unsupportedEncoding(path: String, formatTag: Int)
    case unsupportedBitDepth(path: String, bits: Int, encoding: String)
    case unsupportedChannelCount(path: String, channels: Int)
    case unsupportedSampleRate(path: String, rate: Int)
    case inconsistentFormat(path: String, detail: String)
    case truncatedData(path: String, declared: Int, available: Int)
    case invalidFloatSample(path: String, index: Int)
    case empty(path: String)

    static let conversionHint = "convert it with: sox INPUT -b 16 -c 1 -r 16000 OUTPUT.wav"

    public var description: String {
        switch self {
        case let .cannotRead(path, reason):
            return "cannot read \(path): \(reason)\(WAVError.readAdvice(reason))"
        case let .tooLarge(path, bytes, limit):
            return "\(path) is \(bytes) bytes, more than the \(limit)-byte limit for one recording; split it or shorten it"
        case let .notRIFF(path):
            return "\(path) is not a WAV file (no RIFF header); \(Self.conversionHint)"
        case let .notWAVE(path):
            return "\(path) is a RIFF file but not WAVE audio; \(Self.conversionHint)"
        case let .malformedChunk(path, detail):
            return "\(path) is a damaged WAV file (\(detail)); re-export it or \(Self.conversionHint)"
        case let .missingFormatChunk(path):
            return "\(path) has no 'fmt ' chunk before its audio, so its format is unknown; \(Self.conversionHint)"
        case let .missingDataChunk(path):
            return "\(path) has no 'data' chunk (no audio); re-export it or \(Self.conversionHint)"
        case let .unsupportedEncoding(path, tag):
            return "\(path) uses WAV encoding \(tag), but only PCM integer (1) and 32-bit float (3) are supported; \(Self.conversionHint)"
        case let .unsupportedBitDepth(path, bits, encoding):
            return
                "\(path) has \(bits)-bit \(encoding) samples, but only 16/24/32-bit integer and 32-bit float are supported; \(Self.conversionHint)"
        case let .unsupportedChannelCount(path, channels):
            return "\(path) has \(channels) channels, but only mono and stereo are supported; \(Self.conversionHint)"
        case let .unsupportedSampleRate(path, rate):
            return "\(path) is sampled at \(rate) Hz, but 8000–48000 Hz is supported; \(Self.conversionHint)"
        case let .inconsistentFormat(path, detail):
            return "\(path) has an inconsistent format chunk (\(detail)); re-export it or \(Self.conversionHint)"
        case let .truncatedData(path, declared, available):
            return
                "\(path) is truncated: its data chunk declares \(declared) bytes but only \(available) are present; re-copy or re-export the file"
        case let .invalidFloatSample(path, index):
            return "\(path) has an invalid (NaN or infinite) float sample at frame \(index); re-export it or \(Self.conversionHint)"
        case let .empty(path):
            return "\(path) contains no audio frames; record or export it again"
        }
    }
}

extension WAVError {
    /// Advice that fits why the file could not be read (a missing file, a permission, a pipe
    /// already says what to do in its reason).
    static func readAdvice(_ reason: String) -> String {
        if reason == String(cString: strerror(EACCES)) || reason == String(cString: strerror(EPERM)) {
            return "; check its permissions"
        }
        if reason == String(cString: strerror(ENOENT)) || reason == String(cString: strerror(ENOTDIR)) { return "; check the path" }
        return ""
    }
}
