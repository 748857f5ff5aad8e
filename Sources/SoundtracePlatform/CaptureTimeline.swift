/// Frame positions since the device was opened, kept honest across overruns: audio the device lost
/// is counted as if delivered, so the caller sees a jump (a gap) instead of audio spliced together.
///
/// The loss is estimated from CLOCK_MONOTONIC: everything the device captured after the last good
/// read (what it still held then, plus the elapsed time × rate) is gone once the ring buffer is reset.
struct CaptureTimeline {
    /// Frames per second the device delivers.
    let rate: Int
    /// Position of the next frame to be delivered.
    private(set) var nextFrame = 0
    /// When the last frames were delivered (or the stream started), if it has started.
    private var referenceNanoseconds: UInt64?
    /// Frames the device still held, unread, at `referenceNanoseconds`.
    private var bufferedAtReference = 0

    init(rate: Int) {
        self.rate = rate
    }

    /// The stream (re)started running at `nanoseconds` with an empty buffer.
    mutating func started(atNanoseconds nanoseconds: UInt64) {
        referenceNanoseconds = nanoseconds
        bufferedAtReference = 0
    }

    /// `count` frames were read at `nanoseconds`, leaving `stillBuffered` unread in the device.
    /// Returns the position of the first of them.
    mutating func delivered(_ count: Int, atNanoseconds nanoseconds: UInt64, stillBuffered: Int) -> Int {
        let first = nextFrame
        nextFrame += count
        referenceNanoseconds = nanoseconds
        bufferedAtReference = max(0, stillBuffered)
        return first
    }

    /// The device lost its buffer (overrun or suspend) and runs again from `nanoseconds`. Advances
    /// the position past the lost audio and returns how many frames were counted lost (at least one:
    /// an overrun always overwrote something).
    @discardableResult
    mutating func restarted(atNanoseconds nanoseconds: UInt64) -> Int {
        var lost = bufferedAtReference
        if let reference = referenceNanoseconds, nanoseconds > reference {
            let elapsed = nanoseconds - reference
            // Whole seconds and the remainder separately, so hours of elapsed time cannot overflow.
            let seconds = Int(elapsed / 1_000_000_000)
            let rest = Int(elapsed % 1_000_000_000)
            lost += seconds * rate + rest * rate / 1_000_000_000
        }
        lost = max(lost, 1)
        nextFrame += lost
        referenceNanoseconds = nanoseconds
        bufferedAtReference = 0
        return lost
    }
}
