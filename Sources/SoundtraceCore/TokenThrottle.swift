/// Paces token guesses per source address and overall, across connections: a per-connection
/// delay alone lets a client guess again at once on a new connection. Each wrong token from an
/// address doubles how long its next attempt waits for an answer (from 1 s up to 5 min), and every
/// wrong token from anywhere adds a little to a shared queue, so many addresses together still
/// guess slowly. Bounded: at most `capacity` addresses are remembered (the quietest forgotten).
public struct TokenThrottle: Sendable {
    struct Record: Sendable {
        var failures = 0
        /// Monotonic milliseconds before which the next attempt from this address is not answered.
        var nextTurn: Int64 = 0
        var lastSeen: Int64 = 0
    }

    public let capacity: Int
    public let firstDelayMilliseconds: Int64
    public let maxDelayMilliseconds: Int64
    public let globalSpacingMilliseconds: Int64
    private var records: [String: Record] = [:]
    private var globalNextTurn: Int64 = 0

    public init(
        capacity: Int = 256, firstDelayMilliseconds: Int64 = 1000, maxDelayMilliseconds: Int64 = 300_000,
        globalSpacingMilliseconds: Int64 = 100
    ) {
        self.capacity = capacity
        self.firstDelayMilliseconds = firstDelayMilliseconds
        self.maxDelayMilliseconds = maxDelayMilliseconds
        self.globalSpacingMilliseconds = globalSpacingMilliseconds
    }

    /// When an attempt from `address` arriving at `now` may be answered (now, for an address with
    /// no recent wrong tokens while the shared queue is empty).
    public func turn(for address: String, now: Int64) -> Int64 {
        max(now, records[address]?.nextTurn ?? now, globalNextTurn)
    }

    /// Records a wrong token from `address`, answered at `answeredAt`; returns how many wrong
    /// tokens that address has sent since its last success.
    @discardableResult
    public mutating func failed(_ address: String, answeredAt: Int64) -> Int {
        var record = records[address] ?? Record()
        record.failures += 1
        let doublings = min(record.failures - 1, 20)
        let delay = min(maxDelayMilliseconds, firstDelayMilliseconds << Int64(doublings))
        record.nextTurn = answeredAt + delay
        record.lastSeen = answeredAt
        records[address] = record
        globalNextTurn = max(globalNextTurn, answeredAt) + globalSpacingMilliseconds
        if records.count > capacity, let quietest = records.min(by: { $0.value.lastSeen < $1.value.lastSeen })?.key {
            records.removeValue(forKey: quietest)
        }
        return record.failures
    }

    /// A right token: the address starts afresh.
    public mutating func succeeded(_ address: String) {
        records.removeValue(forKey: address)
    }

    /// Whether the `count`-th wrong token from one address is worth a log line: the first, then
    /// 10, 100, 1000, …, so that a guessing client cannot flood the log.
    public static func isWorthLogging(_ count: Int) -> Bool {
        var n = count
        while n >= 10 && n % 10 == 0 { n /= 10 }
        return n == 1
    }
}
