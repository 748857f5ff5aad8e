import Glibc

/// Socket addresses from and to text, for the line server: which family an address is, and who a
/// peer is and whether it is on this machine (loopback clients get full control and a reserved slot).
enum SocketAddress {
    static func ipv4(_ address: String, port: Int) -> sockaddr_in? {
        var a = sockaddr_in()
        let text = address == "localhost" ? "127.0.0.1" : address
        guard inet_pton(AF_INET, text, &a.sin_addr) == 1 else { return nil }
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = UInt16(port).bigEndian
        return a
    }

    static func ipv6(_ address: String, port: Int) -> sockaddr_in6? {
        var a = sockaddr_in6()
        guard inet_pton(AF_INET6, address, &a.sin6_addr) == 1 else { return nil }
        a.sin6_family = sa_family_t(AF_INET6)
        a.sin6_port = UInt16(port).bigEndian
        return a
    }

    static func string(_ text: [CChar]) -> String {
        String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The peer's address as text.
    static func describe(_ peer: inout sockaddr_storage) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        if peer.ss_family == sa_family_t(AF_INET) {
            let a = withUnsafeBytes(of: &peer) { $0.load(as: sockaddr_in.self) }
            var address = a.sin_addr
            inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
            return Self.string(text)
        }
        let a = withUnsafeBytes(of: &peer) { $0.load(as: sockaddr_in6.self) }
        var address = a.sin6_addr
        inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
        return Self.string(text)
    }

    /// Whether a peer address (as `describe` writes it) is on this machine: 127.0.0.0/8, ::1, or
    /// 127.0.0.0/8 mapped into IPv6.
    @Sendable static func isLoopback(_ name: String) -> Bool {
        name.hasPrefix("127.") || name == "::1" || name.hasPrefix("::ffff:127.")
    }
}
