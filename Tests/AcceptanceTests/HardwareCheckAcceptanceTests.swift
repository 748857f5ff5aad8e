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
        let child = try ChildProcess(
            path: DaemonProcess.binary, arguments: ["--check-hardware", "--config", "/dev/null"] + arguments,
            environment: mics.environment, stdout: base + ".out", stderr: base + ".err")
        let status = child.waitForExit()
        let output = (try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? ""
        return (status, output + ((try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? ""))
    }

    @Test func withoutAGPIOChipTheGPIOStepFailsWithTheReasonAndTheMicrophoneIsStillMeasured() throws {
        try #require(GPIOChips.none, "this test expects a machine without /dev/gpiochip*")
        let (status, output) = try check(["--device", "st_acc_ref_a"])
        #expect(status == 1)
        #expect(
            output.contains(
                "1/6 GPIO lines: button GPIO17, header pin 11, listening LED GPIO23, header pin 16, result LED GPIO24, header pin 18, buzzer GPIO25, header pin 22\n"
            ), "\(output)")
        #expect(output.contains("   FAILED: no GPIO chip: /dev has no gpiochip* device"), "\(output)")
        #expect(output.contains("5/6 button (GPIO17, header pin 11)\n   skipped: needs the GPIO lines, which did not open\n"), "\(output)")
        // The microphone step runs anyway and reports a level in dBFS.
        let level = try #require(output.split(separator: "\n").first { $0.hasPrefix("   ok: RMS ") }, "\(output)")
        #expect(level.contains(" dBFS, peak ") && !level.contains("∞"))
        #expect(
            output.contains("Summary: 1 of 6 checks passed; FAILED: GPIO lines; skipped: listening LED, result LED, buzzer, button."),
            "\(output)")
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

extension HardwareCheckAcceptanceTests {
    @Test func aMicrophoneWhoseOpenDoesNotReturnFailsItsStepWithinTheBound() throws {
        let started = ContinuousClock.now
        let (status, output) = try check(["--device", Microphones.unansweredPCM, "--no-gpio"])
        #expect(status == 1)
        #expect(output.contains("has not finished opening after 5.0 s"), "\(output)")
        #expect(output.contains("FAILED: microphone"), "\(output)")
        #expect(ContinuousClock.now - started < .seconds(15))
    }

    @Test func aReportThatCannotBeWrittenIsNoPassAndSaysWhy() throws {
        // Every step passes (GPIO skipped, a microphone that hears music): 0 with a report, 7 without.
        let kept = try check(["--device", "st_acc_ref_a", "--no-gpio"])
        #expect(kept.status == 0, "\(kept.output)")
        let base = mics.directory + "/check-full-\(UUID().uuidString.prefix(8))"
        for arguments in [["--check-hardware", "--config", "/dev/null", "--device", "st_acc_ref_a", "--no-gpio"], ["--version"], ["--help"]]
        {
            let child = try ChildProcess(
                path: DaemonProcess.binary, arguments: arguments, environment: mics.environment, stdout: "/dev/full", stderr: base + ".err")
            #expect(child.waitForExit() == 7, "\(arguments)")
            let said = (try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? ""
            #expect(said.contains("soundtraced: could not write standard output (No space left on device)"), "\(arguments): \(said)")
        }
        // A failed step keeps its own status.
        let child = try ChildProcess(
            path: DaemonProcess.binary,
            arguments: ["--check-hardware", "--config", "/dev/null", "--device", "st_no_such_device", "--no-gpio"],
            environment: mics.environment, stdout: "/dev/full", stderr: base + ".err")
        #expect(child.waitForExit() == 1)
        let said = (try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? ""
        #expect(said.contains("run the check again"), "\(said)")
    }

    @Test func withGPIOWantedButNoChipTheDaemonSaysWhyAndServesOnTheConsole() throws {
        try #require(GPIOChips.none, "this test expects a machine without /dev/gpiochip*")
        let state = DaemonProcess.stateDirectory("nogpio")
        // DaemonProcess passes --no-gpio; a configuration cannot turn it back on, so start this one by hand.
        let config = state + ".conf"
        try "gpio = yes\n".write(toFile: config, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let child = try ChildProcess(
            path: DaemonProcess.binary,
            arguments: ["--config", config, "--port", "0", "--state-dir", state, "--catalog", Microphones.catalogPath],
            environment: mics.environment, stdout: state + ".out", stderr: state + ".log")
        defer {
            child.send(SIGTERM)
            _ = child.waitForExit()
        }
        var log = ""
        for _ in 0..<750 where !log.contains("serving protocol") {
            usleep(20_000)  // the child's log is the condition
            log = (try? String(contentsOfFile: state + ".log", encoding: .utf8)) ?? ""
        }
        #expect(log.contains("error: GPIO panel unavailable, showing state on the console instead"), "\(log)")
        #expect(log.contains("no GPIO chip: /dev has no gpiochip* device"), "\(log)")
        let served = try #require(log.range(of: #"serving protocol 1 on \S+ port (\d+)"#, options: .regularExpression), "\(log)")
        let port = try #require(Int(log[served].split(separator: " ").last ?? ""))
        let client = try ProtocolConnection(port: port)
        let status = try client.command("status")
        #expect(status.value("panel") == "console")
        #expect(status.value("panel_error")?.hasPrefix("no GPIO chip") == true)
        #expect(try client.command("history") == .ok([]))
    }
}

enum GPIOChips {
    /// True when the machine has no GPIO character device (as in these containers).
    static var none: Bool {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []).allSatisfy { !$0.hasPrefix("gpiochip") }
    }
}
