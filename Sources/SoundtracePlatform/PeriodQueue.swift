/// Captured mono audio handed out in pieces of at most one period, with each piece's frame
/// position, so that one large read reaches its consumer as the periods it was made of.
struct PeriodQueue {
    private var samples: [Int16] = []
    private var consumed = 0
    private var frame = 0

    /// Replaces whatever was left (the caller hands everything out before it reads again).
    mutating func fill(_ samples: [Int16], frame: Int) {
        self.samples = samples
        self.frame = frame
        consumed = 0
    }

    /// The next piece of at most `maximum` samples, or nil when everything went out.
    mutating func next(maximum: Int) -> (samples: [Int16], frame: Int)? {
        guard consumed < samples.count else { return nil }
        let end = min(samples.count, consumed + max(1, maximum))
        let piece = (samples: Array(samples[consumed..<end]), frame: frame + consumed)
        consumed = end
        if consumed == samples.count { self.samples = [] }
        return piece
    }
}
