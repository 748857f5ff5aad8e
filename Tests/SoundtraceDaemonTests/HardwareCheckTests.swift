import Glibc
import SoundtraceCore
import SoundtraceTestSupport
import Testing

@testable import SoundtraceDaemon
@testable import SoundtracePlatform

/// `--check-hardware`'s steps with fake lines, a scripted microphone and a manual clock that the
/// check's waits advance.
@Suite struct HardwareCheckTests {
    final class Rig: @unchecked Sendable {
        // @unchecked: used from the test's thread only.
        let clock = ManualClock()
        lazy var lines = LinesPanelTests.FakeLines(clock: clock, debounced: false)
        var edges: [ButtonEdge] = []
        var output = ""
        var openFault: GPIOFault?
        var microphone = ApplianceSessionTests.ScriptedMicrophone(samples: Rig.tone(amplitude: 16384, count: 40_000))
        /// Used instead of `microphone` when set.
        var otherMicrophone: (any AudioSource)?
        var timing = HardwareCheck.Timing()
        /// How the microphone's open gets its thread, when not the usual way.
        var launchOpen: (@Sendable (@escaping @Sendable () -> Void) -> Bool)?

        static func tone(amplitude: Double, count: Int) -> [Int16] {
            (0..<count).map { Int16(amplitude * sin(2 * Double.pi * 440 * Double($0) / 8000)) }
        }

        func run(gpio: Bool = true) -> Int32 {
            var configuration = DaemonConfiguration()
            configuration.gpio = gpio
            configuration.device = "scripted"
            var environment = HardwareCheck.Environment(
                openLines: { _ throws(GPIOFault) in
                    if let fault = self.openFault { throw fault }
                    return self.lines
                },
                makeSource: { _ in self.otherMicrophone ?? self.microphone },
                clock: self.clock,
                wait: { descriptor, milliseconds in
                    // Like poll: a watched button's edge ends the wait early.
                    let edge = descriptor >= 0 ? self.edges.first.map { max(self.clock.now, $0.at) } : nil
                    self.clock.now = min(self.clock.now + milliseconds, edge ?? .max)
                    while let edge = self.edges.first, edge.at <= self.clock.now {
                        self.lines.available.append(edge)
                        self.edges.removeFirst()
                    }
                },
                print: { self.output += $0 })
            if let launchOpen { environment.launchOpen = launchOpen }
            return HardwareCheck(configuration: configuration, environment: environment, timing: timing).run()
        }
    }

    @Test func aWorkingKioskPassesEveryStepInOrder() {
        let rig = Rig()
        // The LEDs take 2 + 2 s and the beeps 1 s: the button step starts at 5 s.
        rig.edges = [ButtonEdge(pressed: true, at: 6000), ButtonEdge(pressed: false, at: 6200)]
        #expect(rig.run() == 0)
        let lit = rig.lines.writes.map { ($0.0, $0.1.description) }
        #expect(lit.map(\.0) == [0, 2000, 2000, 4000, 4000, 4200, 4400, 4600, 4800, 5000, 6230])
        #expect(
            lit.map(\.1) == [
                "L+ R- B-", "L- R- B-", "L- R+ B-", "L- R- B-", "L- R- B+", "L- R- B-", "L- R- B+", "L- R- B-", "L- R- B+", "L- R- B-",
                "L- R- B-"
            ])
        #expect(rig.output.contains("   ok: press seen (GPIO17 reads the button)\n"), "\(rig.output)")
        // A half-scale sine: RMS 3 dB below its peak.
        #expect(rig.output.contains("   ok: RMS -9.0 dBFS, peak -6.0 dBFS\n"), "\(rig.output)")
        #expect(rig.output.hasSuffix("Summary: 6 of 6 checks passed. This kiosk is ready.\n"), "\(rig.output)")
        #expect(rig.microphone.closed >= 1)
    }

    @Test func noPressWithinTheBoundFailsWithTheWiringHint() {
        let rig = Rig()
        #expect(rig.run() == 1)
        #expect(
            rig.output.contains(
                "FAILED: no press within 20 s: wire the button between GPIO17, header pin 11 and a ground pin (e.g. 6 or 9)"),
            "\(rig.output)")
        // Bounded: LEDs and beeps (5 s) plus the 20 s wait, not more.
        #expect(rig.clock.now <= 25_100)
        #expect(
            rig.output.hasSuffix(
                "Summary: 5 of 6 checks passed; FAILED: button. Fix what failed (the reasons are above) and run --check-hardware again.\n"))
    }

    @Test func withoutGPIOTheMicrophoneIsStillChecked() {
        let rig = Rig()
        rig.openFault = .busy(name: "GPIO17", chip: "/dev/gpiochip0", offset: 17, consumer: "soundtraced")
        #expect(rig.run() == 1)
        #expect(
            rig.output.contains("   FAILED: GPIO line GPIO17 (/dev/gpiochip0 line 17) is busy: 'soundtraced' holds it."), "\(rig.output)")
        #expect(rig.output.contains("   ok: RMS -9.0 dBFS"), "\(rig.output)")
        #expect(rig.lines.writes.isEmpty)
    }

    @Test func aSilentMicrophoneFails() {
        let rig = Rig()
        rig.microphone = ApplianceSessionTests.ScriptedMicrophone(samples: [])
        rig.edges = [ButtonEdge(pressed: true, at: 6000), ButtonEdge(pressed: false, at: 6200)]
        #expect(rig.run() == 1)
        #expect(rig.output.contains("FAILED: RMS -∞ dBFS, peak -∞ dBFS: the microphone heard nothing"), "\(rig.output)")
    }

    @Test func levelsAreRelativeToFullScale() {
        let full = AudioLevel(Rig.tone(amplitude: 32767, count: 8000))
        #expect(abs(full.peakDecibels) < 0.01)
        #expect(abs(full.rmsDecibels + 3.01) < 0.02)
        #expect(AudioLevel([]).rmsDecibels == -.infinity)
        #expect(AudioLevel.text(-9.04) == "-9.0 dBFS" && AudioLevel.text(-0.04) == "0.0 dBFS" && AudioLevel.text(-.infinity) == "-∞ dBFS")
    }

    @Test func headerPinsOfTheDefaultLines() {
        #expect(["GPIO17", "GPIO23", "GPIO24", "GPIO25"].map(HeaderPins.pin(ofLine:)) == [11, 16, 18, 22])
        #expect(HeaderPins.pin(ofLine: "GPIO40") == nil && HeaderPins.pin(ofLine: "ID_SDA") == nil)
    }

    @Test func aMicrophoneWhoseOpenDoesNotReturnFailsAtTheBound() {
        let rig = Rig()
        let device = UnansweringDevice()
        rig.otherMicrophone = device
        rig.timing.openBoundMilliseconds = 200
        #expect(rig.run(gpio: false) == 1)
        #expect(
            rig.output.contains(
                "   FAILED: capture device 'unanswering' has not finished opening after 0.2 s (its ALSA plugin or sound server does not answer); check that the sound server runs, or use a 'plughw:' device; then try again\n"
            ), "\(rig.output)")
        #expect(rig.output.contains("FAILED: microphone"), "\(rig.output)")
        // Abandoned to its thread, which closes the device once the open returns; nothing else does.
        #expect(device.closes == 0)
        device.answer()
        #expect(device.waitUntilClosed(seconds: 10))
        #expect(device.opens == 1 && device.closes == 1)
    }

    @Test func withNoThreadForTheOpenTheMicrophoneIsOpenedHere() {
        let rig = Rig()
        rig.launchOpen = { _ in false }
        rig.edges = [ButtonEdge(pressed: true, at: 6000), ButtonEdge(pressed: false, at: 6200)]
        #expect(rig.run() == 0)
        #expect(rig.output.contains("   ok: RMS -9.0 dBFS, peak -6.0 dBFS\n"), "\(rig.output)")
        #expect(rig.microphone.closed >= 1)
    }
}
