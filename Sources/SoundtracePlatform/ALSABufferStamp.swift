import CALSA
import Glibc

/// The device's own account of its capture buffer: how many frames were waiting and when the
/// driver last updated that count (`snd_pcm_htimestamp`, on CLOCK_MONOTONIC when asked for).
struct ALSABufferStamp: Equatable {
    let available: Int
    let nanoseconds: UInt64

    /// A timestamp further than this from now is not trusted (a plugin that fills it with
    /// another clock or leaves it zero).
    static let plausibleSkewNanoseconds: UInt64 = 2_000_000_000

    static func read(_ pcm: OpaquePointer, now: UInt64) -> ALSABufferStamp? {
        var available: snd_pcm_uframes_t = 0
        var stamp = timespec()
        guard snd_pcm_htimestamp(pcm, &available, &stamp) >= 0 else { return nil }
        return plausible(available: Int(available), seconds: Int64(stamp.tv_sec), nanoseconds: Int64(stamp.tv_nsec), now: now)
    }

    /// The stamp if it is a real, recent CLOCK_MONOTONIC time not in the future.
    static func plausible(available: Int, seconds: Int64, nanoseconds: Int64, now: UInt64) -> ALSABufferStamp? {
        guard seconds > 0 || nanoseconds > 0, seconds >= 0, (0..<1_000_000_000).contains(nanoseconds), available >= 0 else { return nil }
        let value = UInt64(seconds) * 1_000_000_000 + UInt64(nanoseconds)
        guard value <= now, now - value <= plausibleSkewNanoseconds else { return nil }
        return ALSABufferStamp(available: available, nanoseconds: value)
    }
}
