import Foundation
import Glibc
import SoundtraceCore
import SoundtraceTestSupport
import Testing

@testable import SoundtracePlatform

/// What can be checked of the GPIO backend without a GPIO chip: finding chips, libgpiod telling
/// chips from other files, and that every failure says what failed and what to do. The lines themselves are exercised on the virtual
/// board (gpio-sim) and on a kiosk.
@Suite struct GPIOPanelLinesTests {
    /// Every file a test writes, removed when the test ends.
    private let scratch: TemporaryFolder

    init() throws { scratch = try TemporaryFolder("soundtrace-gpio-tests") }

    private func temporaryFolder() throws -> String {
        let path = scratch.path + "/\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func aFolderWithoutChipsSaysThereIsNoGPIOAndHowToRunWithout() throws {
        let folder = try temporaryFolder()
        #expect(throws: GPIOFault.noChips(directory: folder)) { try GPIOPanelLines.open(PanelLineNames(), directory: folder) }
        let text = GPIOFault.noChips(directory: "/dev").description
        #expect(text.contains("no GPIO chip: /dev has no gpiochip* device"))
        #expect(text.contains("gpio = no") && text.contains("--no-gpio"))
    }

    @Test func chipsAreFoundInNumericOrder() throws {
        let folder = try temporaryFolder()
        for name in ["gpiochip10", "gpiochip2", "gpiochipX", "gpiomem", "gpiochip0"] {
            _ = FileManager.default.createFile(atPath: folder + "/" + name, contents: nil)
        }
        #expect(GPIOPanelLines.chipPaths(in: folder) == ["0", "2", "10"].map { folder + "/gpiochip" + $0 })
        #expect(GPIOPanelLines.chipPaths(in: folder + "/missing").isEmpty)
    }

    @Test func aFileThatIsNotAChipIsReportedWithTheCause() throws {
        let folder = try temporaryFolder()
        _ = FileManager.default.createFile(atPath: folder + "/gpiochip0", contents: nil)
        do {
            _ = try GPIOPanelLines.open(PanelLineNames(), directory: folder)
            Issue.record("opened a plain file as a GPIO chip")
        } catch {
            #expect(error.description.hasPrefix("cannot read the chip information of \(folder)/gpiochip0: "))
            #expect(error.description.hasSuffix("(not a GPIO chip?)"))
        }
    }

    @Test func aDeviceThatIsNotAChipIsReportedWithTheCause() throws {
        // A character device of another subsystem: libgpiod checks the device's sysfs entry.
        let folder = try temporaryFolder()
        try #require(symlink("/dev/null", folder + "/gpiochip0") == 0)
        do {
            _ = try GPIOPanelLines.open(PanelLineNames(), directory: folder)
            Issue.record("opened /dev/null as a GPIO chip")
        } catch {
            #expect(error.description.hasPrefix("cannot read the chip information of \(folder)/gpiochip0: "), "\(error)")
            #expect(error.description.hasSuffix("(not a GPIO chip?)"), "\(error)")
        }
    }

    @Test func missingNamesListTheChipsAndTheirNames() {
        let chip = GPIOChipSummary(
            path: "/dev/gpiochip0", label: "pinctrl-bcm2711", lineCount: 58,
            sampleNames: ["ID_SDA", "ID_SCL", "GPIO2", "GPIO3"])
        let text = GPIOFault.linesNotFound(names: ["GPIO99"], chips: [chip]).description
        #expect(
            text.hasPrefix(
                "no GPIO line named 'GPIO99' on any chip (/dev/gpiochip0 [pinctrl-bcm2711, 58 lines: lines ID_SDA, ID_SCL, GPIO2, GPIO3, …])"
            ))
        #expect(text.contains("button_line") && text.contains("gpioinfo"))
    }

    @Test func permissionAndBusyNameTheFix() {
        let denied = GPIOFault.permissionDenied(paths: ["/dev/gpiochip0"], names: ["GPIO17"]).description
        #expect(denied.hasPrefix("cannot open /dev/gpiochip0: permission denied (looking for GPIO17)"))
        #expect(denied.contains("`gpio` group") && denied.contains("udev rule"))
        let busy = GPIOFault.busy(name: "GPIO17", chip: "/dev/gpiochip0", offset: 17, consumer: "soundtraced").description
        #expect(busy.hasPrefix("GPIO line GPIO17 (/dev/gpiochip0 line 17) is busy: 'soundtraced' holds it"))
        #expect(
            GPIOFault.busy(name: "GPIO4", chip: "/dev/gpiochip0", offset: 4, consumer: "").description.contains(
                "another program or a kernel driver holds it"))
    }
}
