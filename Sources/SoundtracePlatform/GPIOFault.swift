/// Why the panel's GPIO lines could not be opened: what failed, the cause, and what to do.
public enum GPIOFault: Error, Sendable, Equatable, CustomStringConvertible {
    /// The folder holds no `gpiochip*` device at all.
    case noChips(directory: String)
    /// Some names are on no chip that could be read; `chips` says what exists.
    case linesNotFound(names: [String], chips: [GPIOChipSummary])
    /// Chips that could not be opened for lack of permission (and the names not found elsewhere).
    case permissionDenied(paths: [String], names: [String])
    /// Another program (or a kernel driver) holds the line.
    case busy(name: String, chip: String, offset: UInt32, consumer: String)
    /// Any other failure of a system call.
    case system(action: String, path: String, reason: String)

    public var description: String {
        switch self {
        case let .noChips(directory):
            return "no GPIO chip: \(directory) has no gpiochip* device, so this machine has no GPIO lines (or their driver is not loaded). "
                + "On a kiosk, check `ls -l /dev/gpiochip*` and the kernel's GPIO driver; on a machine without GPIO set gpio = no or pass --no-gpio"
        case let .linesNotFound(names, chips):
            let list = names.map { "'\($0)'" }.joined(separator: ", ")
            let found = chips.isEmpty ? "no chip could be read" : chips.map(\.description).joined(separator: "; ")
            return "no GPIO line named \(list) on any chip (\(found)). Set button_line, listening_led_line, result_led_line "
                + "and buzzer_line to names the chips have (`gpioinfo` lists them all); names are case-sensitive"
        case let .permissionDenied(paths, names):
            let what = names.isEmpty ? "" : " (looking for \(names.joined(separator: ", ")))"
            return "cannot open \(paths.joined(separator: ", ")): permission denied\(what). Run soundtraced as a user of the `gpio` group "
                + "(`usermod -aG gpio USER`, as Raspberry Pi OS sets up) or install a udev rule that gives the service user the chip "
                + "(see docs/HARDWARE.md)"
        case let .busy(name, chip, offset, consumer):
            let holder = consumer.isEmpty ? "another program or a kernel driver" : "'\(consumer)'"
            return "GPIO line \(name) (\(chip) line \(offset)) is busy: \(holder) holds it. Stop the program that holds it "
                + "(`gpioinfo` names it; another soundtraced?), or free the pin from the overlay that claims it in config.txt, or choose another line"
        case let .system(action, path, reason):
            return "cannot \(action) \(path): \(reason)"
        }
    }
}

/// One chip as found while looking for lines, for error messages: path, label, line count and
/// the first named lines.
public struct GPIOChipSummary: Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let label: String
    public let lineCount: Int
    /// The first few non-empty line names (enough to recognise the board's naming scheme).
    public let sampleNames: [String]

    public init(path: String, label: String, lineCount: Int, sampleNames: [String]) {
        self.path = path
        self.label = label
        self.lineCount = lineCount
        self.sampleNames = sampleNames
    }

    public var description: String {
        let names =
            sampleNames.isEmpty
            ? "no line names" : "lines " + sampleNames.joined(separator: ", ") + (lineCount > sampleNames.count ? ", …" : "")
        return "\(path) [\(label.isEmpty ? "no label" : label), \(lineCount) lines: \(names)]"
    }
}
