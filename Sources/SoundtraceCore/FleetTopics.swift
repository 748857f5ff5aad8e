/// The MQTT topics of one kiosk, all under its prefix (README, "Many kiosks").
public struct FleetTopics: Sendable, Equatable {
    public let prefix: String

    public init(prefix: String) { self.prefix = prefix }

    /// `online` or `offline` (the broker publishes `offline` as the last will), retained.
    public var availability: String { prefix + "/availability" }
    /// `idle` or `listening`, as `status` says, retained.
    public var state: String { prefix + "/state" }
    /// `on` or `off`, retained.
    public var calm: String { prefix + "/calm" }
    /// The last session's outcome as JSON, retained.
    public var last: String { prefix + "/last" }
    /// Each recognition as JSON, not retained.
    public var event: String { prefix + "/event" }
    /// The served catalog's version, hash and size as JSON, retained.
    public var catalog: String { prefix + "/catalog" }
    /// Where `listen`, `cancel` and `calm on|off` arrive.
    public var command: String { prefix + "/command" }
    /// The answer to each command as JSON, not retained.
    public var reply: String { prefix + "/reply" }

    /// The prefix as one identifier (`soundtrace/hall-2` → `soundtrace_hall-2`): the MQTT client
    /// id, unique per kiosk as the prefix is (a broker drops the older of two links with one id).
    public var nodeId: String {
        String(
            String.UnicodeScalarView(
                prefix.unicodeScalars.map { scalar in
                    scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-") ? scalar : "_"
                }))
    }
}
