import Testing

@testable import SoundtracePlatform

/// Frame bookkeeping with invented times: overruns cannot be provoked through the `file` or
/// `pulse` plugins (the first never runs late, the second buffers on the server), so the gap
/// arithmetic the source applies after an EPIPE or a suspend is checked here.
@Suite struct CaptureTimelineTests {
    let second: UInt64 = 1_000_000_000

    @Test func deliveriesAreNumberedContiguously() {
        var timeline = CaptureTimeline(rate: 8_000)
        timeline.started(atNanoseconds: 5 * second)
        #expect(timeline.delivered(512, atNanoseconds: 5 * second + 64_000_000, stillBuffered: 0) == 0)
        #expect(timeline.delivered(100, atNanoseconds: 5 * second + 80_000_000, stillBuffered: 0) == 512)
        #expect(timeline.nextFrame == 612)
    }

    @Test func anOverrunCountsWhatTheDeviceHeldAndEverythingSinceTheLastRead() {
        var timeline = CaptureTimeline(rate: 8_000)
        timeline.started(atNanoseconds: 0)
        _ = timeline.delivered(1_000, atNanoseconds: second, stillBuffered: 300)
        // Restarted half a second after the last read: 300 waiting frames + 4000 frames of time.
        #expect(timeline.restarted(atNanoseconds: second + second / 2) == 4_300)
        #expect(timeline.delivered(10, atNanoseconds: 2 * second, stillBuffered: 0) == 5_300)
    }

    @Test func anOverrunBeforeTheFirstReadIsMeasuredFromTheStart() {
        var timeline = CaptureTimeline(rate: 16_000)
        timeline.started(atNanoseconds: 10 * second)
        #expect(timeline.restarted(atNanoseconds: 11 * second) == 16_000)
        #expect(timeline.nextFrame == 16_000)
    }

    @Test func aRestartAlwaysLeavesAVisibleGap() {
        var timeline = CaptureTimeline(rate: 8_000)
        timeline.started(atNanoseconds: second)
        _ = timeline.delivered(64, atNanoseconds: 2 * second, stillBuffered: 0)
        // A clock that did not move (or went backwards) still yields a gap of at least one frame.
        #expect(timeline.restarted(atNanoseconds: 2 * second) == 1)
        #expect(timeline.restarted(atNanoseconds: second) == 1)
        #expect(timeline.nextFrame == 66)
    }

    @Test func longGapsDoNotOverflow() {
        var timeline = CaptureTimeline(rate: 48_000)
        timeline.started(atNanoseconds: 0)
        // Ten hours at 48 kHz.
        #expect(timeline.restarted(atNanoseconds: 36_000 * second) == 36_000 * 48_000)
    }
}

@Suite struct ALSABufferStampTests {
    @Test func onlyRecentMonotonicStampsAreTrusted() {
        let now: UInt64 = 5_000_000_000_000
        #expect(
            ALSABufferStamp.plausible(available: 80, seconds: 4_999, nanoseconds: 900_000_000, now: now)
                == ALSABufferStamp(available: 80, nanoseconds: 4_999_900_000_000))
        // Zero (a plugin without timestamps), the future, the wall clock (far ahead) and stale times are not.
        #expect(ALSABufferStamp.plausible(available: 80, seconds: 0, nanoseconds: 0, now: now) == nil)
        #expect(ALSABufferStamp.plausible(available: 80, seconds: 5_000, nanoseconds: 1, now: now) == nil)
        #expect(ALSABufferStamp.plausible(available: 80, seconds: 1_795_966_802, nanoseconds: 0, now: now) == nil)
        #expect(ALSABufferStamp.plausible(available: 80, seconds: 4_990, nanoseconds: 0, now: now) == nil)
        #expect(ALSABufferStamp.plausible(available: -1, seconds: 4_999, nanoseconds: 0, now: now) == nil)
    }
}
