/// Turns the device's interleaved little-endian frames into the mono samples the engine takes.
enum MonoMixdown {
    /// The first `frames` frames of `interleaved` as mono: one channel is copied as is; several are
    /// averaged (their sum divided by the channel count, rounded toward zero), so a stereo
    /// microphone whose channels carry the same signal gives that signal back unchanged.
    static func mono(_ interleaved: UnsafeBufferPointer<Int16>, channels: Int, frames: Int) -> [Int16] {
        let channels = max(1, channels)
        // Never read past the buffer, whatever count the caller passes.
        let frames = min(max(0, frames), interleaved.count / channels)
        if channels == 1 {
            return (0..<frames).map { Int16(littleEndian: interleaved[$0]) }
        }
        let count = Int32(channels)
        return (0..<frames).map { frame in
            var sum: Int32 = 0
            let first = frame * channels
            for channel in 0..<channels {
                sum += Int32(Int16(littleEndian: interleaved[first + channel]))
            }
            // The mean of Int16 values always fits in Int16.
            return Int16(truncatingIfNeeded: sum / count)
        }
    }
}
