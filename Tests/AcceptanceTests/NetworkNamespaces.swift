import Foundation
import Glibc
import SoundtraceTestSupport

/// Network namespaces for the acceptance tests that take the network away (`unshare --net`) or
/// build a small LAN (`ip netns` and a veth pair). Making them needs root (CAP_SYS_ADMIN and
/// CAP_NET_ADMIN); where the machine refuses, the tests that need them are skipped and say why.
enum NetworkNamespaces {
    /// Why `unshare --net` cannot make a network namespace with a working loopback here; nil when it can.
    static let unshareRefusal: String? = refusal {
        try SystemTool.must([try SystemTool.path("unshare"), "--net", "--", try SystemTool.path("ip"), "link", "set", "lo", "up"])
    }

    /// Why `ip netns` cannot make namespaces joined by a veth pair here; nil when it can.
    static let vethRefusal: String? = refusal {
        let ip = try SystemTool.path("ip")
        let probe = "soundtrace-probe-\(getpid())"
        try SystemTool.must([ip, "netns", "add", probe])
        defer { _ = try? SystemTool.run([ip, "netns", "delete", probe]) }
        try SystemTool.must([ip, "-n", probe, "link", "add", "probe0", "type", "veth", "peer", "name", "probe1"])
    }

    private static func refusal(_ probe: () throws -> Void) -> String? {
        var cause: String?
        if geteuid() != 0 {
            cause = "not root: network namespaces need CAP_SYS_ADMIN and CAP_NET_ADMIN"
        } else {
            do { try probe() } catch { cause = "\(error)" }
        }
        // A skip's comment is fixed text; the cause goes to stderr.
        if let cause { FileHandle.standardError.write(Data("network namespaces are unavailable here: \(cause)\n".utf8)) }
        return cause
    }

    /// A TCP socket that belongs to the network namespace at `path` (`/run/netns/NAME` or
    /// `/proc/PID/ns/net`). A socket stays in the namespace it was made in, and `setns` moves only
    /// the calling thread, so a short-lived thread of its own enters the namespace, makes the
    /// socket and ends; the test's other threads never leave their namespace.
    static func tcpSocket(in path: String) throws -> Int32 {
        let made = MadeSocket()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { done.signal() }
            made.make(in: path)
        }
        thread.start()
        done.wait()
        guard made.descriptor >= 0 else { throw TestFailure("cannot make a socket in \(path): \(made.problem)") }
        return made.descriptor
    }

    /// What the socket-making thread hands back. @unchecked: written by that thread before it
    /// signals, read after the wait.
    private final class MadeSocket: @unchecked Sendable {
        var descriptor: Int32 = -1
        var problem = ""

        func make(in path: String) {
            let namespace = open(path, O_RDONLY | O_CLOEXEC)
            guard namespace >= 0 else { return fail("open") }
            defer { close(namespace) }
            guard let enter = NetworkNamespaces.setns else {
                problem = "setns is not in the C library"
                return
            }
            guard enter(namespace, NetworkNamespaces.newNetworkNamespaceFlag) == 0 else { return fail("setns") }
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { return fail("socket") }
            // A connect that goes nowhere (a link that is down) gives up after 5 s instead of minutes.
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        private func fail(_ call: String) {
            problem = "\(call): \(String(cString: strerror(errno)))"
        }
    }

    /// CLONE_NEWNET from <sched.h>, which Swift's Glibc module does not export.
    static let newNetworkNamespaceFlag: Int32 = 0x4000_0000

    /// glibc's `setns`, looked up at run time (its declaration needs _GNU_SOURCE, which Swift's Glibc
    /// module does not define).
    typealias SetNamespace = @convention(c) (Int32, Int32) -> Int32
    static let setns: SetNamespace? = {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "setns") else { return nil }
        return unsafeBitCast(symbol, to: SetNamespace.self)
    }()
}

/// Two network namespaces joined by a veth pair, a two-machine LAN in one box: the server's end
/// has `serverAddress`/24, the client's `clientAddress`/24, and each namespace has its own loopback.
/// `remove()` deletes both namespaces, which also destroys the pair.
final class VethLAN {
    let server: String
    let client: String
    let serverAddress = "10.231.0.1"
    let clientAddress = "10.231.0.2"
    private let ip: String

    init() throws {
        ip = try SystemTool.path("ip")
        let tag = "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        server = "soundtrace-lan-server-\(tag)"
        client = "soundtrace-lan-client-\(tag)"
        do {
            try SystemTool.must([ip, "netns", "add", server])
            try SystemTool.must([ip, "netns", "add", client])
            try SystemTool.must([ip, "-n", server, "link", "add", "lan0", "type", "veth", "peer", "name", "lan0", "netns", client])
            for (namespace, address) in [(server, serverAddress), (client, clientAddress)] {
                try SystemTool.must([ip, "-n", namespace, "addr", "add", address + "/24", "dev", "lan0"])
                try SystemTool.must([ip, "-n", namespace, "link", "set", "lan0", "up"])
                try SystemTool.must([ip, "-n", namespace, "link", "set", "lo", "up"])
            }
        } catch {
            remove()
            throw error
        }
    }

    /// The path a namespace is pinned at, for `setns` and `nsenter`.
    static func path(_ namespace: String) -> String { "/run/netns/" + namespace }

    /// `ip netns exec NAMESPACE`: runs a program there (it execs, so the pid stays the program's).
    func exec(in namespace: String) -> [String] { [ip, "netns", "exec", namespace] }

    /// Deletes both namespaces (and with them the veth pair); safe to call twice.
    func remove() {
        for namespace in [server, client] {
            _ = try? SystemTool.run([ip, "netns", "delete", namespace])
        }
    }
}
