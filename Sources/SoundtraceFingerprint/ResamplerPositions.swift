/// Where each output sample of a rate conversion lies in the input: the input sample at or before
/// it and the 64th of a sample after that (the filter's phase). The positions repeat every
/// `period` outputs, moving `advance` input samples on, so one period is worked out once and the
/// resampler walks it with additions instead of two 64-bit divisions per output sample
/// (docs/BENCHMARKS.md, "Cost"). Every position is the one `exactPosition` gives.
struct ResamplerPositions: Sendable {
    let inputRate: Int
    let outputRate: Int
    let phases: Int
    /// Outputs after which the pattern repeats, and the input samples it moves on by then.
    let period: Int
    let advance: Int
    /// Per output of one period: its input index counted from the period's start, and its phase.
    /// Empty when the period is too long to keep (a rate pair no recording or device uses); the
    /// walk then works each position out on its own.
    private let offsets: [Int32]
    private let phaseOf: [UInt8]

    /// Periods longer than this are not kept (44.1 kHz to 8 kHz repeats every 80 outputs, 44.1 to
    /// 48 kHz every 160; the longest a supported pair can have is 48,000).
    static let longestKeptPeriod = 4096

    init(inputRate: Int, outputRate: Int, phases: Int) {
        precondition(inputRate > 0 && outputRate > 0 && phases > 0 && phases <= Int(UInt8.max))
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.phases = phases
        let common = Self.greatestCommonDivisor(inputRate, outputRate)
        period = outputRate / common
        advance = inputRate / common
        if period <= Self.longestKeptPeriod {
            let positions = (0..<period).map { Self.exactPosition(of: $0, inputRate: inputRate, outputRate: outputRate, phases: phases) }
            offsets = positions.map { Int32($0.index) }
            phaseOf = positions.map { UInt8($0.phase) }
        } else {
            offsets = []
            phaseOf = []
        }
    }

    /// The input sample at or before output `n`, and the phase rounded to 1/phases of a sample (a
    /// phase that rounds up to a whole sample is phase 0 of the next one).
    static func exactPosition(of n: Int, inputRate: Int, outputRate: Int, phases: Int) -> (index: Int, phase: Int) {
        let exact = n * inputRate  // in units of 1/outputRate input samples
        var index = exact / outputRate
        var phase = ((exact % outputRate) * phases + outputRate / 2) / outputRate
        if phase == phases {
            index += 1
            phase = 0
        }
        return (index, phase)
    }

    func position(of n: Int) -> (index: Int, phase: Int) {
        Self.exactPosition(of: n, inputRate: inputRate, outputRate: outputRate, phases: phases)
    }

    /// Positions of outputs `first`, `first + 1`, … in turn.
    struct Walk {
        private let positions: ResamplerPositions
        private var output: Int
        /// Output `output` is `slot` outputs into a period that starts at input `periodStart`.
        private var slot: Int
        private var periodStart: Int

        init(_ positions: ResamplerPositions, from first: Int) {
            self.positions = positions
            output = first
            slot = first % positions.period
            periodStart = (first / positions.period) * positions.advance
        }

        /// The current output's position.
        var current: (index: Int, phase: Int) {
            if positions.offsets.isEmpty { return positions.position(of: output) }
            return (periodStart + Int(positions.offsets[slot]), Int(positions.phaseOf[slot]))
        }

        mutating func next() {
            output += 1
            slot += 1
            if slot == positions.period {
                slot = 0
                periodStart += positions.advance
            }
        }
    }

    private static func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return x
    }
}
