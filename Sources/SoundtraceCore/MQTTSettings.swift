/// The optional link to an MQTT broker, from the `mqtt_*` configuration keys: off unless `host`
/// is set. Values are checked as they are read (`DaemonConfiguration.parse`); the rules between
/// keys by `problem()`.
public struct MQTTSettings: Sendable, Equatable {
    /// The broker's host name or address; nil keeps MQTT off.
    public var host: String?
    public var port = 1883
    /// Every topic's first levels; nil means `soundtrace/<hostname>` (`topicPrefix(hostname:)`).
    public var topicPrefix: String?
    public var username: String?
    /// A file holding the password (one line), so that the configuration file can stay readable.
    public var passwordFile: String?
    /// The CA certificate (PEM) that signs the broker's certificate; set, the link uses TLS.
    public var tlsCAFile: String?
    /// Whether the kiosk announces itself to Home Assistant (`HomeAssistantDiscovery`); off, it
    /// removes what it announced before.
    public var discovery = true
    public init() {}

    public var isOn: Bool { host != nil }

    /// The prefix in use: the configured one, or `soundtrace/<hostname>` with the host name's
    /// characters that a topic level cannot hold (`+`, `#`, `/`, controls) made `_`.
    public func topicPrefix(hostname: String) -> String {
        if let topicPrefix { return topicPrefix }
        let level = String(
            String.UnicodeScalarView(
                hostname.unicodeScalars.prefix(64).map { Self.isTopicScalar($0) && $0 != "/" ? $0 : "_" }))
        return "soundtrace/" + (level.isEmpty ? "unnamed" : level)
    }

    /// Why keys set together do not make sense, naming the key to change; nil when they do.
    public func problem() -> String? {
        if host == nil {
            let set: [(String, Bool)] = [
                ("mqtt_port", port != 1883), ("mqtt_topic_prefix", topicPrefix != nil), ("mqtt_username", username != nil),
                ("mqtt_password_file", passwordFile != nil), ("mqtt_tls_ca_file", tlsCAFile != nil), ("mqtt_discovery", !discovery)
            ]
            if let (key, _) = set.first(where: \.1) {
                return "\(key) is set but mqtt_host is not, so MQTT is off; set mqtt_host to the broker's address or remove \(key)"
            }
        }
        if passwordFile != nil && username == nil {
            return "mqtt_password_file is set without mqtt_username; the broker needs both (or neither)"
        }
        return nil
    }

    /// A host name (letters, digits, `-`, `.`) or an IPv4 or IPv6 address, at most 253 characters.
    public static func isValidHost(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 253
            && text.unicodeScalars.allSatisfy { scalar in
                ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                    || scalar == "-" || scalar == "." || scalar == ":"
            }
    }

    /// Why `prefix` cannot start every topic, or nil: levels separated by `/`, none empty, no
    /// wildcard (`+`, `#`) or control character, at most 128 bytes (topics add a few levels to it).
    public static func topicPrefixProblem(_ prefix: String) -> String? {
        guard prefix.utf8.count <= 128 else { return "is longer than 128 bytes" }
        guard prefix.unicodeScalars.allSatisfy(isTopicScalar) else {
            return "must not hold the MQTT wildcards + and # or control characters"
        }
        guard !prefix.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty) else {
            return "must not start or end with / nor hold an empty level (//)"
        }
        guard !prefix.hasPrefix("$") else { return "must not start with $ (the broker's own topics)" }
        return nil
    }

    private static func isTopicScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar != "+" && scalar != "#" && scalar.value >= 0x20 && scalar.value != 0x7F && !(0x80...0x9F).contains(scalar.value)
    }
}
