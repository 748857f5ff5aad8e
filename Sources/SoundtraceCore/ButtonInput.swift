/// The button from raw edges to gestures: the "stable for N ms" debouncer (skipped when the kernel
/// already debounced the edges) feeding `ButtonGestures`. The owner hands it edges as they are
/// read and calls `settle` at `deadline`; nothing polls.
public struct ButtonInput: Sendable {
    /// True when the edges arrive debounced (the kernel's debounce attribute was accepted).
    public let debouncedEdges: Bool
    /// How long a level must hold (also how late the kernel reports a debounced edge).
    public let stableMilliseconds: Int64
    private var debouncer: ButtonDebouncer
    private var gestures: ButtonGestures
    /// The last level of pre-debounced edges (repeated levels, e.g. after a lost event, are dropped).
    private var level = false

    public init(debouncedEdges: Bool, stableMilliseconds: Int64 = 30, holdMilliseconds: Int64 = 1500) {
        self.debouncedEdges = debouncedEdges
        self.stableMilliseconds = stableMilliseconds
        debouncer = ButtonDebouncer(stableMilliseconds: stableMilliseconds)
        gestures = ButtonGestures(holdMilliseconds: holdMilliseconds)
    }

    /// The appliance is ready from `time` on; presses that began earlier are ignored with their release.
    public mutating func becomeReady(at time: Int64) {
        gestures.becomeReady(at: time)
    }

    /// A raw edge; returns the gestures it (or a deadline that passed before it) completes.
    public mutating func edge(_ edge: ButtonEdge) -> [ButtonGestures.Gesture] {
        var out = settle(now: edge.at)
        if debouncedEdges {
            guard edge.pressed != level else { return out }
            level = edge.pressed
            if let gesture = gestures.change(ButtonChange(pressed: edge.pressed, at: edge.at)) { out.append(gesture) }
        } else if let change = debouncer.edge(pressed: edge.pressed, at: edge.at), let gesture = gestures.change(change) {
            out.append(gesture)
        }
        return out
    }

    /// When `settle` must run next (nil while the button is at rest: no timer at all). A hold
    /// waits until a release that came before it would have been known: while an edge is being
    /// debounced here, and for the kernel's debounce delay when the kernel debounces. Otherwise a
    /// press released just under the hold time would count as a hold.
    public var deadline: Int64? {
        if let pending = debouncer.deadline { return pending }
        return gestures.deadline.map { debouncedEdges ? $0 + stableMilliseconds : $0 }
    }

    /// Runs every deadline up to `now`, in time order; returns the gestures they complete.
    public mutating func settle(now: Int64) -> [ButtonGestures.Gesture] {
        var out: [ButtonGestures.Gesture] = []
        while let due = deadline, due <= now {
            if debouncer.deadline != nil {
                if let change = debouncer.settle(now: due), let gesture = gestures.change(change) { out.append(gesture) }
            } else if let gesture = gestures.settle(now: due) {
                out.append(gesture)
            }
        }
        return out
    }
}
