/// Home Assistant's MQTT discovery: retained configuration messages under `homeassistant/` that
/// make each kiosk appear as a device, with a sensor for its state, a sensor for its last
/// recognition and a button that starts a listen, without any configuration in Home Assistant.
/// Every entity follows the kiosk's availability topic, so a kiosk that is off shows as unavailable.
/// Removing them is publishing an empty retained message on the same topics (`removals`), which
/// is what `mqtt_discovery = no` does.
public enum HomeAssistantDiscovery {
    /// Home Assistant's default discovery prefix.
    public static let prefix = "homeassistant"

    /// The configuration messages of one kiosk: (topic, JSON payload), all retained.
    public static func messages(_ topics: FleetTopics, version: String) -> [(topic: String, payload: String)] {
        entities(topics).map { entity in
            var json = JSONText()
            json.add("name", entity.name)
            json.add("unique_id", topics.nodeId + "_" + entity.objectId)
            for (key, value) in entity.fields { json.add(key, value) }
            json.add("availability_topic", topics.availability)
            json.add("payload_available", "online")
            json.add("payload_not_available", "offline")
            json.add("device", raw: device(topics, version: version))
            return (topic(topics, entity), json.object)
        }
    }

    /// Empty retained messages on the same topics, which remove the entities (and the broker's copies).
    public static func removals(_ topics: FleetTopics) -> [(topic: String, payload: String)] {
        entities(topics).map { (topic(topics, $0), "") }
    }

    private struct Entity {
        let component: String
        let objectId: String
        let name: String
        let fields: [(String, String)]
    }

    private static func entities(_ topics: FleetTopics) -> [Entity] {
        [
            Entity(
                component: "sensor", objectId: "state", name: "State",
                fields: [("state_topic", topics.state), ("icon", "mdi:ear-hearing")]),
            Entity(
                component: "sensor", objectId: "last", name: "Last recognition",
                fields: [
                    ("state_topic", topics.last),
                    // A match shows its title; any other outcome its name (noMatch, failed, ...).
                    ("value_template", "{{ value_json.title if value_json.outcome == 'matched' else value_json.outcome }}"),
                    ("json_attributes_topic", topics.last), ("icon", "mdi:music-note")
                ]),
            Entity(
                component: "button", objectId: "listen", name: "Listen",
                fields: [("command_topic", topics.command), ("payload_press", "listen"), ("icon", "mdi:microphone")])
        ]
    }

    /// `homeassistant/<component>/<node id>/<object id>/config`; the node id is the kiosk's client id
    /// (letters, digits, `-` and `_` only, as Home Assistant requires).
    private static func topic(_ topics: FleetTopics, _ entity: Entity) -> String {
        "\(prefix)/\(entity.component)/\(topics.nodeId)/\(entity.objectId)/config"
    }

    private static func device(_ topics: FleetTopics, version: String) -> String {
        var json = JSONText()
        json.add("identifiers", raw: "[" + JSONText.quoted(topics.nodeId) + "]")
        json.add("name", "Soundtrace " + topics.prefix)
        json.add("manufacturer", "Soundtrace")
        json.add("model", "kiosk")
        json.add("sw_version", version)
        return json.object
    }
}
