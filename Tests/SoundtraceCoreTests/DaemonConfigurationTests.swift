import Testing

@testable import SoundtraceCore

@Suite struct DaemonConfigurationTests {
    @Test func defaultsAreLoopbackAndNeedNoFile() throws {
        let c = try DaemonConfiguration.parse("", file: "c.conf")
        #expect(c == DaemonConfiguration())
        #expect(c.bind == "127.0.0.1" && c.port == 6680 && c.windowSeconds == 10 && c.gpio)
    }

    @Test func aByteOrderMarkBeforeTheFirstKeyIsNotPartOfIt() throws {
        let c = try DaemonConfiguration.parse("\u{FEFF}port = 7000\r\nmuted = yes\r\n", file: "c.conf")
        #expect(c.port == 7000)
        // Only at the very start: anywhere else it is part of what was written, and refused.
        #expect(throws: DaemonConfiguration.Invalid.self) {
            try DaemonConfiguration.parse("port = 7000\n\u{FEFF}muted = yes", file: "c.conf")
        }
    }

    @Test func readsEveryKey() throws {
        let text = """
            # Soundtrace kiosk
            catalog = /srv/catalog/museum.catalog
            state_dir=/var/lib/soundtrace
              bind = 0.0.0.0
            port = 7000\r
            device = plughw:1,0
            token_file = /etc/soundtrace/token
            window_seconds = 12
            gpio = no
            max_clients = 4
            idle_timeout_seconds = 60
            line_timeout_seconds = 5
            """
        let c = try DaemonConfiguration.parse(text, file: "c.conf")
        #expect(c.catalog == "/srv/catalog/museum.catalog" && c.stateDirectory == "/var/lib/soundtrace")
        #expect(c.bind == "0.0.0.0" && c.port == 7000 && c.device == "plughw:1,0")
        #expect(c.tokenFile == "/etc/soundtrace/token" && c.windowSeconds == 12 && !c.gpio)
        #expect(c.maxClients == 4 && c.idleTimeoutSeconds == 60 && c.lineTimeoutSeconds == 5)
    }

    static let bad: [(String, String)] = [
        ("port 7000", "c.conf:1: expected 'key = value', got 'port 7000'"),
        ("prot = 1", "c.conf:1: unknown key 'prot'"),
        ("port = 1\nport = 2", "c.conf:2: 'port' is set twice (first on line 1); keep one"),
        ("port = 70000", "c.conf:1: 'port' must be a whole number in 1–65535, got '70000'"),
        ("window_seconds = 2", "c.conf:1: 'window_seconds' must be a whole number in 3–30, got '2'"),
        ("catalog = catalog/x.catalog", "c.conf:1: 'catalog' must be an absolute path, got 'catalog/x.catalog'"),
        ("bind = 999.1.1.1", "c.conf:1: 'bind' must be an IPv4 address, ::1, :: or localhost, got '999.1.1.1'"),
        ("bind = 10.0.0.1\u{301}", "c.conf:1: 'bind' must be an IPv4 address, ::1, :: or localhost, got '10.0.0.1\u{301}'"),
        ("gpio = maybe", "c.conf:1: 'gpio' must be yes or no, got 'maybe'"),
        ("device =", "c.conf:1: 'device' has no value; expected ALSA capture device"),
        (
            "device = hw:1 # the USB microphone",
            "c.conf:1: 'device' = 'hw:1 # the USB microphone' ends in a comment, which would be read as part of the value; a comment takes a line of its own, starting with '#' (keep 'hw:1' here)"
        ),
        ("window_seconds = 10   ## ten seconds", "c.conf:1: 'window_seconds' = '10   ## ten seconds' ends in a comment"),
        // Not before a number or a name: only a '#' after a space starts a comment.
        ("port = 7000#", "c.conf:1: 'port' must be a whole number in 1–65535, got '7000#'"),
        ("\n\nbind = 192.168.1.5", "c.conf: bind = 192.168.1.5 reaches the network, which needs a token: set token_file"),
        ("line_timeout_seconds = 0", "c.conf:1: 'line_timeout_seconds' must be a whole number in 1–3600, got '0'"),
        // One slot is kept for this machine: a LAN bind needs at least one more.
        (
            "bind = 0.0.0.0\ntoken_file = /etc/t\nmax_clients = 1",
            "c.conf: bind = 0.0.0.0 with max_clients = 1 leaves no slot for the network"
        )
    ]

    @Test(arguments: bad.map(\.0))
    func refusesBadFilesNamingTheLineAndTheFix(_ text: String) throws {
        let expected = try #require(Self.bad.first { $0.0 == text }).1
        do {
            _ = try DaemonConfiguration.parse(text, file: "c.conf")
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.description.hasPrefix(expected), "\(error.description)")
        }
    }

    @Test func loopbackNeedsNoToken() {
        for address in ["127.0.0.1", "127.1.2.3", "::1", "localhost"] { #expect(DaemonConfiguration.isLoopback(address)) }
        for address in ["0.0.0.0", "::", "192.168.1.5", "127.0.0"] { #expect(!DaemonConfiguration.isLoopback(address)) }
    }
}
