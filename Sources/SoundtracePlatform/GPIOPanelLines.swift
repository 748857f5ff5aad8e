import Glibc
import SoundtraceCore

/// The panel on real GPIO lines through libgpiod (1.6 or 2.x, whichever the build found; see
/// `GPIODLibrary`): lines are found by name on whichever chip has them, the button is an
/// active-low input with the pull-up and both edges (debounced by the kernel where libgpiod 2
/// can ask for it and the kernel accepts), the LEDs and the buzzer are outputs starting inactive.
///
/// Threading: one owner (the daemon's main loop) reads and writes; nothing here blocks.
public final class GPIOPanelLines: PanelLines {
    /// Where each role's line was found, e.g. `GPIO17 (/dev/gpiochip0 line 17)`, for logs.
    public let placements: [(role: String, place: String)]
    public let debouncedEdges: Bool
    private var button: GPIOLineRequest?
    private var outputs: [GPIOLineRequest]  // listening LED, result LED, buzzer

    /// The consumer label other programs (`gpioinfo`) see on our lines.
    public static let consumer = "soundtraced"

    /// The most edges read at once: the kernel queues at most 16 per line.
    private static let edgeBatch = 16

    /// Finds the four lines on the chips in `directory` and requests them. `debounceMilliseconds`
    /// is asked of the kernel for the button where libgpiod can; when it cannot or the kernel
    /// refuses, edges come undebounced (`debouncedEdges` is false) and the reader debounces them.
    public static func open(_ names: PanelLineNames, directory: String = "/dev", debounceMilliseconds: Int = 30) throws(GPIOFault)
        -> GPIOPanelLines
    {
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
            if let hit = chips.lazy.compactMap({ chip in chip.line(named: name).map { (chip, $0) } }).first {
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
        // Requests made before a failure are released when they go out of scope here.
        let (chip, line) = found[0]
        var button: GPIOLineRequest?
        if GPIODLibrary.offersKernelDebounce {
            do {
                button = try chip.requestButton(line, debounceMicroseconds: UInt32(debounceMilliseconds * 1000), consumer: consumer)
            } catch let error where !isBusy(error) {
                // A kernel or chip without debounce: take the edges raw and debounce them here.
            }
        }
        let debounced = button != nil
        let input: GPIOLineRequest
        if let button {
            input = button
        } else {
            input = try chip.requestButton(line, debounceMicroseconds: 0, consumer: consumer)
        }
        let status = fcntl(input.descriptor, F_GETFL)
        _ = fcntl(input.descriptor, F_SETFL, status | O_NONBLOCK)
        var outputs: [GPIOLineRequest] = []
        for (chip, line) in found.dropFirst() {
            outputs.append(try chip.requestOutput(line, consumer: consumer))
        }
        let placements = zip(names.roles, found).map { role, hit in
            (role.role, "\(hit.1.name) (\(hit.0.path) line \(hit.1.offset))")
        }
        return GPIOPanelLines(button: input, outputs: outputs, debounced: debounced, placements: placements)
    }

    private init(button: GPIOLineRequest, outputs: [GPIOLineRequest], debounced: Bool, placements: [(role: String, place: String)]) {
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
        guard button != nil else { return }
        try? set(.dark)
        // Releasing the requests releases the lines, then the chips close.
        button = nil
        outputs = []
    }

    public var buttonDescriptor: Int32 { button?.descriptor ?? -1 }

    public func readButtonEdges() throws(PanelLinesFault) -> [ButtonEdge] {
        var edges: [ButtonEdge] = []
        while let button {
            let batch: [GPIOLineRequest.Edge]
            do {
                batch = try button.readEdges(capacity: Self.edgeBatch)
            } catch {
                if error.code == EINTR { continue }
                if error.code == EAGAIN || error.code == EWOULDBLOCK { break }
                throw PanelLinesFault("cannot read the button's edges: \(error.reason)")
            }
            for event in batch {
                // Active-low line: a rising edge is inactive → active, i.e. the button went down.
                edges.append(ButtonEdge(pressed: event.rising, at: Int64(event.nanoseconds / 1_000_000)))
            }
            if batch.count < Self.edgeBatch { break }
        }
        return edges
    }

    public func buttonIsPressed() throws(PanelLinesFault) -> Bool {
        guard let button else { throw PanelLinesFault("cannot read the button's level: the GPIO lines were released") }
        do {
            return try button.isActive()
        } catch {
            throw PanelLinesFault("cannot read the button's level: \(error.reason)")
        }
    }

    public func set(_ levels: PanelLevels) throws(PanelLinesFault) {
        for (output, on) in zip(outputs, [levels.listening, levels.result, levels.buzzer]) {
            do {
                try output.drive(on)
            } catch {
                throw PanelLinesFault("cannot drive an output line: \(error.reason)")
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
