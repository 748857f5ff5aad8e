import Testing

@testable import SoundtraceCore

/// The configuration keys of the GPIO panel: line names and the mute switch.
@Suite struct PanelConfigurationTests {
    @Test func defaultsAreThePinsOfTheWiringTable() throws {
        let c = try DaemonConfiguration.parse("", file: "c.conf")
        #expect(c.lines == PanelLineNames(button: "GPIO17", listeningLED: "GPIO23", resultLED: "GPIO24", buzzer: "GPIO25"))
        #expect(!c.muted)
    }

    @Test func lineNamesAndMuteAreRead() throws {
        let c = try DaemonConfiguration.parse(
            """
            button_line = GPIO5
            listening_led_line = GPIO6
            result_led_line = GPIO13
            buzzer_line = PIN_22
            muted = yes
            """, file: "c.conf")
        #expect(c.lines == PanelLineNames(button: "GPIO5", listeningLED: "GPIO6", resultLED: "GPIO13", buzzer: "PIN_22"))
        #expect(c.muted)
    }

    @Test(arguments: [
        ("muted = sometimes", "c.conf:1: 'muted' must be yes or no, got 'sometimes'"),
        (
            "button_line = GPIO 17",
            "c.conf:1: 'button_line' must be a GPIO line name of at most 31 characters without spaces (e.g. GPIO17; `gpioinfo` lists them), got 'GPIO 17'"
        ),
        (
            "buzzer_line = " + String(repeating: "X", count: 32),
            "c.conf:1: 'buzzer_line' must be a GPIO line name of at most 31 characters without spaces (e.g. GPIO17; `gpioinfo` lists them), got '\(String(repeating: "X", count: 32))'"
        ),
        (
            "result_led_line = GPIO17",
            "c.conf: the button and the result LED are both on GPIO line GPIO17; give each its own line (button_line, listening_led_line, result_led_line, buzzer_line)"
        )
    ])
    func badValuesAreExplained(text: String, message: String) {
        #expect(throws: DaemonConfiguration.Invalid.self) { try DaemonConfiguration.parse(text, file: "c.conf") }
        do {
            _ = try DaemonConfiguration.parse(text, file: "c.conf")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func everyPanelKeyIsListed() {
        let names = DaemonConfiguration.keys.map(\.name)
        for key in ["button_line", "listening_led_line", "result_led_line", "buzzer_line", "muted"] { #expect(names.contains(key)) }
    }
}
