import CGPIOD
import Glibc

/// One open `/dev/gpiochipN`, through libgpiod: its label and line count, its lines found by name
/// (with who holds them), and line requests on it.
final class GPIOChip {
    struct Line {
        let offset: UInt32
        let name: String
        let consumer: String
        let used: Bool
    }

    let path: String
    let label: String
    let lineCount: Int
    let handle: OpaquePointer

    /// Opens the chip. libgpiod checks that the file is a GPIO character device first.
    init(path: String) throws(GPIOFault) {
        guard let handle = soundtrace_gpiod_chip_open(path) else {
            let code = errno
            switch code {
            case EACCES, EPERM:
                throw .permissionDenied(paths: [path], names: [])
            case ENOTTY, ENODEV:
                // libgpiod's answer for a file or device that is not a GPIO chip.
                throw .system(action: "read the chip information of", path: path, reason: "\(Self.reason(code)) (not a GPIO chip?)")
            default:
                throw .system(action: "open", path: path, reason: Self.reason(code))
            }
        }
        self.path = path
        self.handle = handle
        label = String(cString: soundtrace_gpiod_chip_label(handle))
        lineCount = Int(soundtrace_gpiod_chip_line_count(handle))
    }

    deinit {
        soundtrace_gpiod_chip_close(handle)
    }

    /// The first line called `name` (names are case-sensitive), or nil when the chip has none.
    func line(named name: String) -> Line? {
        let offset = soundtrace_gpiod_find_line(handle, name)
        guard offset >= 0 else { return nil }
        // The name matched; who holds the line decides whether it can be requested.
        return info(UInt32(offset)) ?? Line(offset: UInt32(offset), name: name, consumer: "", used: false)
    }

    /// The kernel's information about one line, or nil when it cannot be read.
    func info(_ offset: UInt32) -> Line? {
        var info = soundtrace_gpiod_line_info()
        guard soundtrace_gpiod_read_line_info(handle, offset, &info) == 0 else { return nil }
        return Line(offset: offset, name: Self.text(info.name), consumer: Self.text(info.consumer), used: info.used)
    }

    /// For error messages: the first named lines show the board's naming scheme. Read only then.
    var summary: GPIOChipSummary {
        var names: [String] = []
        var offset: UInt32 = 0
        while names.count < 8, Int(offset) < lineCount {
            if let line = info(offset), !line.name.isEmpty { names.append(line.name) }
            offset += 1
        }
        return GPIOChipSummary(path: path, label: label, lineCount: lineCount, sampleNames: names)
    }

    /// Requests `line` as the button: input, active-low, pull-up, both edges; debounced by the
    /// kernel when `debounceMicroseconds` is above 0 (libgpiod 2 only: GPIODLibrary.offersKernelDebounce).
    func requestButton(_ line: Line, debounceMicroseconds: UInt32, consumer: String) throws(GPIOFault) -> GPIOLineRequest {
        try request(line) { soundtrace_gpiod_request_button(handle, line.offset, consumer, debounceMicroseconds) }
    }

    /// Requests `line` as an output starting inactive (dark, silent) rather than at whatever the pin held.
    func requestOutput(_ line: Line, consumer: String) throws(GPIOFault) -> GPIOLineRequest {
        try request(line) { soundtrace_gpiod_request_output(handle, line.offset, consumer) }
    }

    private func request(_ line: Line, _ call: () -> OpaquePointer?) throws(GPIOFault) -> GPIOLineRequest {
        guard let request = call() else {
            let code = errno
            if code == EBUSY {
                // Taken between the look-up and the request: say who holds it now.
                let holder = info(line.offset)?.consumer ?? line.consumer
                throw .busy(name: line.name, chip: path, offset: line.offset, consumer: holder)
            }
            throw .system(action: "request line \(line.offset) (\(line.name)) of", path: path, reason: Self.reason(code))
        }
        return GPIOLineRequest(handle: request, chip: self)
    }

    static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// A NUL-terminated text from a fixed-size C field.
    private static func text<T>(_ field: T) -> String {
        withUnsafeBytes(of: field) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
