/// Is everything the reference plays at an alignment also in what was heard, and nothing else but
/// noise and the room?
///
/// Noise, a room and a microphone add sound and colour it, but they cannot take away what the
/// recording plays: where the reference is loud in a band, the heard band is at least as loud as
/// the reference (times the room's gain) plus the noise floor. Music that shares one layer with a
/// reference (a loop, a riff, a bass line) but is another recording lacks the reference's other
/// layers: where those are loud, the heard band falls short. That shortfall is the first measure,
/// per band: the noise floor is the heard band's quiet end, the gain the median ratio over the
/// reference's loud moments, and the shortfall how far the heard level falls below
/// gain × reference + floor there, beyond a margin for the stored levels' 3 dB steps.
///
/// Nor can noise or a room make the recording play what it does not: above the floor, what they
/// add is an echo of what the recording has just played, dying away. Another recording that keeps
/// one layer plays its own notes where the reference is quiet. That surplus is the second measure:
/// how far the heard level stands above gain × reference + floor, where the reference's level also
/// rings on from the cells before (`containmentEchoShift`), beyond the same margin; the heard level
/// here is the quietest of the neighbouring frames, as the shortfall's is the loudest, so that
/// neither counts an alignment's one-frame slack against the recording. Both are means over cells
/// and bands, in log2 units (Q12; 4096 ≈ 3 dB). Integer arithmetic only.
///
/// Sound added in bursts (people talking) lifts the median gain of the bands it covers, and the
/// cells between its bursts then look short. So where the surplus shows that much was added, over
/// enough cells, the shortfall is measured again with each band's gain taken from its steadiest
/// half of cells, when that is lower (`steadiestHalf`); what another recording lacks stays missing
/// either way.
struct ContainmentCheck: Equatable {
    /// Reference level frames compared (each covers every band).
    let cells: Int
    /// Reference level frames that lined up with what was heard, before the quiet ends were left
    /// out: how long a stretch was heard (never fewer than `cells`; 0 where not counted).
    var alignedCells = 0
    /// How long a stretch was heard, in level frames: `alignedCells` where counted, else `cells`.
    var heardCells: Int { max(cells, alignedCells) }
    /// Mean shortfall below the expected level, log2 Q12 (4096 = 3.01 dB).
    let shortfallQ12: Int
    /// How far the reference's loudest level (times the gain) stands above the heard noise floor,
    /// mean over bands, log2 Q8: an estimate of the signal-to-noise ratio of what was heard.
    var clearanceQ8 = 0
    /// Mean surplus above the expected level, echo included, log2 Q12 (4096 = 3.01 dB).
    var surplusQ12 = 0
    /// Where the surplus reached `containmentTalkSurplusQ12` over at least `containmentTalkMinCells`
    /// cells: the shortfall again, with each band's gain that of its steadiest half of cells when
    /// lower than the median (`steadiestHalf`).
    var steadiestGainShortfallQ12: Int? = nil
    /// How far the heard bands' loud end (`containmentHeardLoudShareQ8`) stands above their noise
    /// floor, mean over bands, log2 Q8: how clearly they were heard, whatever the reference plays.
    var heardRangeQ8 = 0
    /// The same shortfall (the deciding one) and heard range over the low level bands, below 300 Hz;
    /// nil where they heard nothing to compare.
    var lowShortfallQ12: Int? = nil
    var lowHeardRangeQ8: Int? = nil
    /// The steady-noise model's deviations (`ContainmentCheck+SteadyNoise`), over the bands above
    /// and below 300 Hz; nil where not measured (heard clearly, the question is not asked).
    var noiseModelMisfit: NoiseModelMisfit? = nil
    /// Its best mean, Q12 (4096 = 1.0: the recording in steady noise).
    var steadyNoiseMisfitQ12: Int? { noiseModelMisfit?.meanQ12 }

    /// The shortfall the decision uses: the re-measured one where it was re-measured.
    var decidingShortfallQ12: Int { min(shortfallQ12, steadiestGainShortfallQ12 ?? shortfallQ12) }

    /// The deciding shortfall in dB (reporting only).
    var shortfallDecibels: Double { Double(decidingShortfallQ12) / 4096 * 3.0103 }
    /// Surplus in dB (reporting only).
    var surplusDecibels: Double { Double(surplusQ12) / 4096 * 3.0103 }

    /// Whether the alignment checked by `signature` holds everything the reference plays there: a
    /// small shortfall, or a moderate one (a room's colouring) where the signatures agree closely
    /// and little else was heard, or where next to nothing else was heard at all. A room that takes
    /// away partials adds only its echo, and noise flips signature bits without adding notes; music
    /// that lacks some of the reference and plays notes of its own is another recording. Where
    /// nothing is missing, a surplus is no evidence either way: people talking over the recording
    /// add one.
    func passes(_ p: EngineParameters, signature: SignatureCheck) -> Bool {
        tier(p, signature: signature) != nil && !lowBandsMissing(p) && !moreThanSteadyNoise(p, signature: signature)
    }

    /// Whether, heard through noise (`heardThroughNoise`), what was heard is more than the
    /// reference and steady noise: new notes coming and going where the reference has none, or
    /// the reference's notes missing, cell by cell. Where the noise hides a replaced accompaniment
    /// from every mean, it still makes the heard levels wander more than noise alone can. Asked
    /// even where sound was added in bursts (`steadiestGainShortfallQ12`): people talking over the
    /// recording in noise are refused with it, because a new accompaniment adds its notes in
    /// bursts too, and the surplus cannot tell the two apart.
    func moreThanSteadyNoise(_ p: EngineParameters, signature: SignatureCheck) -> Bool {
        guard heardThroughNoise(p, signature: signature), let misfit = steadyNoiseMisfitQ12 else { return false }
        return misfit > Self.steadyNoiseMaxMisfitQ12(p, signatureErrorRateQ12: signature.errorRateQ12)
    }

    /// The most misfit allowed: the general bar, or deep in noise, where the recording fits as
    /// noise alone does, the tighter one (`containmentDeepNoiseMaxMisfitQ12`).
    static func steadyNoiseMaxMisfitQ12(_ p: EngineParameters, signatureErrorRateQ12: Int) -> Int {
        signatureErrorRateQ12 >= p.containmentDeepNoiseErrorRateQ12
            ? p.containmentDeepNoiseMaxMisfitQ12 : p.containmentSteadyNoiseMaxMisfitQ12
    }

    /// Whether the low bands, heard clearly, fall short of what the reference plays there (another
    /// bass line under the same upper parts). Where they were not heard clearly, no evidence.
    func lowBandsMissing(_ p: EngineParameters) -> Bool {
        guard let shortfall = lowShortfallQ12, let range = lowHeardRangeQ8 else { return false }
        return range >= p.containmentLowMinHeardRangeQ8 && shortfall > p.containmentLowMaxShortfallQ12
    }

    /// Whether, heard through noise (the reference's loud end less than `containmentNoisyClearanceQ8`
    /// above the heard floor), much more than the reference was heard (the surplus that starts the
    /// steadier gain's second look, `containmentTalkSurplusQ12`) over too short a stretch to take
    /// that second look (`containmentTalkMinCells`). Heard clearly, a piece that keeps one layer
    /// falls short where the reference's other layers are loud; in noise those layers lie near the
    /// floor, the noise fills in for them, and what the piece plays instead, its surplus, is the
    /// evidence left. People talking add a surplus too, and in a short stretch nothing tells the
    /// two apart: a live session listens on.
    func somethingElseHeardTooBriefly(_ p: EngineParameters) -> Bool {
        clearanceQ8 < p.containmentNoisyClearanceQ8 && surplusQ12 >= p.containmentTalkSurplusQ12
            && cells < p.containmentTalkMinCells
    }

    /// Whether what was heard stood little above its noise floor while the signatures disagree as
    /// noise makes them: then a short stretch cannot tell the recording from a piece that keeps
    /// only its melody, and every tier wants `containmentNoisyMinCells` level frames.
    func heardThroughNoise(_ p: EngineParameters, signature: SignatureCheck) -> Bool {
        clearanceQ8 < p.containmentNoisyClearanceQ8 && signature.errorRateQ12 >= p.containmentNoisyErrorRateQ12
    }

    /// Which bar the alignment passed in the bands above 300 Hz, nil when it passed none (`passes`
    /// also asks the low bands).
    func tier(_ p: EngineParameters, signature: SignatureCheck) -> ContainmentTier? {
        guard cells >= p.containmentMinCells else { return nil }
        guard !heardThroughNoise(p, signature: signature) || heardCells >= p.containmentNoisyMinCells else { return nil }
        guard !somethingElseHeardTooBriefly(p) else { return nil }
        let shortfallQ12 = decidingShortfallQ12
        if shortfallQ12 <= p.containmentMaxShortfallQ12 { return .nothingMissing }
        guard shortfallQ12 <= p.containmentColouredMaxShortfallQ12 else { return nil }
        let addsNothingElse =
            surplusQ12 <= p.containmentMaxSurplusQ12 || signature.errorRateQ12 <= p.containmentCloseErrorRateQ12
        if signature.errorRateQ12 <= p.containmentColouredMaxErrorRateQ12 && addsNothingElse { return .coloured }
        if cells >= p.containmentQuietMinCells && surplusQ12 <= p.containmentQuietMaxSurplusQ12
            && signature.errorRateQ12 <= p.containmentQuietMaxErrorRateQ12
        {
            return .colouredInNoise
        }
        return nil
    }

    /// The check of `reference` at `offsetFrames` and speed `speedStep`, over the query frames
    /// heard after the smoothing window filled; nil when no kept reference frame lines up. The
    /// query's band b of frame f is `query[f, first + b]`. `signatureErrorRateQ12`
    /// (the alignment's signature disagreement) says whether the steady-noise model is asked;
    /// only `heardFrames` are taken as heard (`QueryMatcher.framesOffSilentEdges`).
    static func measure(
        heardFrames: Range<Int> = 0..<Int.max, query: HeardLevels, first: Int, queryFrames: Int, catalog: Catalog,
        reference: Int,
        offsetFrames: Int, speedStep: Int, signatureErrorRateQ12: Int
    ) -> ContainmentCheck? {
        let p = catalog.parameters
        let lowBands = p.lowLevelBandEdges.count - 1
        let alignment = Alignment(
            heardFrames: heardFrames, query: query, queryFrames: queryFrames, catalog: catalog,
            reference: reference,
            offsetFrames: offsetFrames, speedStep: speedStep)
        let askSteadyNoise = signatureErrorRateQ12 >= p.containmentNoisyErrorRateQ12
        var highInput: MisfitInput? = nil
        var lowInput: MisfitInput? = nil
        guard
            var check = alignment.measure(
                first: first + lowBands, bands: p.levelBandEdges.count - 1, word: 0,
                misfitSpreadsQ12: askSteadyNoise ? p.steadyNoiseSpreadQ12 : nil,
                misfitBelowClearanceQ8: p.containmentNoisyClearanceQ8, misfitInput: &highInput)
        else { return nil }
        let lowSpreads = highInput == nil ? nil : p.lowSteadyNoiseSpreadQ12
        if let low = alignment.measure(first: first, bands: lowBands, word: 1, misfitSpreadsQ12: lowSpreads, misfitInput: &lowInput),
            low.cells > 0
        {
            check.lowShortfallQ12 = low.decidingShortfallQ12
            check.lowHeardRangeQ8 = low.heardRangeQ8
        } else {
            lowInput = nil
        }
        if let highInput {
            check.noiseModelMisfit = steadyNoiseMisfit(
                of: [highInput] + (lowInput.map { [$0] } ?? []), parameters: p,
                barQ12: steadyNoiseMaxMisfitQ12(p, signatureErrorRateQ12: signatureErrorRateQ12))
        }
        return check
    }

    /// Smoothed band power below which a cell counts as digital silence (every band).
    static let silence: UInt64 = 256

    /// The median of the half of `sorted` (ascending) that spans the fewest log2 units: the gain
    /// of the cells that agree most closely, which sound added in bursts (words) does not reach,
    /// as it reaches the median. The first such half on a tie.
    static func steadiestHalf(of sorted: [UInt64]) -> UInt64 {
        let logs = sorted.map { Int(FixedLog.log2Q8(max($0, 1))) }
        let half = (logs.count + 1) / 2
        var start = 0
        var width = Int.max
        for i in 0...(logs.count - half) where logs[i + half - 1] - logs[i] < width {
            width = logs[i + half - 1] - logs[i]
            start = i
        }
        return sorted[start + (half - 1) / 2]
    }

    /// One band's mean shortfall over the reference's loud cells and mean surplus over all its cells
    /// (`heard` the loudest, `lows` the quietest of each cell's neighbouring frames), log2 Q12; nil
    /// when the reference is never above its floor there (a level at the floor only says "this quiet
    /// or quieter").
    static func bandMeasures(
        heard: [UInt64], lows: [UInt64], steps: [Int], floor: UInt64,
        parameters p: EngineParameters, steadiestGain: Bool
    ) -> (shortfall: Int, clearance: Int, surplus: Int)? {
        let cells = heard.count
        // The loudest share of the reference's cells (fewest steps below its loudest level).
        let loudest = steps.sorted()[min(cells - 1, cells * p.containmentLoudShareQ8 / 256)]
        let shift = ReferenceLevels.maxStep
        // Gain in units of the reference's loudest level: the heard power above the floor, per
        // unit of reference power (2^(maxStep - step) at `step` steps below the loudest).
        var ratios: [UInt64] = []
        for c in 0..<cells where steps[c] <= loudest && steps[c] < shift {
            let above = heard[c] > floor ? heard[c] - floor : 0
            ratios.append(above >> UInt64(shift - steps[c]))
        }
        guard !ratios.isEmpty else { return nil }
        ratios.sort()
        let median = ratios[ratios.count / 2]
        let gain = steadiestGain ? min(median, steadiestHalf(of: ratios)) : median
        var surplusSum = 0
        var echo: UInt64 = 0  // the reference's level here, or what the room still rings with
        for c in 0..<cells {
            let s = min(steps[c], shift)
            let (scaled, overflow) = gain.multipliedReportingOverflow(by: 1 << UInt64(shift - s))
            echo = max(overflow ? UInt64.max : scaled, echo >> UInt64(p.containmentEchoShift))
            let (expected, carry) = echo.addingReportingOverflow(floor)
            let expectedLog = Int(FixedLog.log2Q8(carry ? UInt64.max : expected))
            let heardLog = Int(FixedLog.log2Q8(max(lows[c], 1)))
            surplusSum += max(0, heardLog - expectedLog - p.containmentMarginQ8)
        }
        var sum = 0
        for c in 0..<cells where steps[c] <= loudest && steps[c] < shift {
            let (scaled, overflow) = gain.multipliedReportingOverflow(by: 1 << UInt64(shift - steps[c]))
            let (expected, carry) = (overflow ? UInt64.max : scaled).addingReportingOverflow(floor)
            let expectedLog = Int(FixedLog.log2Q8(carry ? UInt64.max : expected))
            let heardLog = Int(FixedLog.log2Q8(max(heard[c], 1)))
            sum += max(0, expectedLog - heardLog - p.containmentMarginQ8)
        }
        let (top, overflow) = gain.multipliedReportingOverflow(by: 1 << UInt64(shift))
        let clearance = Int(FixedLog.log2Q8(overflow ? UInt64.max : top)) - Int(FixedLog.log2Q8(max(floor, 1)))
        return (sum * 16 / ratios.count, clearance, surplusSum * 16 / cells)
    }
}
