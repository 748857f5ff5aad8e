/// Heard through noise, is what was heard the reference and steady noise, and nothing else?
///
/// The shortfall and surplus are means: in noise, a piece that keeps the reference's melody and
/// replaces its accompaniment falls short by a few hundredths of a dB, as the recording itself does,
/// because the noise fills what it lacks. This measure asks cell by cell instead. Each band is
/// modelled as the reference's stored level times a gain, plus one steady noise power; steady noise
/// wanders around its mean by a known share (`EngineParameters.steadyNoiseSpreadQ12`: the fewer
/// bins a band has, the more), and where the recording plays under it the cross term wanders more.
/// The misfit is the mean squared deviation from the best such model, in units of that spread: about
/// 1 for the recording in steady noise, more where new notes come and go. Per band the gain is
/// searched on a grid of steps of 2^(1/4), refined to 2^(1/16); the noise is what the gain
/// leaves unexplained on average; the query is tried on time and, where that misfits, a frame early
/// and a frame late, and the best fit is judged. Integer arithmetic only (128-bit where products
/// need it).
extension ContainmentCheck {
    /// The steady-noise model's summed deviations over one or more band layouts.
    struct NoiseModelMisfit: Equatable {
        /// Per shift of the query against the reference that was tried (`misfitShifts`, in order:
        /// on time, and where that misfits a frame early and a frame late): the summed squared
        /// deviations, Q12.
        var sumsQ12: [Int]
        /// Cells times bands summed.
        var terms: Int

        static func + (a: Self, b: Self) -> Self {
            Self(sumsQ12: zip(a.sumsQ12, b.sumsQ12).map { $0 + $1 }, terms: a.terms + b.terms)
        }

        /// The best shift's mean squared deviation, Q12 (4096 = 1.0).
        var meanQ12: Int { terms > 0 ? (sumsQ12.min() ?? 0) / terms : 0 }
    }

    /// The query shifts tried: on time first, then a frame early and a frame late.
    static let misfitShifts = [0, -1, 1]

    /// What one band layout gives the model: the query's levels at each shift of `misfitShifts`
    /// (`shifted[k]`) and the reference's steps, cell after cell over `cells`, `bands` a cell.
    struct MisfitInput {
        let shifted: [[UInt64]]
        let steps: [Int]
        let cells: Range<Int>
        let bands: Int
        let spreadsQ12: [Int]
    }

    /// The misfit over every layout in `inputs`: on time first; only where that misfit is over the
    /// bar that applies (`barQ12`, `steadyNoiseMaxMisfitQ12`) are the other shifts tried, since the
    /// best of them is what is judged and on time mostly fits. Nil when no band counts.
    static func steadyNoiseMisfit(of inputs: [MisfitInput], parameters p: EngineParameters, barQ12: Int) -> NoiseModelMisfit? {
        func at(_ k: Int) -> NoiseModelMisfit? {
            var result: NoiseModelMisfit? = nil
            for input in inputs {
                guard let m = layoutMisfit(input, shift: k, slackQ12: p.containmentSteadyNoiseSlackQ12) else { continue }
                result = result.map { $0 + m } ?? m
            }
            return result
        }
        guard var misfit = at(0) else { return nil }
        guard misfit.meanQ12 > barQ12 else { return misfit }
        for k in 1..<misfitShifts.count {
            guard let other = at(k), other.terms == misfit.terms else { continue }
            misfit.sumsQ12 += other.sumsQ12
        }
        return misfit
    }

    /// One layout's summed deviations at shift `misfitShifts[k]`, over the bands that count.
    static func layoutMisfit(_ input: MisfitInput, shift k: Int, slackQ12: Int) -> NoiseModelMisfit? {
        var sum = 0
        var terms = 0
        var column = [UInt64](repeating: 0, count: input.cells.count)
        var columnSteps = [Int](repeating: 0, count: input.cells.count)
        for b in 0..<input.bands {
            for c in input.cells {
                column[c - input.cells.lowerBound] = input.shifted[k][c * input.bands + b]
                columnSteps[c - input.cells.lowerBound] = input.steps[c * input.bands + b]
            }
            guard
                let m = bandMisfitQ12(heard: column, steps: columnSteps, spreadQ12: input.spreadsQ12[b], slackQ12: slackQ12)
            else { continue }
            sum += m
            terms += input.cells.count
        }
        return terms > 0 ? NoiseModelMisfit(sumsQ12: [sum], terms: terms) : nil
    }

    /// One band's least summed squared deviation (Q12) from reference × gain + steady noise, over
    /// `heard` (the query's band power per cell) and `steps` (the reference's stored level, in 3 dB
    /// steps below its loudest); nil when the band heard nothing or the reference is silent there.
    static func bandMisfitQ12(heard: [UInt64], steps: [Int], spreadQ12: Int, slackQ12: Int) -> Int? {
        let cells = heard.count
        guard cells > 0, cells == steps.count else { return nil }
        // The heard powers in units of their mean / 4096, at most 4096 times the mean.
        let loudest = heard.max() ?? 0
        let shift = max(0, (UInt64.bitWidth - loudest.leadingZeroBitCount) - 40)
        let scaled = heard.map { $0 >> UInt64(shift) }
        let mean = scaled.reduce(0, +) / UInt64(cells)
        guard mean > 0 else { return nil }
        let unit: Int128 = 4096
        let q = scaled.map { min(Int128($0) * unit / Int128(mean), unit * 4096) }
        let r = steps.map { $0 < ReferenceLevels.maxStep ? Int128(1) << Int128(ReferenceLevels.maxStep - $0) : 0 }
        let sumQ = q.reduce(0, +)
        let sumR = r.reduce(0, +)
        guard sumR > 0 else { return nil }
        let leastNoise = unit * 2 / 100
        let spread = Int128(spreadQ12)
        let slack = Int128(slackQ12)
        // The largest gain the mean allows (the noise cannot be negative), Q16.
        let topGain = sumQ * 65536 / sumR
        // The fit at a gain of topGain × 2^(-sixteenths / 16).
        func misfit(sixteenths: Int) -> Int128 {
            let gain = ((topGain * Int128(negativePowersOfTwo16[sixteenths % 16])) >> 16) >> Int128(sixteenths / 16)
            var explained: Int128 = 0
            for c in 0..<cells { explained += (gain * r[c]) >> 16 }
            let noise = max(leastNoise, (sumQ - explained) / Int128(cells))
            var sum: Int128 = 0
            for c in 0..<cells {
                let expected = (gain * r[c]) >> 16
                let deviation = q[c] - expected - noise
                let wander = (slack * expected) >> 12
                let variance = max(1, ((spread * (noise * noise + 2 * expected * noise)) >> 12) + wander * wander)
                sum += min(deviation * deviation * 4096 / variance, maxCellMisfitQ12)
            }
            return sum
        }
        var best = (sixteenths: 0, misfit: misfit(sixteenths: 0))
        for coarse in stride(from: 4, through: 108, by: 4) {
            let m = misfit(sixteenths: coarse)
            if m < best.misfit { best = (coarse, m) }
        }
        let centre = best.sixteenths
        for fine in [centre - 3, centre - 2, centre - 1, centre + 1, centre + 2, centre + 3] where fine >= 0 {
            let m = misfit(sixteenths: fine)
            if m < best.misfit { best = (fine, m) }
        }
        return Int(best.misfit)
    }

    /// One cell's squared deviation counts for at most 100 (ten spreads): a click or a cough in one
    /// cell must not outweigh the rest.
    static let maxCellMisfitQ12: Int128 = 100 * 4096

    /// 2^(-k/16) for k = 0…15, Q16.
    static let negativePowersOfTwo16: [Int] = [
        65536, 62757, 60097, 57549, 55109, 52773, 50535, 48393, 46341, 44376, 42495, 40693, 38968, 37316, 35734, 34219
    ]
}
