/// The containment check's measure over one band layout at a time (`ContainmentCheck.measure`).
extension ContainmentCheck {
    /// One reference alignment, measured over one band layout at a time.
    struct Alignment {
        /// The query frames taken as heard: not those whose level reaches into the digital silence
        /// before or after the audio.
        let heardFrames: Range<Int>
        let query: HeardLevels
        let queryFrames: Int
        let catalog: Catalog
        let reference: Int
        let offsetFrames: Int
        let speedStep: Int

        /// The check over `bands` bands, the query's from band `first` of each frame, the reference's
        /// in level word `word` of each kept frame; with `misfitSpreadsQ12` (one per band), also what
        /// the steady-noise model needs (`ContainmentCheck+SteadyNoise`) into `misfitInput`, where the
        /// clearance is under `misfitBelowClearanceQ8` (the only place it is asked).
        func measure(
            first: Int, bands: Int, word wordOffset: Int, misfitSpreadsQ12: [Int]? = nil, misfitBelowClearanceQ8: Int = .max,
            misfitInput: inout MisfitInput?
        ) -> ContainmentCheck? {
            let p = catalog.parameters
            let length = catalog.references[reference].durationFrames
            let start = catalog.levelStart[reference]
            let n = p.speedDenominator + speedStep
            let d = p.speedDenominator
            var heard: [UInt64] = []
            var quietest: [UInt64] = []
            var steps: [Int] = []
            // The query's own level at each shift of `misfitShifts`, cell after cell.
            var shifted = [[UInt64]](repeating: [], count: misfitSpreadsQ12 == nil ? 0 : ContainmentCheck.misfitShifts.count)
            for frame in (p.signatureSmoothingFrames - 1)..<queryFrames {
                let referenceFrame = offsetFrames + (speedStep == 0 ? frame : roundedDivide(frame * n, d))
                guard referenceFrame >= 0, referenceFrame < length, referenceFrame % p.levelStepFrames == 0 else { continue }
                guard heardFrames.contains(frame) else { continue }
                let word = catalog.levels[
                    start + ReferenceLevels.wordsPerFrame * (referenceFrame / p.levelStepFrames) + wordOffset]
                // The louder of the neighbouring frames too: an alignment is only as exact as a frame,
                // and a strike entering or leaving the smoothing window moves a level by several dB.
                let earliest = max(p.signatureSmoothingFrames - 1, frame - 1)
                let latest = min(queryFrames - 1, frame + 1)
                var levels = [UInt64](repeating: 0, count: bands)
                for b in 0..<bands {
                    for f in earliest...latest { levels[b] = max(levels[b], query[f, first + b]) }
                }
                var lows = [UInt64](repeating: UInt64.max, count: bands)
                for b in 0..<bands {
                    for f in earliest...latest { lows[b] = min(lows[b], query[f, first + b]) }
                }
                // Digital silence (a bridged gap in the capture) was not heard at all: no evidence.
                guard levels.contains(where: { $0 >= ContainmentCheck.silence }) else { continue }
                heard += levels
                quietest += lows
                for (k, shift) in ContainmentCheck.misfitShifts.enumerated() where k < shifted.count {
                    let f = min(max(frame + shift, p.signatureSmoothingFrames - 1), queryFrames - 1)
                    for b in 0..<bands { shifted[k].append(query[f, first + b]) }
                }
                for b in 0..<bands { steps.append(ReferenceLevels.step(word, band: b)) }
            }
            let cells = heard.count / bands
            guard cells > 0 else { return nil }
            var column = [UInt64](repeating: 0, count: cells)
            var floors = [UInt64](repeating: 0, count: bands)
            var heardRange = 0
            for b in 0..<bands {
                for c in 0..<cells { column[c] = heard[c * bands + b] }
                let sorted = column.sorted()
                floors[b] = sorted[cells * p.containmentNoiseFloorShareQ8 / 256]
                heardRange +=
                    Int(FixedLog.log2Q8(max(sorted[cells * p.containmentHeardLoudShareQ8 / 256], 1)))
                    - Int(FixedLog.log2Q8(max(floors[b], 1)))
            }
            // Leading and trailing cells where every band is at its noise floor heard nothing but the
            // room: the recording started after listening did, or stopped before it ended. What lies
            // between must hold all of the reference; a different recording is never this quiet.
            func quiet(_ c: Int) -> Bool { (0..<bands).allSatisfy { heard[c * bands + $0] <= 2 * floors[$0] } }
            var lower = 0
            var upper = cells
            while lower < upper && quiet(lower) { lower += 1 }
            while upper > lower && quiet(upper - 1) { upper -= 1 }
            guard upper > lower else { return ContainmentCheck(cells: 0, shortfallQ12: 0) }
            func overBands(steadiestGain: Bool) -> (shortfall: Int, clearance: Int, surplus: Int, counted: Int) {
                var total = 0
                var clearance = 0
                var surplus = 0
                var counted = 0
                var column = [UInt64](repeating: 0, count: upper - lower)
                var lowColumn = [UInt64](repeating: 0, count: upper - lower)
                var columnSteps = [Int](repeating: 0, count: upper - lower)
                for b in 0..<bands {
                    for c in lower..<upper {
                        column[c - lower] = heard[c * bands + b]
                        lowColumn[c - lower] = quietest[c * bands + b]
                        columnSteps[c - lower] = steps[c * bands + b]
                    }
                    guard
                        let band = ContainmentCheck.bandMeasures(
                            heard: column, lows: lowColumn, steps: columnSteps, floor: floors[b], parameters: p,
                            steadiestGain: steadiestGain)
                    else { continue }
                    total += band.shortfall
                    clearance += band.clearance
                    surplus += band.surplus
                    counted += 1
                }
                return (total, clearance, surplus, counted)
            }
            let measured = overBands(steadiestGain: false)
            guard measured.counted > 0 else { return ContainmentCheck(cells: 0, shortfallQ12: 0) }
            var check = ContainmentCheck(
                cells: upper - lower, shortfallQ12: measured.shortfall / measured.counted,
                clearanceQ8: measured.clearance / measured.counted, surplusQ12: measured.surplus / measured.counted,
                heardRangeQ8: heardRange / bands)
            check.alignedCells = cells
            if let spreads = misfitSpreadsQ12, check.clearanceQ8 < misfitBelowClearanceQ8 {
                misfitInput = MisfitInput(shifted: shifted, steps: steps, cells: lower..<upper, bands: bands, spreadsQ12: spreads)
            }
            // Something was added (people talking, most often): what it added must not make the
            // rest look short. The surplus stays as first measured: it is what was added. Only over
            // enough of the recording: in a shorter stretch, a piece that keeps one layer can find a
            // steadiest half that hides what it lacks.
            if check.surplusQ12 >= p.containmentTalkSurplusQ12 && check.cells >= p.containmentTalkMinCells {
                let steadier = overBands(steadiestGain: true)
                check.steadiestGainShortfallQ12 = steadier.shortfall / max(1, steadier.counted)
            }
            return check
        }
    }
}
