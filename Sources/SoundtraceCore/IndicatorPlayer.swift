/// Plays `IndicatorPattern`s in time: the light steps (looping when the pattern repeats, else
/// holding the last step) and the tones once per state change. Driven by deadlines: the owner
/// sets the output levels after each call and sleeps until `deadline`; a held step (idle: both
/// LEDs dark) has no deadline, so nothing wakes.
public struct IndicatorPlayer: Sendable {
    /// Muted: no tone ever (state changes and the calm-mode confirmation alike).
    public let muted: Bool
    public private(set) var state = IndicatorState.idle
    public private(set) var calm = false
    /// The levels the outputs should show now.
    public private(set) var levels = PanelLevels.dark
    private var pattern = IndicatorPattern.pattern(for: .idle, calm: false, muted: true)
    private var lightIndex = 0
    private var lightStart: Int64 = 0
    private var tones: [IndicatorPattern.Tone] = []
    private var toneIndex = 0
    private var toneStart: Int64 = 0

    public init(muted: Bool) {
        self.muted = muted
    }

    /// Enters `state` at `now`: its light pattern from the first step, its tones once.
    public mutating func show(_ state: IndicatorState, calm: Bool, at now: Int64) {
        self.state = state
        self.calm = calm
        pattern = .pattern(for: state, calm: calm, muted: muted)
        lightIndex = 0
        lightStart = now
        startTones(pattern.tones, at: now)
    }

    /// Calm mode was toggled: the current state's lights in the new style (a finished pattern
    /// stays finished) and the confirmation tone.
    public mutating func calmChanged(_ calm: Bool, at now: Int64) {
        let finished = !pattern.repeats && lightIndex == pattern.lights.count - 1
        self.calm = calm
        pattern = .pattern(for: state, calm: calm, muted: muted)
        lightIndex = finished ? pattern.lights.count - 1 : 0
        lightStart = now
        startTones(muted ? [] : IndicatorPattern.calmToggleTone, at: now)
    }

    /// When the levels change next; nil when they hold until the next state change.
    public var deadline: Int64? {
        [lightDeadline, toneIndex < tones.count ? toneStart + duration(tones[toneIndex].milliseconds) : nil].compactMap { $0 }.min()
    }

    /// Moves to `now`: every step that ended by then is passed; returns the levels to show.
    @discardableResult
    public mutating func advance(to now: Int64) -> PanelLevels {
        if pattern.repeats, pattern.lights.count > 1 {
            // A late owner skips whole periods at once instead of replaying them.
            let period = pattern.lights.reduce(Int64(0)) { $0 + duration($1.milliseconds) }
            // A whole period later the pattern is at the same step again.
            let skipped = (now - lightStart) / period - 1
            if skipped > 0 { lightStart += skipped * period }
        }
        while let due = lightDeadline, due <= now {
            lightStart = due
            lightIndex = (lightIndex + 1) % pattern.lights.count
        }
        while toneIndex < tones.count, toneStart + duration(tones[toneIndex].milliseconds) <= now {
            toneStart += duration(tones[toneIndex].milliseconds)
            toneIndex += 1
        }
        updateLevels()
        return levels
    }

    private var lightDeadline: Int64? {
        let last = pattern.lights.count - 1
        guard pattern.repeats ? last > 0 : lightIndex < last else { return nil }
        return lightStart + duration(pattern.lights[lightIndex].milliseconds)
    }

    private mutating func startTones(_ list: [IndicatorPattern.Tone], at now: Int64) {
        tones = list
        toneIndex = 0
        toneStart = now
        updateLevels()
    }

    private mutating func updateLevels() {
        let step = pattern.lights[lightIndex]
        levels = PanelLevels(listening: step.listening, result: step.result, buzzer: toneIndex < tones.count && tones[toneIndex].on)
    }

    /// Steps last at least 1 ms, so a zero in the data cannot spin the player.
    private func duration(_ milliseconds: Int) -> Int64 { Int64(max(1, milliseconds)) }
}
