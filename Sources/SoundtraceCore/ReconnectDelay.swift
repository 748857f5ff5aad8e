/// How long the MQTT link waits before its next attempt to reach the broker: 1 s after the first
/// failure, doubling up to a minute, back to 1 s once connected. A kiosk that lost its broker
/// thus tries 7 times in the first two minutes and then once a minute, and never spins.
public struct ReconnectDelay: Sendable, Equatable {
    public static let firstMilliseconds: Int64 = 1000
    public static let longestMilliseconds: Int64 = 60_000

    private var next = firstMilliseconds

    public init() {}

    /// The wait before the next attempt, after one more failure.
    public mutating func failed() -> Int64 {
        let wait = next
        next = min(next * 2, Self.longestMilliseconds)
        return wait
    }

    /// The broker accepted the link: the next outage starts from the shortest wait again.
    public mutating func connected() { next = Self.firstMilliseconds }
}
