import Foundation
import Glibc
import SoundtraceTestSupport
import Testing

/// `soundtraced --check-hardware` as a person setting up a kiosk runs it, on this machine: no GPIO
/// chip at all, a simulated microphone (an ALSA file PCM) or none.
@Suite struct HardwareCheckAcceptanceTests {
    let mics = Microphones.shared

    /// Runs the real binary to its end; returns its exit status and what it printed.
    private func check(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let base = mics.directory + "/check-\(UUID().uuidString.prefix(8))"
        let child = try ChildProcess(path: DaemonProcess.binary, arguments: ["--check-hardware", "--config", "/dev/null"] + arguments,
                                     environment: mics.environment, stdout: base + ".out", stderr: base + ".err")
        let status = child.waitForExit()
        let output = (try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? ""
        return (status, output + ((try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? ""))
    }

    @Test func withoutAGPIOChipTheGPIOStepFailsWithTheReasonAndTheMicrophoneIsStillMeasured() throws {
        try #require(GPIOChips.none, "this test expects a machine without /dev/gpiochip*")
        let (status, output) = try check(["--device", "st_acc_ref_a"])
        #expect(status == 1)
        #expect(output.contains("1/6 GPIO lines: button GPIO17, header pin 11, listening LED GPIO23, header pin 16, result LED GPIO24, header pin 18, buzzer GPIO25, header pin 22\n"), "\(output)")
        #expect(output.contains("   FAILED: no GPIO chip: /dev has no gpiochip* device"), "\(output)")
        #expect(output.contains("5/6 button (GPIO17, header pin 11)\n   skipped: needs the GPIO lines, which did not open\n"), "\(output)")
        // The microphone step runs anyway and reports a level in dBFS.
        let level = try #require(output.split(separator: "\n").first { $0.hasPrefix("   ok: RMS ") }, "\(output)")
        #expect(level.contains(" dBFS, peak ") && !level.contains("∞"))
        #expect(output.contains("Summary: 1 of 6 checks passed; FAILED: GPIO lines; skipped: listening LED, result LED, buzzer, button."), "\(output)")
    }

    @Test func aMissingMicrophoneFailsItsStepTooAndSilenceIsCalledSilence() throws {
        try #require(GPIOChips.none, "this test expects a machine without /dev/gpiochip*")
        let missing = try check(["--device", "st_no_such_device"])
        #expect(missing.status == 1)
        #expect(missing.output.contains("6/6 microphone 'st_no_such_device': recording 3 s"), "\(missing.output)")
        #expect(missing.output.contains("FAILED: GPIO lines, microphone"), "\(missing.output)")
        let silent = try check(["--device", "st_acc_silence", "--no-gpio"])
        #expect(silent.status == 1)
        #expect(silent.output.contains("   skipped: gpio = no (or --no-gpio): soundtraced will not use GPIO"), "\(silent.output)")
        #expect(silent.output.contains("the microphone heard nothing"), "\(silent.output)")
    }
}

enum GPIOChips {
    /// True when the machine has no GPIO character device (as in these containers).
    static var none: Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []).allSatisfy { !$0.hasPrefix("gpiochip") }
    }
}
