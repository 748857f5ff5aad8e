import Glibc
import SoundtraceCore
import SoundtraceFingerprint
import SoundtracePlatform

/// Makes the MQTT link when mqtt_host is set, before the daemon serves: the password file read,
/// libmosquitto loaded and the TLS CA certificate accepted, or a start-up error naming the key to
/// fix. Reaching the broker is left to the link's thread: a broker that is down is not an error.
enum FleetStartup {
    static func link(_ settings: MQTTSettings) throws(DaemonStartup.Failure) -> (FleetLink, MosquittoClient)? {
        guard let host = settings.host else { return nil }
        let topics = FleetTopics(prefix: settings.topicPrefix(hostname: hostname()))
        var options = MosquittoClient.Options(
            host: host, port: settings.port, clientId: topics.nodeId, keepAliveSeconds: FleetLink.keepAliveSeconds)
        options.username = settings.username
        options.password = try settings.passwordFile.map { path throws(DaemonStartup.Failure) in try password(path) }
        options.tlsCAFile = settings.tlsCAFile
        options.willTopic = topics.availability
        options.willPayload = "offline"
        // One byte more than a command may have, so that a longer one is refused rather than cut.
        options.messageBytesKept = FleetCommand.maximumPayloadBytes + 1
        if let ca = settings.tlsCAFile { try checkCertificateFile(ca) }
        do {
            let client = try MosquittoClient(options)
            return (FleetLink(topics: topics, discovery: settings.discovery), client)
        } catch {
            throw DaemonStartup.Failure(description: "MQTT (mqtt_host = \(host)): \(error)")
        }
    }

    /// The bytes of the file a setting names, at most `limit`; what is wrong said with the key.
    private static func settingFile(_ key: String, _ path: String, limit: Int, holding what: String) throws(DaemonStartup
        .Failure)
        -> [UInt8]
    {
        do {
            return try FileBytes.read(path: path, limit: limit)
        } catch {
            switch error {
            case let .system(_, reason):
                throw DaemonStartup.Failure(
                    description: "cannot read \(key) \(path): \(reason); it must be readable by the soundtrace user")
            case .tooLarge:
                let size = limit >= 1 << 20 ? "\(limit >> 20) MiB" : "\(limit >> 10) KiB"
                throw DaemonStartup.Failure(description: "\(key) \(path) is larger than \(what) can be (\(size))")
            }
        }
    }

    /// The password: the file's first line, without its line end.
    static func password(_ path: String) throws(DaemonStartup.Failure) -> String {
        let bytes = try settingFile("mqtt_password_file", path, limit: 4096, holding: "a password")
        let line = bytes.prefix { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }
        guard !line.isEmpty, let text = String(validating: line, as: UTF8.self) else {
            throw DaemonStartup.Failure(description: "mqtt_password_file \(path) must hold the password as UTF-8 text on its first line")
        }
        return text
    }

    /// The CA file must hold a certificate in PEM form. libmosquitto reads it only at the first
    /// connection, and OpenSSL then reports a wrong file as a failed handshake ("is the broker's
    /// certificate signed by the CA?"), which sends the owner to check the wrong thing.
    static func checkCertificateFile(_ path: String) throws(DaemonStartup.Failure) {
        let bytes = try settingFile("mqtt_tls_ca_file", path, limit: 4 << 20, holding: "a CA certificate file")
        let marker = Array("-----BEGIN CERTIFICATE-----".utf8)
        let holdsCertificate =
            bytes.count >= marker.count
            && (0...(bytes.count - marker.count)).contains { bytes[$0..<($0 + marker.count)].elementsEqual(marker) }
        guard holdsCertificate else {
            throw DaemonStartup.Failure(
                description:
                    "mqtt_tls_ca_file \(path) holds no certificate in PEM form (no '-----BEGIN CERTIFICATE-----' line); give the CA certificate that signed the broker's, as PEM (`openssl x509 -inform der -in ca.der -out ca.pem` converts a DER file)"
            )
        }
    }

    private static func hostname() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
