import Glibc
import Testing

@testable import SoundtracePlatform

@Suite struct SystemdNotifierTests {
    /// A datagram socket bound to a fresh path, standing in for systemd.
    final class Listener {
        let path: String
        let descriptor: Int32

        init() throws {
            path = "/tmp/st-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8) + [0]
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            #expect(bound == 0)
        }

        deinit {
            close(descriptor)
            unlink(path)
        }

        /// The next datagram (they are already queued when this is called, so no wait is needed).
        func receive() -> String? {
            var buffer = [UInt8](repeating: 0, count: 512)
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            return count > 0 ? String(decoding: buffer.prefix(count), as: UTF8.self) : nil
        }
    }

    @Test func sendsReadinessWatchdogAndStoppingDatagrams() throws {
        let listener = try Listener()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "20000000"])
        #expect(notifier.isActive)
        #expect(notifier.watchdogIntervalMilliseconds == 10_000)
        notifier.ready(status: "listening on 127.0.0.1:6680\nsecond line")
        notifier.watchdog()
        notifier.stopping()
        #expect(listener.receive() == "READY=1\nSTATUS=listening on 127.0.0.1:6680 second line")
        #expect(listener.receive() == "WATCHDOG=1")
        #expect(listener.receive() == "STOPPING=1")
        #expect(listener.receive() == nil)
    }

    @Test func withoutASocketNothingHappens() {
        let notifier = SystemdNotifier(environment: [:])
        #expect(!notifier.isActive)
        #expect(notifier.watchdogIntervalMilliseconds == nil)
        notifier.ready(status: "x")  // must not crash or block
    }
}
