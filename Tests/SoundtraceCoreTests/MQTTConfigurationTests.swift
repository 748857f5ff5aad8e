import Testing

@testable import SoundtraceCore

@Suite struct MQTTConfigurationTests {
    @Test func mqttIsOffUnlessAHostIsSet() throws {
        let c = try DaemonConfiguration.parse("", file: "c.conf")
        #expect(!c.mqtt.isOn && c.mqtt.port == 1883)
        #expect(c.mqtt.topicPrefix(hostname: "hall-2") == "soundtrace/hall-2")
    }

    @Test func readsEveryMQTTKey() throws {
        let text = """
            mqtt_host = broker.museum.lan
            mqtt_port = 8883
            mqtt_topic_prefix = museum/floor-1/kiosk-3
            mqtt_username = kiosk3
            mqtt_password_file = /etc/soundtrace/mqtt-password
            mqtt_tls_ca_file = /etc/ssl/certs/museum-ca.pem
            """
        let m = try DaemonConfiguration.parse(text, file: "c.conf").mqtt
        #expect(m.host == "broker.museum.lan" && m.port == 8883 && m.isOn)
        #expect(m.topicPrefix(hostname: "ignored") == "museum/floor-1/kiosk-3")
        #expect(m.username == "kiosk3" && m.passwordFile == "/etc/soundtrace/mqtt-password")
        #expect(m.tlsCAFile == "/etc/ssl/certs/museum-ca.pem")
        #expect(m.discovery)
        #expect(!(try DaemonConfiguration.parse(text + "\nmqtt_discovery = no", file: "c.conf").mqtt.discovery))
    }

    @Test func addressesAreHosts() throws {
        for host in ["127.0.0.1", "::1", "fe80::1", "mqtt", "broker-1.example.org"] {
            #expect(try DaemonConfiguration.parse("mqtt_host = \(host)", file: "c.conf").mqtt.host == host)
        }
    }

    @Test func theDefaultPrefixKeepsTheHostNameToOneLevelWithoutWildcards() {
        let m = MQTTSettings()
        #expect(m.topicPrefix(hostname: "a/b+c#d") == "soundtrace/a_b_c_d")
        #expect(m.topicPrefix(hostname: "") == "soundtrace/unnamed")
    }

    static let bad: [(String, String)] = [
        ("mqtt_host = broker lan", "c.conf:1: 'mqtt_host' must be a host name or an IP address"),
        ("mqtt_host = mqtt://broker", "c.conf:1: 'mqtt_host' must be a host name or an IP address"),
        ("mqtt_host = b\nmqtt_port = 0", "c.conf:2: 'mqtt_port' must be a whole number in 1–65535, got '0'"),
        ("mqtt_host = b\nmqtt_topic_prefix = kiosks/+/3", "c.conf:2: 'mqtt_topic_prefix' must not hold the MQTT wildcards"),
        ("mqtt_host = b\nmqtt_topic_prefix = kiosks/", "c.conf:2: 'mqtt_topic_prefix' must not start or end with /"),
        ("mqtt_host = b\nmqtt_topic_prefix = /kiosks", "c.conf:2: 'mqtt_topic_prefix' must not start or end with /"),
        ("mqtt_host = b\nmqtt_topic_prefix = a//b", "c.conf:2: 'mqtt_topic_prefix' must not start or end with /"),
        ("mqtt_host = b\nmqtt_topic_prefix = $SYS/x", "c.conf:2: 'mqtt_topic_prefix' must not start with $"),
        ("mqtt_host = b\nmqtt_password_file = secret", "c.conf:2: 'mqtt_password_file' must be an absolute path"),
        ("mqtt_host = b\nmqtt_tls_ca_file = ca.pem", "c.conf:2: 'mqtt_tls_ca_file' must be an absolute path"),
        ("mqtt_port = 1884", "c.conf:1: mqtt_port is set but mqtt_host is not, so MQTT is off; set mqtt_host"),
        // Set to its default it is still set: the file says MQTT was meant.
        ("mqtt_port = 1883", "c.conf:1: mqtt_port is set but mqtt_host is not"),
        ("port = 6680\nmqtt_discovery = yes\nmqtt_port = 1883", "c.conf:2: mqtt_discovery is set but mqtt_host is not"),
        ("mqtt_username = k", "c.conf:1: mqtt_username is set but mqtt_host is not"),
        ("mqtt_host = b\nmqtt_password_file = /etc/p", "c.conf: mqtt_password_file is set without mqtt_username"),
        ("mqtt_host = b\nmqtt_discovery = maybe", "c.conf:2: 'mqtt_discovery' must be yes or no, got 'maybe'"),
        ("mqtt_discovery = no", "c.conf:1: mqtt_discovery is set but mqtt_host is not")
    ]

    @Test(arguments: bad.map(\.0))
    func refusesBadValuesNamingTheKey(_ text: String) throws {
        let expected = try #require(Self.bad.first { $0.0 == text }).1
        do {
            _ = try DaemonConfiguration.parse(text, file: "c.conf")
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.description.hasPrefix(expected), "\(error.description)")
        }
    }
}
