import SoundtraceCore

/// The appliance's physical face as the main loop drives it: button gestures in, the state shown
/// out. `LinesPanel` drives a button, two LEDs and a buzzer (GPIO on a kiosk); `ConsolePanel` is
/// the simulated one for machines without GPIO (state lines on stdout, Enter as the button).
///
/// Threading: `indicator` is called by the appliance from any thread; everything else only from
/// the main loop, which polls `pollDescriptor`, sleeps until `deadline` and then calls `service`.
protocol Panel: AnyObject {
    /// What the appliance calls on every state change.
    var indicator: StateIndicator { get }
    /// Readable when button input waits; -1 when there is none to watch.
    var pollDescriptor: Int32 { get }
    /// When `service` must run even if nothing is readable (nil: not until something happens).
    var deadline: Int64? { get }
    /// Start-up is over: presses that began before `time` are ignored.
    func becomeReady(at time: Int64)
    /// Reads input (when `readable`), runs what is due by `now` and returns the gestures made.
    func service(now: Int64, readable: Bool) -> [ButtonGestures.Gesture]
    /// Leaves the outputs off and releases the lines.
    func close()
}
