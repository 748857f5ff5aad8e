import SoundtraceCore
import SoundtracePlatform

/// What a test read from a source: the samples in order and the frame position of every chunk.
struct CapturedAudio {
    var samples: [Int16] = []
    /// (frame, count) of each `.audio` event, in order.
    var chunks: [(frame: Int, count: Int)] = []
    var timeouts = 0

    /// Whether every chunk starts where the previous one ended, beginning at `first`.
    func isContiguous(from first: Int) -> Bool {
        var expected = first
        for chunk in chunks {
            if chunk.frame != expected { return false }
            expected += chunk.count
        }
        return true
    }
}

extension AudioSource {
    /// Reads until at least `frames` frames arrived or `maxReads` reads were made, whichever is
    /// first. Read failures are thrown to the test.
    func collect(frames: Int, maxReads: Int = 1_000, timeoutMilliseconds: Int = 2_000) throws -> CapturedAudio {
        var captured = CapturedAudio()
        var reads = 0
        while captured.samples.count < frames, reads < maxReads {
            reads += 1
            switch try read(timeoutMilliseconds: timeoutMilliseconds) {
            case let .audio(samples, frame):
                captured.samples += samples
                captured.chunks.append((frame, samples.count))
            case .timeout:
                captured.timeouts += 1
            case .woken:
                return captured
            }
        }
        return captured
    }
}
