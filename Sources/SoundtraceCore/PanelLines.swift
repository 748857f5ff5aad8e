/// The kiosk's physical lines — one button in, two LEDs and a buzzer out — as the daemon drives
/// them. Implementations are named for their technology: libgpiod (`GPIOPanelLines`) on
/// a kiosk, a fake in tests. Levels are logical (true = pressed, lit, sounding); an implementation
/// maps them to electrical levels (the button is active-low).
public protocol PanelLines: AnyObject {
    /// The descriptor that becomes readable when button edges wait to be read (for `poll`).
    var buttonDescriptor: Int32 { get }
    /// True when the edges were already debounced (by the kernel); otherwise the reader applies
    /// the "stable for N ms" rule itself on the edges' timestamps.
    var debouncedEdges: Bool { get }
    /// The edges that arrived since the last read, oldest first, without waiting.
    func readButtonEdges() throws(PanelLinesFault) -> [ButtonEdge]
    /// The button's current level.
    func buttonIsPressed() throws(PanelLinesFault) -> Bool
    /// Drives the LEDs and the buzzer.
    func set(_ levels: PanelLevels) throws(PanelLinesFault)
}

/// One raw change of the button line, timed in monotonic milliseconds (the kernel's event clock).
public struct ButtonEdge: Sendable, Equatable {
    public let pressed: Bool
    public let at: Int64

    public init(pressed: Bool, at: Int64) {
        self.pressed = pressed
        self.at = at
    }
}

/// What the outputs show at one moment.
public struct PanelLevels: Sendable, Equatable, CustomStringConvertible {
    public var listening: Bool
    public var result: Bool
    public var buzzer: Bool

    public init(listening: Bool, result: Bool, buzzer: Bool) {
        self.listening = listening
        self.result = result
        self.buzzer = buzzer
    }

    /// Both LEDs dark, the buzzer silent.
    public static let dark = PanelLevels(listening: false, result: false, buzzer: false)

    /// e.g. `L- R+ B-`, for logs and test failures.
    public var description: String {
        "L\(listening ? "+" : "-") R\(result ? "+" : "-") B\(buzzer ? "+" : "-")"
    }
}

/// The line names of the panel, as configured (e.g. `GPIO17`).
public struct PanelLineNames: Sendable, Equatable {
    public var button: String
    public var listeningLED: String
    public var resultLED: String
    public var buzzer: String

    public init(button: String = "GPIO17", listeningLED: String = "GPIO23", resultLED: String = "GPIO24", buzzer: String = "GPIO25") {
        self.button = button
        self.listeningLED = listeningLED
        self.resultLED = resultLED
        self.buzzer = buzzer
    }

    /// Each line with its role, in the order they are opened and reported.
    public var roles: [(role: String, name: String)] {
        [("button", button), ("listening LED", listeningLED), ("result LED", resultLED), ("buzzer", buzzer)]
    }
}

/// A panel line failed after it was opened (a read or a write): what failed, why, what to do.
public struct PanelLinesFault: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
