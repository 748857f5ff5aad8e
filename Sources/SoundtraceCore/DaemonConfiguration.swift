/// The settings of `soundtraced`, read from its configuration file (`key = value` lines, `#`
/// comments) and validated as a whole: every error names the line and the fix, and a LAN bind
/// without a token is refused. Command-line flags override values after parsing.
public struct DaemonConfiguration: Sendable, Equatable {
    public var catalog = "/usr/share/soundtrace/soundtrace.catalog"
    public var stateDirectory = "/var/lib/soundtrace"
    public var bind = "127.0.0.1"
    public var port = 6680
    public var device = "default"
    public var tokenFile: String?
    public var windowSeconds = SessionSettings.defaultWindowSeconds
    public var gpio = true
    public var maxClients = 8
    public var idleTimeoutSeconds = 300
    /// How long a client may take to finish a line it has started.
    public var lineTimeoutSeconds = 10
    /// The GPIO line names of the button, the two LEDs and the buzzer.
    public var lines = PanelLineNames()
    /// Silences the buzzer.
    public var muted = false
    /// The broker link for a fleet of kiosks; off by default.
    public var mqtt = MQTTSettings()

    public init() {}

    /// Keys, with the range or form each accepts, as the documentation lists them.
    public static let keys: [(name: String, form: String)] = [
        ("catalog", "path of the catalog file"), ("state_dir", "folder for the history database"),
        ("bind", "IPv4 address, ::1, :: or localhost"), ("port", "1–65535"), ("device", "ALSA capture device"),
        ("token_file", "file holding the LAN token (needed when bind is not loopback)"),
        ("window_seconds", "3–30"), ("gpio", "yes or no"), ("max_clients", "1–64"), ("idle_timeout_seconds", "10–86400"),
        ("line_timeout_seconds", "1–3600"),
        ("button_line", "GPIO line name of the button (default GPIO17)"),
        ("listening_led_line", "GPIO line name of the listening LED (default GPIO23)"),
        ("result_led_line", "GPIO line name of the result LED (default GPIO24)"),
        ("buzzer_line", "GPIO line name of the buzzer (default GPIO25)"), ("muted", "yes or no"),
        ("mqtt_host", "the MQTT broker's host name or address (MQTT is off without it)"), ("mqtt_port", "1–65535 (default 1883)"),
        ("mqtt_topic_prefix", "topic levels such as soundtrace/hall-2 (default soundtrace/<hostname>)"),
        ("mqtt_username", "the broker's user name for this kiosk"), ("mqtt_password_file", "file holding that user's password"),
        ("mqtt_tls_ca_file", "CA certificate (PEM) of the broker's TLS certificate"),
        ("mqtt_discovery", "yes or no: announce the kiosk to Home Assistant (default yes)")
    ]

    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let file: String
        /// 0 when the problem is not on one line (e.g. a LAN bind without a token).
        public let line: Int
        public let problem: String
        public var description: String { line > 0 ? "\(file):\(line): \(problem)" : "\(file): \(problem)" }
    }

    /// Parses and validates the file's text; `file` names it in errors.
    public static func parse(_ text: String, file: String) throws(Invalid) -> DaemonConfiguration {
        // Some editors start a UTF-8 file with a byte order mark; it would otherwise be an
        // invisible part of the first key ("unknown key 'catalog'").
        let text = text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text
        var configuration = DaemonConfiguration()
        var seen: [String: Int] = [:]
        // "\r\n" is one Character in Swift, so CRLF files need their own separator.
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
        guard lines.count <= 1000, text.utf8.count <= 64 * 1024 else {
            throw Invalid(file: file, line: 0, problem: "is larger than a configuration file can be (64 KiB, 1000 lines)")
        }
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            func fail(_ problem: String) -> Invalid { Invalid(file: file, line: number, problem: problem) }
            let line = raw.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw fail("expected 'key = value', got '\(line.prefix(60))'")
            }
            let key = String(line[..<equals]).trimmingWhitespace()
            let value = String(line[line.index(after: equals)...]).trimmingWhitespace()
            guard let known = keys.first(where: { $0.name == key }) else {
                let hint = keys.map(\.name).first { $0.hasPrefix(String(key.prefix(3))) }.map { " (did you mean '\($0)'?)" } ?? ""
                throw fail("unknown key '\(key)'\(hint); known keys: \(keys.map(\.name).joined(separator: ", "))")
            }
            if let first = seen[key] { throw fail("'\(key)' is set twice (first on line \(first)); keep one") }
            seen[key] = number
            guard !value.isEmpty else { throw fail("'\(key)' has no value; expected \(known.form)") }
            guard !value.unicodeScalars.contains(where: { $0.value < 0x20 }) else { throw fail("'\(key)' contains control characters") }
            // A comment after the value would otherwise become part of it: `device = hw:1 # USB mic`
            // names no device, and the daemon would only say so at the first session.
            if let kept = value.beforeTrailingComment {
                throw fail(
                    "'\(key)' = '\(value)' ends in a comment, which would be read as part of the value; a comment takes a line of its own, starting with '#' (keep '\(kept)' here)"
                )
            }
            func integer(_ range: ClosedRange<Int>) throws(Invalid) -> Int {
                guard let n = Int(value), range.contains(n) else {
                    throw fail("'\(key)' must be a whole number in \(range.lowerBound)–\(range.upperBound), got '\(value)'")
                }
                return n
            }
            func path() throws(Invalid) -> String {
                guard value.hasPrefix("/") else { throw fail("'\(key)' must be an absolute path, got '\(value)'") }
                return value
            }
            func yesNo() throws(Invalid) -> Bool {
                switch value.lowercased() {
                case "yes", "true", "on": return true
                case "no", "false", "off": return false
                default: throw fail("'\(key)' must be yes or no, got '\(value)'")
                }
            }
            func lineName() throws(Invalid) -> String {
                // The kernel keeps line names in 32 bytes with the terminating NUL.
                guard value.utf8.count <= 31, value.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) else {
                    throw fail(
                        "'\(key)' must be a GPIO line name of at most 31 characters without spaces (e.g. GPIO17; `gpioinfo` lists them), got '\(value)'"
                    )
                }
                return value
            }
            switch key {
            case "catalog": configuration.catalog = try path()
            case "state_dir": configuration.stateDirectory = try path()
            case "bind":
                guard Self.isAddress(value) else { throw fail("'bind' must be an IPv4 address, ::1, :: or localhost, got '\(value)'") }
                configuration.bind = value
            case "port": configuration.port = try integer(1...65535)
            case "device": configuration.device = value
            case "token_file": configuration.tokenFile = try path()
            case "window_seconds": configuration.windowSeconds = try integer(SessionSettings.windowSecondsRange)
            case "gpio": configuration.gpio = try yesNo()
            case "muted": configuration.muted = try yesNo()
            case "button_line": configuration.lines.button = try lineName()
            case "listening_led_line": configuration.lines.listeningLED = try lineName()
            case "result_led_line": configuration.lines.resultLED = try lineName()
            case "buzzer_line": configuration.lines.buzzer = try lineName()
            case "max_clients": configuration.maxClients = try integer(1...64)
            case "line_timeout_seconds": configuration.lineTimeoutSeconds = try integer(1...3600)
            case "mqtt_host":
                guard MQTTSettings.isValidHost(value) else {
                    throw fail(
                        "'mqtt_host' must be a host name or an IP address (letters, digits, '-', '.', ':'), got '\(value.prefix(60))'")
                }
                configuration.mqtt.host = value
            case "mqtt_port": configuration.mqtt.port = try integer(1...65535)
            case "mqtt_topic_prefix":
                if let problem = MQTTSettings.topicPrefixProblem(value) {
                    throw fail("'mqtt_topic_prefix' \(problem), got '\(value.prefix(60))' (e.g. soundtrace/hall-2)")
                }
                configuration.mqtt.topicPrefix = value
            case "mqtt_username":
                guard value.utf8.count <= 256, !value.contains(" ") else {
                    throw fail("'mqtt_username' must be one word of at most 256 bytes, got '\(value.prefix(60))'")
                }
                configuration.mqtt.username = value
            case "mqtt_password_file": configuration.mqtt.passwordFile = try path()
            case "mqtt_tls_ca_file": configuration.mqtt.tlsCAFile = try path()
            case "mqtt_discovery": configuration.mqtt.discovery = try yesNo()
            default: configuration.idleTimeoutSeconds = try integer(10...86400)
            }
        }
        // `MQTTSettings.problem` sees values, so a key set to its default (mqtt_port = 1883) would
        // pass it; the file says which keys were written.
        if configuration.mqtt.host == nil,
            let (key, line) = seen.filter({ $0.key.hasPrefix("mqtt_") }).min(by: { $0.value < $1.value })
        {
            throw Invalid(
                file: file, line: line,
                problem: "\(key) is set but mqtt_host is not, so MQTT is off; set mqtt_host to the broker's address or remove \(key)")
        }
        try configuration.validate(file: file)
        return configuration
    }

    /// Checks rules that span keys (also after command-line overrides).
    public func validate(file: String) throws(Invalid) {
        if !Self.isLoopback(bind) && tokenFile == nil {
            throw Invalid(
                file: file, line: 0,
                problem:
                    "bind = \(bind) reaches the network, which needs a token: set token_file (the token travels in clear text; see the README)"
            )
        }
        // One slot is always kept for clients on this machine (the line server's admission rule).
        if !Self.isLoopback(bind) && maxClients < 2 {
            throw Invalid(
                file: file, line: 0,
                problem:
                    "bind = \(bind) with max_clients = \(maxClients) leaves no slot for the network (one is kept for clients on this machine); set max_clients to 2 or more"
            )
        }
        if let problem = mqtt.problem() { throw Invalid(file: file, line: 0, problem: problem) }
        let roles = lines.roles
        for (index, role) in roles.enumerated() {
            if let other = roles[..<index].first(where: { $0.name == role.name }) {
                throw Invalid(
                    file: file, line: 0,
                    problem:
                        "the \(other.role) and the \(role.role) are both on GPIO line \(role.name); give each its own line (button_line, listening_led_line, result_led_line, buzzer_line)"
                )
            }
        }
    }

    /// True for addresses only this machine can reach.
    public static func isLoopback(_ address: String) -> Bool {
        address == "localhost" || address == "::1" || address.hasPrefix("127.") && isIPv4(address)
    }

    /// True for the addresses `bind` accepts (also checked for the `--bind` flag).
    public static func isValidBindAddress(_ text: String) -> Bool { isAddress(text) }

    static func isAddress(_ text: String) -> Bool {
        text == "localhost" || text == "::1" || text == "::" || isIPv4(text)
    }

    static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCIIDigit) && (Int(part) ?? 256) <= 255
            }
    }
}

extension StringProtocol {
    /// What stands before a '#' that follows a space (a comment written after a value), or nil.
    /// (A tab inside a value is refused before this, as a control character.)
    fileprivate var beforeTrailingComment: String? {
        let scalars = Array(unicodeScalars)
        for index in scalars.indices.dropFirst() where scalars[index] == "#" && scalars[index - 1] == " " {
            return String(String.UnicodeScalarView(scalars[..<index])).trimmingWhitespace()
        }
        return nil
    }

    fileprivate func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" || first == "\r" { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " || last == "\t" || last == "\r" { scalars = scalars.dropLast() }
        return String(scalars)
    }
}

extension Character {
    /// Not `("0"..."9").contains(self)`: a digit with a combining mark is one Character that sorts there.
    fileprivate var isASCIIDigit: Bool { asciiValue.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false }
}
