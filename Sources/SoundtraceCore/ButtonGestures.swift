/// What a person meant with the button: a short press (listen, or cancel while listening) or a
/// hold of at least `holdMilliseconds` (toggle calm mode, reported while still held). Presses that
/// began before the appliance was ready are ignored, with their release.
public struct ButtonGestures: Sendable {
    public enum Gesture: Sendable, Equatable {
        case shortPress
        case hold
    }

    public let holdMilliseconds: Int64
    private var pressedAt: Int64?
    private var holdReported = false
    /// Presses that began at or after this time count; nil until the appliance is ready.
    private var readyAt: Int64?

    public init(holdMilliseconds: Int64 = 1500) {
        self.holdMilliseconds = holdMilliseconds
    }

    /// The appliance finished starting; presses from now on count.
    public mutating func becomeReady() { readyAt = .min }

    /// The appliance finished starting at `time`; presses that began earlier are ignored even
    /// when their edges are read later (the kernel queues edges while the daemon starts).
    public mutating func becomeReady(at time: Int64) { readyAt = time }

    /// A debounced change. Returns the gesture it completes, if any.
    public mutating func change(_ change: ButtonChange) -> Gesture? {
        if change.pressed {
            pressedAt = readyAt.map { change.at >= $0 } == true ? change.at : nil
            holdReported = false
            return nil
        }
        defer { pressedAt = nil }
        guard let start = pressedAt, !holdReported else { return nil }
        return change.at - start >= holdMilliseconds ? .hold : .shortPress
    }

    /// When a hold becomes due, for the owner's timer (nil when none is pending).
    public var deadline: Int64? {
        guard let start = pressedAt, !holdReported else { return nil }
        return start + holdMilliseconds
    }

    /// Reports a hold once it has lasted long enough, while the button is still down.
    public mutating func settle(now: Int64) -> Gesture? {
        guard let start = pressedAt, !holdReported, now - start >= holdMilliseconds else { return nil }
        holdReported = true
        return .hold
    }
}
