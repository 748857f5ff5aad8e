import CGPIO
import Glibc
import SoundtraceCore

/// The panel on real GPIO lines through the kernel's character-device interface (uAPI v2, the
/// interface libgpiod 2 wraps; Linux 5.10 and later): lines are found by name on whichever chip
/// has them, the button is an active-low input with the pull-up and both edges (debounced by the
/// kernel when it accepts a debounce period), the LEDs and the buzzer are outputs starting inactive.
///
/// Threading: one owner (the daemon's main loop) reads and writes; nothing here blocks.
public final class GPIOPanelLines: PanelLines {
    /// Where each role's line was found, e.g. `GPIO17 (/dev/gpiochip0 line 17)`, for logs.
    public let placements: [(role: String, place: String)]
    public let debouncedEdges: Bool
    private let button: Int32
    private let outputs: [Int32]  // listening LED, result LED, buzzer
    private var closed = false

    /// The consumer label other programs (`gpioinfo`) see on our lines.
    public static let consumer = "soundtraced"

    /// Finds the four lines on the chips in `directory` and requests them. `debounceMilliseconds`
    /// is asked of the kernel for the button; when the kernel refuses it, edges come undebounced
    /// (`debouncedEdges` is false) and the reader debounces them.
    public static func open(_ names: PanelLineNames, directory: String = "/dev", debounceMilliseconds: Int = 30) throws(GPIOFault) -> GPIOPanelLines {
        let paths = chipPaths(in: directory)
        guard !paths.isEmpty else { throw .noChips(directory: directory) }
        var chips: [GPIOChip] = []
        var denied: [String] = []
        var problems: [GPIOFault] = []
        for path in paths {
            do {
                chips.append(try GPIOChip(path: path))
            } catch {
                if case .permissionDenied = error { denied.append(path) } else { problems.append(error) }
            }
        }
        var found: [(GPIOChip, GPIOChip.Line)] = []
        var missing: [String] = []
        for (_, name) in names.roles {
            if let hit = chips.lazy.compactMap({ chip in chip.lines.first { $0.name == name }.map { (chip, $0) } }).first {
                found.append(hit)
            } else {
                missing.append(name)
            }
        }
        if !missing.isEmpty {
            if !denied.isEmpty { throw .permissionDenied(paths: denied, names: missing) }
            if chips.isEmpty, let first = problems.first { throw first }
            throw .linesNotFound(names: missing, chips: chips.map(\.summary))
        }
        for (chip, line) in found where line.used {
            throw .busy(name: line.name, chip: chip.path, offset: line.offset, consumer: line.consumer)
        }
        var descriptors: [Int32] = []
        func release() { for fd in descriptors { Glibc.close(fd) } }
        let inputFlags = UInt64(GPIO_V2_LINE_FLAG_INPUT.rawValue) | UInt64(GPIO_V2_LINE_FLAG_ACTIVE_LOW.rawValue)
            | UInt64(GPIO_V2_LINE_FLAG_BIAS_PULL_UP.rawValue) | UInt64(GPIO_V2_LINE_FLAG_EDGE_RISING.rawValue)
            | UInt64(GPIO_V2_LINE_FLAG_EDGE_FALLING.rawValue)
        var debounced = true
        do {
            let (chip, line) = found[0]
            let fd: Int32
            do {
                fd = try chip.request(line, flags: inputFlags, debounceMicroseconds: UInt32(debounceMilliseconds * 1000), consumer: consumer)
            } catch let error where !isBusy(error) {
                // A kernel or chip without debounce: take the edges raw and debounce them here.
                fd = try chip.request(line, flags: inputFlags, debounceMicroseconds: nil, consumer: consumer)
                debounced = false
            }
            descriptors.append(fd)
            let status = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, status | O_NONBLOCK)
            for (chip, line) in found.dropFirst() {
                descriptors.append(try chip.request(line, flags: UInt64(GPIO_V2_LINE_FLAG_OUTPUT.rawValue), debounceMicroseconds: nil, consumer: consumer))
            }
        } catch {
            release()
            throw error
        }
        let placements = zip(names.roles, found).map { role, hit in
            (role.role, "\(hit.1.name) (\(hit.0.path) line \(hit.1.offset))")
        }
        return GPIOPanelLines(button: descriptors[0], outputs: Array(descriptors.dropFirst()), debounced: debounced, placements: placements)
    }

    private init(button: Int32, outputs: [Int32], debounced: Bool, placements: [(role: String, place: String)]) {
        self.button = button
        self.outputs = outputs
        debouncedEdges = debounced
        self.placements = placements
    }

    deinit {
        close()
    }

    /// Turns the outputs off and releases the lines. Safe to call more than once.
    public func close() {
        guard !closed else { return }
        closed = true
        try? set(.dark)
        Glibc.close(button)
        for fd in outputs { Glibc.close(fd) }
    }

    public var buttonDescriptor: Int32 { closed ? -1 : button }

    public func readButtonEdges() throws(PanelLinesFault) -> [ButtonEdge] {
        let capacity = 16
        let size = MemoryLayout<gpio_v2_line_event>.stride
        var edges: [ButtonEdge] = []
        var events = [gpio_v2_line_event](repeating: gpio_v2_line_event(), count: capacity)
        while !closed {
            let count = events.withUnsafeMutableBytes { read(button, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { break }
                throw PanelLinesFault("cannot read the button's edges: \(GPIOChip.reason(errno))")
            }
            let whole = count / size
            for event in events.prefix(whole) {
                // Active-low line: a rising edge is inactive → active, i.e. the button went down.
                edges.append(ButtonEdge(pressed: event.id == GPIO_V2_LINE_EVENT_RISING_EDGE.rawValue,
                                        at: Int64(event.timestamp_ns / 1_000_000)))
            }
            if whole < capacity { break }
        }
        return edges
    }

    public func buttonIsPressed() throws(PanelLinesFault) -> Bool {
        var values = gpio_v2_line_values()
        values.mask = 1
        guard soundtrace_gpio_get_values(button, &values) == 0 else {
            throw PanelLinesFault("cannot read the button's level: \(GPIOChip.reason(errno))")
        }
        return values.bits & 1 != 0
    }

    public func set(_ levels: PanelLevels) throws(PanelLinesFault) {
        for (fd, on) in zip(outputs, [levels.listening, levels.result, levels.buzzer]) {
            var values = gpio_v2_line_values()
            values.mask = 1
            values.bits = on ? 1 : 0
            guard soundtrace_gpio_set_values(fd, &values) == 0 else {
                throw PanelLinesFault("cannot drive an output line: \(GPIOChip.reason(errno))")
            }
        }
    }

    private static func isBusy(_ fault: GPIOFault) -> Bool {
        if case .busy = fault { return true }
        return false
    }

    /// `gpiochipN` devices in `directory`, in numeric order.
    static func chipPaths(in directory: String) -> [String] {
        var numbers: [Int] = []
        for name in DirectoryNames.list(directory) ?? [] {
            if name.hasPrefix("gpiochip"), let number = Int(name.dropFirst(8)) { numbers.append(number) }
        }
        return numbers.sorted().map { "\(directory)/gpiochip\($0)" }
    }
}
