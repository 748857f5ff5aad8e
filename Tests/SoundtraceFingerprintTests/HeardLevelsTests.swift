import Testing

@testable import SoundtraceFingerprint

@Suite struct HeardLevelsTests {
    /// 30 s of frames at the engine's rate with a layout of 99 values: every value reads back at its
    /// frame across the blocks' edges, and the store holds at most one block more than it heard.
    @Test func everyFrameReadsBackAndTheStoreGrowsByABlock() {
        let stride = 99
        var levels = HeardLevels(frameStride: stride)
        let frames = 30 * EngineParameters().sampleRate / EngineParameters().hopSize + 7
        for frame in 0..<frames {
            levels.append((0..<stride).map { UInt64(frame * 1_000 + $0) })
            let roomFor = (levels.frames + HeardLevels.framesPerBlock) * stride
            #expect(levels.capacity <= roomFor, "room beyond one block after frame \(frame)")
        }
        #expect(levels.frames == frames)
        for frame in [0, 1, 63, 64, 65, 127, 128, frames - 1] {
            #expect(levels[frame, 0] == UInt64(frame * 1_000))
            #expect(levels[frame, stride - 1] == UInt64(frame * 1_000 + stride - 1))
        }
    }
}
