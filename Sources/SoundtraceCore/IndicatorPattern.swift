/// What the LEDs and the buzzer show, as data: steps of on/off with durations. The GPIO backend
/// plays them; tests check the rules (distinct states, at most 3 flashes per second, calm mode
/// steady, the buzzer once per change) without hardware.
public struct IndicatorPattern: Sendable, Equatable {
    /// One step of the two LEDs.
    public struct Lights: Sendable, Equatable {
        public let listening: Bool
        public let result: Bool
        public let milliseconds: Int
        public init(_ listening: Bool, _ result: Bool, _ milliseconds: Int) {
            self.listening = listening
            self.result = result
            self.milliseconds = milliseconds
        }
    }

    /// One step of the buzzer.
    public struct Tone: Sendable, Equatable {
        public let on: Bool
        public let milliseconds: Int
        public init(_ on: Bool, _ milliseconds: Int) {
            self.on = on
            self.milliseconds = milliseconds
        }
    }

    /// Light steps; when `repeats` is false the last step is held.
    public let lights: [Lights]
    public let repeats: Bool
    /// Played once when the state is entered, then silence.
    public let tones: [Tone]
}

/// The states people must tell apart at a glance.
public enum IndicatorState: String, Sendable, CaseIterable {
    case idle, listening, match, noMatch, canceled, failure
}

extension IndicatorPattern {
    /// The pattern for `state`. Calm mode keeps every LED steady (no flashing at all); muted
    /// silences the buzzer. States differ by which LED and by rhythm, never by colour.
    public static func pattern(for state: IndicatorState, calm: Bool, muted: Bool) -> IndicatorPattern {
        let tones = muted ? [] : beeps(for: state)
        switch (state, calm) {
        case (.idle, _):
            return IndicatorPattern(lights: [.init(false, false, 1000)], repeats: false, tones: [])
        case (.listening, false):  // listening LED, slow blink (1 per second)
            return IndicatorPattern(lights: [.init(true, false, 500), .init(false, false, 500)], repeats: true, tones: tones)
        case (.listening, true):
            return IndicatorPattern(lights: [.init(true, false, 1000)], repeats: false, tones: tones)
        case (.match, _):  // result LED, steady
            return IndicatorPattern(lights: [.init(false, true, 1000)], repeats: false, tones: tones)
        case (.noMatch, false):  // result LED, double flash every 1.5 s
            return IndicatorPattern(
                lights: [
                    .init(false, true, 150), .init(false, false, 150), .init(false, true, 150),
                    .init(false, false, 1050)
                ], repeats: true, tones: tones)
        case (.noMatch, true):  // result LED steady for 2 s, then dark
            return IndicatorPattern(lights: [.init(false, true, 2000), .init(false, false, 1000)], repeats: false, tones: tones)
        case (.canceled, false):  // one short flash of the listening LED, then dark
            return IndicatorPattern(lights: [.init(true, false, 200), .init(false, false, 1000)], repeats: false, tones: tones)
        case (.canceled, true):  // listening LED steady for 2 s, then dark
            return IndicatorPattern(lights: [.init(true, false, 2000), .init(false, false, 1000)], repeats: false, tones: tones)
        case (.failure, false):  // both LEDs taking turns, once a second each
            return IndicatorPattern(lights: [.init(true, false, 500), .init(false, true, 500)], repeats: true, tones: tones)
        case (.failure, true):  // both LEDs steady
            return IndicatorPattern(lights: [.init(true, true, 1000)], repeats: false, tones: tones)
        }
    }

    /// A rhythm per state change: short tones, never longer than a second and a half in all.
    static func beeps(for state: IndicatorState) -> [Tone] {
        switch state {
        case .idle: return []
        case .listening: return [.init(true, 80)]
        case .match: return [.init(true, 100), .init(false, 100), .init(true, 100)]
        case .noMatch: return [.init(true, 400)]
        case .canceled: return [.init(true, 40), .init(false, 120), .init(true, 40)]
        case .failure: return [.init(true, 200), .init(false, 150), .init(true, 200), .init(false, 150), .init(true, 200)]
        }
    }

    /// The confirmation tone of a calm-mode toggle (held button).
    public static let calmToggleTone: [Tone] = [.init(true, 60), .init(false, 60), .init(true, 60), .init(false, 60), .init(true, 60)]
}
