/// How the ALSA capture source sizes its buffers, which formats it accepts and how hard it tries to
/// recover, gathered in one value so nothing is tuned by a scattered literal.
public struct ALSACaptureParameters: Sendable, Equatable {
    /// Requested period (the device's wake-up interval): short enough that a cancel or a match is
    /// acted on quickly, long enough that a small board is not woken hundreds of times a second.
    public var periodMicroseconds: Int
    /// Periods per ring buffer: room to ride out a busy moment without holding much memory
    /// (6 × 64 ms ≈ 0.4 s of audio).
    public var periodsPerBuffer: Int
    /// Lowest rate accepted when the device cannot give the preferred one (the caller resamples).
    public var lowestRate: Int
    /// Highest rate accepted when the device cannot give the preferred one.
    public var highestRate: Int
    /// Most channels the source will take and mix down when the device refuses mono.
    public var maximumChannels: Int
    /// How often `snd_pcm_resume` is retried while a waking driver answers "try again".
    public var resumeAttempts: Int
    /// Wait between resume attempts; `wake()` cuts it short.
    public var resumeWaitMilliseconds: Int
    /// Most device names listed in a "device not found" answer.
    public var deviceListLimit: Int

    /// The values the daemon uses: 64 ms periods, 6 periods of buffer, 8–48 kHz, up to 2 channels.
    public static let standard = ALSACaptureParameters(
        periodMicroseconds: 64_000, periodsPerBuffer: 6, lowestRate: 8_000, highestRate: 48_000,
        maximumChannels: 2, resumeAttempts: 10, resumeWaitMilliseconds: 100, deviceListLimit: 12)

    /// Creates a parameter set; see `standard` for the values the daemon uses.
    public init(
        periodMicroseconds: Int, periodsPerBuffer: Int, lowestRate: Int, highestRate: Int,
        maximumChannels: Int, resumeAttempts: Int, resumeWaitMilliseconds: Int, deviceListLimit: Int
    ) {
        self.periodMicroseconds = periodMicroseconds
        self.periodsPerBuffer = periodsPerBuffer
        self.lowestRate = lowestRate
        self.highestRate = highestRate
        self.maximumChannels = maximumChannels
        self.resumeAttempts = resumeAttempts
        self.resumeWaitMilliseconds = resumeWaitMilliseconds
        self.deviceListLimit = deviceListLimit
    }
}
