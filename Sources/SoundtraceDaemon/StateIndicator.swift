import SoundtraceCore

/// Shows the appliance's state to people in the room: LEDs and buzzer on a kiosk (the GPIO
/// backend), lines on the console on a laptop. Called by the appliance whenever its state changes.
protocol StateIndicator: AnyObject {
    func show(_ state: IndicatorState, calm: Bool, detail: String)
    /// Calm mode was toggled on the button: confirm it (the GPIO panel sounds the calm tone).
    func calmModeChanged(_ calm: Bool)
}

extension StateIndicator {
    /// Indicators with nothing to confirm (test recorders) need not implement it.
    func calmModeChanged(_ calm: Bool) {}
}
