import Glibc
import SoundtraceClock

/// Opens a TCP connection to a host name or address within a time bound, trying each address the
/// name resolves to. Non-blocking connect plus `poll`, because a blocking connect to a powered-off
/// box on the LAN would hang for minutes.
enum SocketConnector {
    /// A connected, non-blocking, close-on-exec socket, or `.unreachable` with a reason and a hint.
    static func connect(host: String, port: Int, timeoutMilliseconds: Int, endpoint: String) throws(ClientError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let first = list else {
            let reason = String(cString: gai_strerror(resolved))
            throw .unreachable(endpoint: endpoint, reason: "cannot resolve the host name (\(reason)) — check --host or SOUNDTRACE_HOST")
        }
        defer { freeaddrinfo(list) }
        let end = SystemClock.monotonicMilliseconds() + Int64(timeoutMilliseconds)
        var lastReason = "no address to connect to"
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            cursor = entry.pointee.ai_next
            let fd = socket(
                entry.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                lastReason = String(cString: strerror(errno))
                continue
            }
            if Glibc.connect(fd, entry.pointee.ai_addr, entry.pointee.ai_addrlen) == 0 { return fd }
            var failure = errno
            if failure == EINPROGRESS {
                let left = end - SystemClock.monotonicMilliseconds()
                var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                var ready: Int32 = -1
                repeat { ready = poll(&waiting, 1, Int32(max(0, left))) } while ready < 0 && errno == EINTR
                if ready == 0 {
                    close(fd)
                    lastReason =
                        "no answer within \((timeoutMilliseconds + 999) / 1000) s — is the box on and on this network, and is the port right?"
                    continue
                }
                var soError: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
                if soError == 0 { return fd }
                failure = soError
            }
            close(fd)
            lastReason = reason(failure)
        }
        throw .unreachable(endpoint: endpoint, reason: lastReason)
    }

    /// A connect error for people, with what to check.
    static func reason(_ code: Int32) -> String {
        switch code {
        case ECONNREFUSED:
            return "connection refused — is it running? (systemctl status soundtraced)"
        case EHOSTUNREACH, ENETUNREACH:
            return "\(String(cString: strerror(code)).lowercased()) — check the network and --host"
        default:
            return String(cString: strerror(code)).lowercased()
        }
    }
}
