import Glibc
import SoundtraceClock
import SoundtraceCore
import SoundtracePlatform

/// `soundtraced --check-hardware`: for a person setting up a kiosk. Opens the GPIO lines, lights
/// each LED in turn, sounds the buzzer, waits (at most 20 s) for a button press, records 3 s from
/// the capture device and reports its level; every step is printed as it happens, then a summary.
/// A failed step does not stop the others that do not depend on it (the microphone is tried
/// even without GPIO). Exit status 0 when every step passed, 1 otherwise.
struct HardwareCheck {
    struct Environment {
        var openLines: (PanelLineNames) throws(GPIOFault) -> PanelLines
        var makeSource: (String) -> AudioSource
        /// Monotonic milliseconds.
        var clock: any TimeSource
        /// Waits `milliseconds`, or until `descriptor` (when not -1) is readable.
        var wait: (_ descriptor: Int32, _ milliseconds: Int64) -> Void
        var print: (String) -> Void
        /// A thread for the microphone's open, which is waited for at most `Timing.openBoundMilliseconds`.
        var launchOpen: @Sendable (@escaping @Sendable () -> Void) -> Bool = BoundedDeviceOpen.onDetachedThread
    }

    /// Timings, kept together so the tests and the documentation agree.
    struct Timing {
        var ledMilliseconds: Int64 = 2000
        var buttonMilliseconds: Int64 = 20_000
        var recordMilliseconds: Int64 = 3000
        /// A device that delivers more slowly than this is reported as stalled.
        var recordBoundMilliseconds: Int64 = 8000
        /// An open that has not returned by then (a sound server that does not answer) fails the step.
        var openBoundMilliseconds = BoundedDeviceOpen.usualBoundMilliseconds
    }

    enum Outcome: Equatable {
        case passed(String)
        case failed(String)
        case skipped(String)
    }

    let configuration: DaemonConfiguration
    let environment: Environment
    var timing = Timing()
    /// Below this peak the microphone is taken to have heard nothing.
    static let quietPeakDecibels = -60.0

    /// Runs every step; returns the exit status.
    func run() -> Int32 {
        let names = configuration.lines
        say("soundtraced --check-hardware: checking the button, LEDs, buzzer and microphone of this kiosk.")
        var results: [(String, Outcome)] = []
        func record(_ step: String, _ outcome: Outcome) {
            results.append((step, outcome))
            switch outcome {
            case let .passed(detail): say("   ok: \(detail)")
            case let .failed(detail): say("   FAILED: \(detail)")
            case let .skipped(detail): say("   skipped: \(detail)")
            }
        }
        var lines: PanelLines?
        say("1/6 GPIO lines: " + names.roles.map { "\($0.role) \(Self.place($0.name))" }.joined(separator: ", "))
        if !configuration.gpio {
            record("GPIO lines", .skipped("gpio = no (or --no-gpio): soundtraced will not use GPIO"))
        } else {
            do {
                let opened = try environment.openLines(names)
                lines = opened
                record(
                    "GPIO lines",
                    .passed("all four lines opened; the button is debounced by \(opened.debouncedEdges ? "the kernel" : "soundtraced")"))
            } catch {
                record("GPIO lines", .failed(error.description))
            }
        }
        let needsLines = configuration.gpio ? "needs the GPIO lines, which did not open" : "gpio = no"
        for (index, (step, levels, name)) in [
            ("listening LED", PanelLevels(listening: true, result: false, buzzer: false), names.listeningLED),
            ("result LED", PanelLevels(listening: false, result: true, buzzer: false), names.resultLED)
        ].enumerated() {
            say(
                "\(index + 2)/6 \(step) (\(Self.place(name)))"
                    + (lines == nil ? "" : ": lit for \(timing.ledMilliseconds / 1000) s — look at it now"))
            guard let lines else {
                record(step, .skipped(needsLines))
                continue
            }
            record(
                step,
                drive(
                    lines, [(levels, timing.ledMilliseconds)],
                    what: "the \(step) was driven; if it stayed dark, check its polarity and series resistor"))
        }
        say("4/6 buzzer (\(Self.place(names.buzzer)))" + (lines == nil ? "" : ": three short beeps — listen now"))
        if let lines {
            let beep = PanelLevels(listening: false, result: false, buzzer: true)
            record(
                "buzzer",
                drive(
                    lines, [(beep, 200), (.dark, 200), (beep, 200), (.dark, 200), (beep, 200)],
                    what: "the buzzer was driven; if it stayed silent, check the transistor and that it is an active buzzer"))
        } else {
            record("buzzer", .skipped(needsLines))
        }
        say(
            "5/6 button (\(Self.place(names.button)))"
                + (lines == nil ? "" : ": press and release it within \(timing.buttonMilliseconds / 1000) s"))
        if let lines {
            record("button", waitForPress(lines, name: names.button))
        } else {
            record("button", .skipped(needsLines))
        }
        try? lines?.set(.dark)
        say("6/6 microphone '\(configuration.device)': recording \(timing.recordMilliseconds / 1000) s — speak or clap now")
        record("microphone", recordLevel())

        let failed = results.filter { if case .failed = $0.1 { return true } else { return false } }.map(\.0)
        let skipped = results.filter { if case .skipped = $0.1 { return true } else { return false } }.map(\.0)
        let passed = results.count - failed.count - skipped.count
        var summary = "Summary: \(passed) of \(results.count) checks passed"
        if !failed.isEmpty { summary += "; FAILED: " + failed.joined(separator: ", ") }
        if !skipped.isEmpty { summary += "; skipped: " + skipped.joined(separator: ", ") }
        say(
            summary
                + (failed.isEmpty ? ". This kiosk is ready." : ". Fix what failed (the reasons are above) and run --check-hardware again."))
        return failed.isEmpty ? 0 : 1
    }

    /// A line name with its header pin when it is on the Raspberry Pi header.
    static func place(_ name: String) -> String {
        HeaderPins.pin(ofLine: name).map { "\(name), header pin \($0)" } ?? name
    }

    private func say(_ line: String) { environment.print(line + "\n") }

    private func drive(_ lines: PanelLines, _ steps: [(PanelLevels, Int64)], what: String) -> Outcome {
        do {
            for (levels, milliseconds) in steps {
                try lines.set(levels)
                environment.wait(-1, milliseconds)
            }
            try lines.set(.dark)
            return .passed(what)
        } catch {
            try? lines.set(.dark)
            return .failed(error.description)
        }
    }

    private func waitForPress(_ lines: PanelLines, name: String) -> Outcome {
        let start = environment.clock.monotonicMilliseconds()
        var input = ButtonInput(debouncedEdges: lines.debouncedEdges)
        input.becomeReady(at: start)
        let heldFromStart = (try? lines.buttonIsPressed()) == true
        if heldFromStart { say("   the button reads pressed already; release it, then press it") }
        let end = start + timing.buttonMilliseconds
        while true {
            let now = environment.clock.monotonicMilliseconds()
            do {
                var gestures: [ButtonGestures.Gesture] = []
                for edge in try lines.readButtonEdges() { gestures += input.edge(edge) }
                gestures += input.settle(now: now)
                if !gestures.isEmpty { return .passed("press seen (\(name) reads the button)") }
            } catch {
                return .failed(error.description)
            }
            guard now < end else { break }
            let next = min(end, input.deadline ?? end)
            environment.wait(lines.buttonDescriptor, max(1, next - now))
        }
        let stuck = (try? lines.buttonIsPressed()) == true
        let ground = HeaderPins.ground.prefix(2).map(String.init).joined(separator: " or ")
        if stuck {
            return .failed("the button reads pressed all the time: \(name) is shorted to ground or the button is wired as normally closed")
        }
        return .failed(
            "no press within \(timing.buttonMilliseconds / 1000) s: wire the button between \(Self.place(name)) and a ground pin (e.g. \(ground)); no resistor is needed, the internal pull-up is used"
        )
    }

    private func recordLevel() -> Outcome {
        let source = environment.makeSource(configuration.device)
        let format: CaptureFormat
        switch BoundedDeviceOpen.open(
            source, preferredRate: 16_000, waitingAtMost: timing.openBoundMilliseconds, launch: environment.launchOpen)
        {
        case let .opened(granted):
            format = granted
        case let .failed(fault):
            source.close()
            return .failed(fault.description)
        case .stillOpening, .interrupted:
            // The open's thread keeps the source and closes it if the open ever returns.
            let fault = CaptureFault.notAnswering(device: source.device, milliseconds: timing.openBoundMilliseconds, daemonRetries: false)
            return .failed(fault.description)
        }
        defer { source.close() }
        say("   capturing \(format.deviceFormat)")
        let wanted = format.sampleRate * Int(timing.recordMilliseconds) / 1000
        var samples: [Int16] = []
        samples.reserveCapacity(wanted)
        let start = environment.clock.monotonicMilliseconds()
        while samples.count < wanted {
            let elapsed = environment.clock.monotonicMilliseconds() - start
            guard elapsed < timing.recordBoundMilliseconds else {
                let seconds = Double(samples.count) / Double(format.sampleRate)
                return .failed(
                    "the device delivered only \(Int(seconds * 10) / 10).\(Int(seconds * 10) % 10) s of audio in \(timing.recordBoundMilliseconds / 1000) s: it stalled; check `arecord -D \(configuration.device) -d 3 /tmp/t.wav`"
                )
            }
            do {
                if case let .audio(chunk, _) = try source.read(timeoutMilliseconds: Int(min(250, timing.recordBoundMilliseconds - elapsed)))
                {
                    samples += chunk.prefix(wanted - samples.count)
                }
            } catch {
                return .failed(error.description)
            }
        }
        let level = AudioLevel(samples)
        let text = "RMS \(AudioLevel.text(level.rmsDecibels)), peak \(AudioLevel.text(level.peakDecibels))"
        guard level.peakDecibels >= Self.quietPeakDecibels else {
            return .failed(
                "\(text): the microphone heard nothing (peak below \(Int(Self.quietPeakDecibels)) dBFS); check that it is plugged in and its capture level (`alsamixer`, F4)"
            )
        }
        let hint = level.peakDecibels > -1 ? " (clipping: lower the capture level in `alsamixer`)" : ""
        return .passed(text + hint)
    }
}
