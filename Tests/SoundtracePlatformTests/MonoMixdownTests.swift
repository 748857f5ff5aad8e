import Testing

@testable import SoundtracePlatform

@Suite struct MonoMixdownTests {
    @Test func monoIsCopied() {
        let input: [Int16] = [1, -2, 3, .min, .max]
        let output = input.withUnsafeBufferPointer { MonoMixdown.mono($0, channels: 1, frames: 5) }
        #expect(output == input)
    }

    @Test func stereoIsAveragedTowardZeroWithoutOverflow() {
        let input: [Int16] = [10, 20, -3, 0, .max, .max, .min, .min, .min, .max, 7, 8]
        let output = input.withUnsafeBufferPointer { MonoMixdown.mono($0, channels: 2, frames: 6) }
        #expect(output == [15, -1, .max, .min, 0, 7])
    }

    @Test func onlyTheFramesReadAreConvertedAndNeverMoreThanTheBufferHolds() {
        let input: [Int16] = [1, 1, 2, 2, 3, 3]
        #expect(input.withUnsafeBufferPointer { MonoMixdown.mono($0, channels: 2, frames: 2) } == [1, 2])
        #expect(input.withUnsafeBufferPointer { MonoMixdown.mono($0, channels: 2, frames: 9) } == [1, 2, 3])
    }
}
