import Testing

@testable import SoundtraceFingerprint

/// The resampler walks each output's input position from a period worked out once; every
/// position must be the one the division gives, wherever the walk starts (a stream is resumed at
/// any output), including rate pairs whose period is too long to keep.
@Suite struct ResamplerPositionsTests {
    @Test(arguments: [
        (8000, 16000), (11025, 8000), (16000, 8000), (22050, 8000), (32000, 8000), (44100, 8000), (48000, 8000),
        (44100, 48000), (8000, 44100), (47_999, 8000), (44_101, 8000)
    ])
    func theWalkGivesThePositionTheDivisionGives(rates: (input: Int, output: Int)) {
        let positions = ResamplerPositions(inputRate: rates.input, outputRate: rates.output, phases: 64)
        for start in [0, 1, positions.period - 1, positions.period, 3 * positions.period + 7, 100_003] {
            var walk = ResamplerPositions.Walk(positions, from: start)
            for n in start..<(start + 2 * positions.period + 50) {
                let expected = ResamplerPositions.exactPosition(of: n, inputRate: rates.input, outputRate: rates.output, phases: 64)
                let walked = walk.current
                guard walked == expected else {
                    Issue.record("\(rates.input) → \(rates.output) Hz, output \(n) from \(start): \(walked), not \(expected)")
                    return
                }
                walk.next()
            }
        }
    }

    @Test func aPeriodTooLongToKeepIsWalkedAllTheSame() {
        // 44,101 and 8,000 share no factor: the pattern repeats only after 8,000 outputs.
        let positions = ResamplerPositions(inputRate: 44_101, outputRate: 8000, phases: 64)
        #expect(positions.period == 8000 && positions.period > ResamplerPositions.longestKeptPeriod)
        #expect(ResamplerPositions(inputRate: 44_100, outputRate: 8000, phases: 64).period == 80)
    }
}
