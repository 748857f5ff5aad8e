import Foundation
import Testing

@testable import SoundtraceCore

@Suite struct HomeAssistantDiscoveryTests {
    static let topics = FleetTopics(prefix: "museum/hall-2")

    static func object(_ payload: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any])
    }

    @Test func aKioskAnnouncesAStateSensorALastRecognitionSensorAndAListenButton() throws {
        let messages = HomeAssistantDiscovery.messages(Self.topics, version: "9.8.7")
        #expect(
            messages.map(\.topic) == [
                "homeassistant/sensor/museum_hall-2/state/config", "homeassistant/sensor/museum_hall-2/last/config",
                "homeassistant/button/museum_hall-2/listen/config"
            ])
        let configs = try messages.map { try Self.object($0.payload) }
        #expect(configs.map { $0["unique_id"] as? String } == ["museum_hall-2_state", "museum_hall-2_last", "museum_hall-2_listen"])
        #expect(configs[0]["state_topic"] as? String == "museum/hall-2/state")
        #expect(configs[1]["state_topic"] as? String == "museum/hall-2/last")
        #expect(configs[1]["json_attributes_topic"] as? String == "museum/hall-2/last")
        #expect((configs[1]["value_template"] as? String)?.contains("value_json.title") == true)
        #expect(configs[2]["command_topic"] as? String == "museum/hall-2/command")
        #expect(configs[2]["payload_press"] as? String == "listen")
        for config in configs {
            #expect(config["availability_topic"] as? String == "museum/hall-2/availability")
            #expect(config["payload_available"] as? String == "online" && config["payload_not_available"] as? String == "offline")
            let device = try #require(config["device"] as? [String: Any])
            #expect(device["identifiers"] as? [String] == ["museum_hall-2"])
            #expect(device["sw_version"] as? String == "9.8.7" && device["name"] as? String == "Soundtrace museum/hall-2")
        }
    }

    @Test func removingThemIsAnEmptyMessageOnEachTopic() {
        let removals = HomeAssistantDiscovery.removals(Self.topics)
        #expect(removals.map(\.topic) == HomeAssistantDiscovery.messages(Self.topics, version: "1").map(\.topic))
        #expect(removals.allSatisfy { $0.payload.isEmpty })
    }
}
