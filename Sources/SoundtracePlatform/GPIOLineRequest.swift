import CGPIOD
import Glibc

/// One line requested through libgpiod — the button or an output — released when this is freed.
/// It keeps its chip open: with libgpiod 1.6 a requested line belongs to its chip.
final class GPIOLineRequest {
    /// Why a call on the line failed: the errno it left.
    struct Failure: Error {
        let code: Int32
        var reason: String { GPIOChip.reason(code) }
    }

    /// One edge of the button line: `rising` is inactive → active, timed on CLOCK_MONOTONIC.
    struct Edge {
        let rising: Bool
        let nanoseconds: UInt64
    }

    private let handle: OpaquePointer
    private let chip: GPIOChip

    init(handle: OpaquePointer, chip: GPIOChip) {
        self.handle = handle
        self.chip = chip
    }

    deinit {
        soundtrace_gpiod_release(handle)
    }

    /// The button's event descriptor, for poll (-1 for an output).
    var descriptor: Int32 { soundtrace_gpiod_request_fd(handle) }

    /// The line's logical level (true = active: the button pressed, an output on).
    func isActive() throws(Failure) -> Bool {
        let value = soundtrace_gpiod_get_value(handle)
        guard value >= 0 else { throw Failure(code: errno) }
        return value != 0
    }

    /// Drives an output's logical level.
    func drive(_ active: Bool) throws(Failure) {
        guard soundtrace_gpiod_set_value(handle, active ? 1 : 0) == 0 else { throw Failure(code: errno) }
    }

    /// The edges waiting on the button's descriptor, at most `capacity` (the kernel queues up to
    /// 16 per line). EAGAIN when none wait and the descriptor is non-blocking.
    func readEdges(capacity: Int) throws(Failure) -> [Edge] {
        var edges = [soundtrace_gpiod_edge](repeating: soundtrace_gpiod_edge(), count: capacity)
        let count = edges.withUnsafeMutableBufferPointer { buffer in
            soundtrace_gpiod_read_edges(handle, buffer.baseAddress, UInt32(buffer.count))
        }
        guard count >= 0 else { throw Failure(code: errno) }
        return edges.prefix(Int(count)).map { Edge(rising: $0.rising, nanoseconds: $0.timestamp_ns) }
    }
}
