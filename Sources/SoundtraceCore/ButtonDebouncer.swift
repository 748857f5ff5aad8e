/// Turns a bouncing contact into clean presses and releases with the "stable for N ms" rule on
/// event timestamps: a level counts once it has held for `stableMilliseconds`. No lockout: a
/// release right after a press is never dropped, it only waits out its own bounce.
public struct ButtonDebouncer: Sendable {
    public let stableMilliseconds: Int64
    /// The accepted level (true = pressed).
    public private(set) var isPressed = false
    private var rawPressed = false
    private var lastEdge: Int64 = 0

    public init(stableMilliseconds: Int64 = 30) {
        self.stableMilliseconds = stableMilliseconds
    }

    /// A raw edge from the GPIO line at `time` (ms). Returns an accepted change that became due
    /// before this edge, if any.
    public mutating func edge(pressed: Bool, at time: Int64) -> ButtonChange? {
        let due = settle(now: time)
        rawPressed = pressed
        lastEdge = time
        return due
    }

    /// When the owner should call `settle` (nil when nothing is pending): no polling in between.
    public var deadline: Int64? {
        rawPressed != isPressed ? lastEdge + stableMilliseconds : nil
    }

    /// Accepts the raw level if it has been stable long enough by `now`.
    public mutating func settle(now: Int64) -> ButtonChange? {
        guard rawPressed != isPressed, now - lastEdge >= stableMilliseconds else { return nil }
        isPressed = rawPressed
        return ButtonChange(pressed: isPressed, at: lastEdge)
    }
}

/// A debounced change of the button, timed at the edge that started it.
public struct ButtonChange: Sendable, Equatable {
    public let pressed: Bool
    public let at: Int64
}
