import CGPIO
import Glibc

/// One open `/dev/gpiochipN`: its label and the names, flags and consumers of its lines, read
/// through the kernel's GPIO v2 character-device interface, and line requests on it.
final class GPIOChip {
    struct Line {
        let offset: UInt32
        let name: String
        let consumer: String
        let used: Bool
    }

    let path: String
    let label: String
    let lines: [Line]
    private let descriptor: Int32

    /// Opens the chip and reads the information of every line.
    init(path: String) throws(GPIOFault) {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == EACCES || code == EPERM { throw .permissionDenied(paths: [path], names: []) }
            throw .system(action: "open", path: path, reason: Self.reason(code))
        }
        var info = gpiochip_info()
        guard soundtrace_gpio_chip_info(fd, &info) == 0 else {
            let reason = Self.reason(errno)
            Glibc.close(fd)
            throw .system(action: "read the chip information of", path: path, reason: "\(reason) (not a GPIO chip?)")
        }
        var lines: [Line] = []
        for offset in 0..<info.lines {
            var line = gpio_v2_line_info()
            line.offset = offset
            guard soundtrace_gpio_line_info(fd, &line) == 0 else { continue }
            lines.append(Line(offset: offset, name: Self.text(line.name), consumer: Self.text(line.consumer),
                              used: line.flags & UInt64(GPIO_V2_LINE_FLAG_USED.rawValue) != 0))
        }
        self.path = path
        label = Self.text(info.label)
        self.lines = lines
        descriptor = fd
    }

    deinit {
        Glibc.close(descriptor)
    }

    var summary: GPIOChipSummary {
        GPIOChipSummary(path: path, label: label, lineCount: lines.count, sampleNames: Array(lines.map(\.name).filter { !$0.isEmpty }.prefix(8)))
    }

    /// Requests one line with `flags`, optionally with a debounce period (µs) or initial output
    /// values; returns the request's descriptor.
    func request(_ line: Line, flags: UInt64, debounceMicroseconds: UInt32?, consumer: String) throws(GPIOFault) -> Int32 {
        var request = gpio_v2_line_request()
        request.num_lines = 1
        withUnsafeMutableBytes(of: &request.offsets) { $0.storeBytes(of: line.offset, as: UInt32.self) }
        withUnsafeMutableBytes(of: &request.consumer) { bytes in
            for (index, byte) in consumer.utf8.prefix(bytes.count - 1).enumerated() { bytes[index] = byte }
        }
        request.config.flags = flags
        var attribute = gpio_v2_line_config_attribute()
        attribute.mask = 1
        if let debounceMicroseconds {
            attribute.attr.id = GPIO_V2_LINE_ATTR_ID_DEBOUNCE.rawValue
            attribute.attr.debounce_period_us = debounceMicroseconds
        } else {
            // Outputs start inactive (dark, silent) rather than at whatever the pin held.
            attribute.attr.id = GPIO_V2_LINE_ATTR_ID_OUTPUT_VALUES.rawValue
            attribute.attr.values = 0
        }
        withUnsafeMutableBytes(of: &request.config.attrs) { $0.storeBytes(of: attribute, as: gpio_v2_line_config_attribute.self) }
        request.config.num_attrs = 1
        guard soundtrace_gpio_request_lines(descriptor, &request) == 0, request.fd > 0 else {
            let code = errno
            if code == EBUSY {
                throw .busy(name: line.name, chip: path, offset: line.offset, consumer: line.consumer)
            }
            throw .system(action: "request line \(line.offset) (\(line.name)) of", path: path, reason: Self.reason(code))
        }
        return request.fd
    }

    static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// A NUL-terminated name from a fixed-size C field.
    private static func text<T>(_ field: T) -> String {
        withUnsafeBytes(of: field) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
