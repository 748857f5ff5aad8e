/// Mono 16-bit audio at a known sample rate: what every input becomes before the front end.
public struct PCMAudio: Sendable, Equatable {
    public let sampleRate: Int
    public var samples: [Int16]

    public init(sampleRate: Int, samples: [Int16]) {
        self.sampleRate = sampleRate
        self.samples = samples
    }

    /// Duration in seconds (reporting only).
    public var durationSeconds: Double { Double(samples.count) / Double(sampleRate) }
}
