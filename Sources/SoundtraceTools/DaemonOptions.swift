import Glibc
import SoundtraceProtocol

/// Where soundtraced is and how to speak to it, from the options every daemon command shares and
/// their environment variables. Everything is checked before any connection is made.
struct DaemonOptions {
    static let defaultHost = "127.0.0.1"
    static let defaultPort = 6680
    /// Value options every daemon command takes.
    static let valueOptions: Set<String> = ["--host", "--port", "--token-file"]

    let host: String
    let port: Int
    /// The LAN token, sent as `token SECRET` right after the greeting; nil sends none.
    let token: String?
    /// Where the token came from (`--token-file PATH`, an environment variable), for the error
    /// when the daemon refuses it.
    let tokenSource: String?
    let json: Bool

    /// Reads the shared options (command line first, then SOUNDTRACE_* variables, then defaults).
    init(_ parsed: Arguments, environment: ClientEnvironment) throws(Arguments.UsageError) {
        let variables = environment.variables
        json = parsed.flag("--json")
        if let host = parsed.value("--host") {
            self.host = try Self.host(host, from: "--host")
        } else if let host = variables["SOUNDTRACE_HOST"], !host.isEmpty {
            self.host = try Self.host(host, from: "SOUNDTRACE_HOST")
        } else {
            host = Self.defaultHost
        }
        if let port = parsed.value("--port") {
            self.port = try Self.port(port, from: "--port")
        } else if let port = variables["SOUNDTRACE_PORT"], !port.isEmpty {
            self.port = try Self.port(port, from: "SOUNDTRACE_PORT")
        } else {
            port = Self.defaultPort
        }
        if let path = parsed.value("--token-file") {
            token = try Self.token(file: path, from: "--token-file")
            tokenSource = "--token-file \(path)"
        } else if let secret = variables["SOUNDTRACE_TOKEN"], !secret.isEmpty {
            token = try Self.token(secret, from: "SOUNDTRACE_TOKEN")
            tokenSource = "SOUNDTRACE_TOKEN"
        } else if let path = variables["SOUNDTRACE_TOKEN_FILE"], !path.isEmpty {
            token = try Self.token(file: path, from: "SOUNDTRACE_TOKEN_FILE")
            tokenSource = "SOUNDTRACE_TOKEN_FILE \(path)"
        } else {
            token = nil
            tokenSource = nil
        }
    }

    private static func host(_ text: String, from source: String) throws(Arguments.UsageError) -> String {
        let notAHost = Arguments.UsageError(
            description: "\(source) needs a host name or address such as 127.0.0.1 or soundtrace.local, not '\(text)'")
        let plain = text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F }
        guard !text.isEmpty, text.utf8.count <= 253, plain, !text.hasPrefix("-") else { throw notAHost }
        // An IPv6 address as URLs write it, "[fe80::1]", is that address; a port written after a
        // host ("box.local:7000", "[::1]:7000") would otherwise be looked up as part of its name.
        var host = Substring(text)
        var port: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else {
                throw .init(description: "\(source) '\(text)': an IPv6 address in brackets needs its closing ']', as in [fe80::1]")
            }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if rest.hasPrefix(":") { port = rest.dropFirst() } else if !rest.isEmpty { throw notAHost }
        } else if host.firstIndex(of: ":") == host.lastIndex(of: ":"), let colon = host.firstIndex(of: ":") {
            port = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        // A bracket left inside ("a]b", "[[::1]") is in no host name or address.
        guard !host.isEmpty, !host.contains("["), !host.contains("]"), port?.isEmpty != true else { throw notAHost }
        guard let port else { return String(host) }
        let portOption = source == "--host" ? "--port" : "SOUNDTRACE_PORT"
        throw .init(
            description: "\(source) names a port too ('\(text)'); give the host alone and the port with \(portOption): \(host) and \(port)")
    }

    private static func port(_ text: String, from source: String) throws(Arguments.UsageError) -> Int {
        guard text.allSatisfy(\.isASCII), let port = Int(text), text.first != "+", (1...65535).contains(port) else {
            throw .init(
                description:
                    "\(source) needs a port number from 1 to 65535 (soundtraced listens on \(defaultPort) by default), not '\(text)'")
        }
        return port
    }

    private static func token(_ secret: String, from source: String) throws(Arguments.UsageError) -> String {
        do {
            _ = try ProtocolLine("token", [secret])
        } catch {
            throw .init(description: "\(source): the token cannot be sent: \(error)")
        }
        return secret
    }

    /// The token in a file: its first line, without surrounding blanks (editors add a newline).
    private static func token(file path: String, from source: String) throws(Arguments.UsageError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw .init(description: "\(source): cannot read token file \(path): \(String(cString: strerror(errno)).lowercased())")
        }
        defer { close(fd) }
        // A token is short; a bound keeps a wrong path (a log, a device) from being read whole.
        var bytes = [UInt8](repeating: 0, count: 4097)
        var total = 0
        while total < bytes.count {
            let count = bytes[total...].withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw .init(description: "\(source): cannot read token file \(path): \(String(cString: strerror(errno)).lowercased())")
            }
            if count == 0 { break }
            total += count
        }
        guard total < bytes.count, let text = String(validating: bytes[..<total], as: UTF8.self) else {
            throw .init(description: "\(source): token file \(path) is not a short text file holding the token")
        }
        let firstLine = text.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
        let secret = firstLine.trimmingBlanks()
        guard !secret.isEmpty else {
            throw .init(description: "\(source): token file \(path) is empty; put the daemon's token on its first line")
        }
        return try token(secret, from: source)
    }
}

extension Substring {
    fileprivate func trimmingBlanks() -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        return String(drop(while: isBlank).reversed().drop(while: isBlank).reversed())
    }
}
