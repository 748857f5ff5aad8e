import Testing

@testable import SoundtraceFingerprint

@Suite struct HeardLevelsTests {
    /// 30 s of frames at the engine's rate with 44 distinct values a frame read as 99: every value
    /// reads back at its frame across the blocks' edges through its column, and the store holds at
    /// most one block more than it heard.
    @Test func everyFrameReadsBackAndTheStoreGrowsByABlock() {
        let stride = 44
        let column = (0..<99).map { ($0 * 7) % stride }
        var levels = HeardLevels(frameStride: stride, column: column)
        let frames = 30 * EngineParameters().sampleRate / EngineParameters().hopSize + 7
        for frame in 0..<frames {
            levels.append((0..<stride).map { UInt64(frame * 1_000 + $0) })
            let roomFor = (levels.frames + HeardLevels.framesPerBlock) * stride
            #expect(levels.capacity <= roomFor, "room beyond one block after frame \(frame)")
        }
        #expect(levels.frames == frames)
        for frame in [0, 1, 63, 64, 65, 127, 128, frames - 1] {
            for index in [0, 1, 50, 98] {
                #expect(levels[frame, index] == UInt64(frame * 1_000 + column[index]))
            }
        }
    }

    /// The query's nine speed layouts share most bands: each distinct band is kept once, and every
    /// layout's band still reads the smoothed power of exactly its own bins, as summing each
    /// layout's bands on its own does.
    @Test func distinctBandsGiveEveryLayoutItsOwnBinsLevels() {
        let p = EngineParameters()
        let numerators = p.speedSteps.map { p.speedDenominator + $0 }
        let extractor = BandLevelExtractor(parameters: p, speedNumerators: numerators, speedDenominator: p.speedDenominator)
        #expect(extractor.column.count == 99)
        #expect(extractor.distinctBands.count == 44)
        let base = BandLevelExtractor.allEdges(p)
        var state: UInt64 = 0x1234_5678
        var window: [[UInt64]] = []
        for frame in 0..<40 {
            let power = (0...(p.fftSize / 2)).map { _ -> UInt64 in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return (state >> 20) & (frame % 5 == 0 ? 0xFFFF_FFFF_FFFF : 0xF_FFFF)
            }
            extractor.push(power: power)
            window.append(power)
            if window.count > p.signatureSmoothingFrames { window.removeFirst() }
            for (layout, n) in numerators.enumerated() {
                let edges = base.map { min(p.fftSize / 2, roundedDivide($0 * n, p.speedDenominator)) }
                for band in 0..<extractor.bands {
                    let expected = window.reduce(UInt64(0)) { sum, power in
                        sum + power[edges[band]..<edges[band + 1]].reduce(0) { $0 + ($1 >> BandLevelExtractor.powerShift) }
                    }
                    #expect(
                        extractor.sums[layout * extractor.bands + band] == expected,
                        "frame \(frame), layout \(layout), band \(band)")
                }
            }
        }
    }
}
