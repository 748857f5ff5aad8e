import SoundtraceClock
import SoundtraceCore
import SoundtraceFingerprint
import SoundtracePlatform
import SoundtraceTestSupport
import Testing

@testable import SoundtraceDaemon

/// The appliance's side of the MQTT link, without a broker: what it posts to the link's outbox,
/// and commands from the command topic under the same rules as the button and the protocol.
/// (The link itself, against a real mosquitto, is in AcceptanceTests' MQTTAcceptanceTests.)
@Suite(.serialized) struct ApplianceFleetTests {
    typealias Microphone = ApplianceSessionTests.ScriptedMicrophone

    private func makeAppliance(_ microphone: Microphone, launch: ApplianceSessionTests.ManualCaptureLaunch) -> (Appliance, FleetLink) {
        var environment = Appliance.Environment(
            device: "scripted", settings: .standard, token: nil, makeSource: { _ in microphone },
            clock: RealTimeFixedWall(), timersChanged: {})
        environment.launchCapture = launch.launch
        let appliance = Appliance(
            environment: environment, channel: ApplianceSessionTests.NullChannel(), indicator: nil,
            catalog: CatalogSlot(path: "sample", catalog: ApplianceSessionTests.catalog, problem: nil), store: nil,
            storeProblem: nil)
        let link = FleetLink(topics: FleetTopics(prefix: "t/k1"))
        appliance.attachFleet(link)
        return (appliance, link)
    }

    private func posted(_ link: FleetLink) -> [String: String] {
        Dictionary(link.takeOutbox().messages.map { ($0.topic, $0.payload) }, uniquingKeysWith: { _, last in last })
    }

    @Test func attachingPostsStateCalmAndCatalog() {
        let (_, link) = makeAppliance(Microphone(samples: []), launch: .init())
        let messages = posted(link)
        #expect(messages["t/k1/state"] == "idle" && messages["t/k1/calm"] == "off")
        let catalog = ApplianceSessionTests.catalog.manifest
        #expect(
            messages["t/k1/catalog"]
                == #"{"status":"ok","version":\#(catalog.version),"hash":"\#(catalog.hash)","references":\#(ApplianceSessionTests.catalog.references.count)}"#
        )
    }

    @Test func listenCancelAndCalmFromTheCommandTopicFollowTheSessionRules() throws {
        let launch = ApplianceSessionTests.ManualCaptureLaunch()
        let (appliance, link) = makeAppliance(Microphone(samples: []), launch: launch)
        _ = link.takeOutbox()
        appliance.fleetCommand(Array("listen".utf8))
        var messages = posted(link)
        #expect(messages["t/k1/state"] == "listening")
        #expect(messages["t/k1/reply"] == #"{"command":"listen","ok":true,"session":"s-1","state":"listening"}"#)
        // One session at a time, as for the button and the protocol.
        appliance.fleetCommand(Array("listen".utf8))
        messages = posted(link)
        #expect(messages["t/k1/reply"]?.hasPrefix(#"{"command":"listen","ok":false,"error":"already listening (session s-1)"#) == true)
        appliance.fleetCommand(Array("cancel".utf8))
        messages = posted(link)
        #expect(messages["t/k1/reply"] == #"{"command":"cancel","ok":true,"session":"s-1","state":"canceled"}"#)
        #expect(messages["t/k1/state"] == "idle")
        #expect(messages["t/k1/last"]?.hasPrefix(#"{"session":"s-1","outcome":"canceled","time":""#) == true)
        #expect(messages["t/k1/event"] == nil)
        try launch.runNext()
        appliance.fleetCommand(Array("calm on".utf8))
        messages = posted(link)
        #expect(messages["t/k1/calm"] == "on" && appliance.state.withLock { $0.calm })
        #expect(messages["t/k1/reply"] == #"{"command":"calm on","ok":true,"calm":"on"}"#)
        appliance.fleetCommand(Array("reboot".utf8))
        #expect(
            posted(link)["t/k1/reply"]
                == #"{"command":"reboot","ok":false,"error":"unknown command \"reboot\"; expected one of: listen, cancel, calm on, calm off"}"#
        )
    }

    @Test func aMatchIsPostedAsTheLastOutcomeAndAsAnEvent() throws {
        let reference = ApplianceSessionTests.catalog.references[2].audio
        let recording = try RecordingLoader.load(path: ApplianceSessionTests.root + "/catalog/" + reference.sourceFile).audio
        let clip = TestAudio.micChain(TestAudio.excerpt(recording, from: 20 * 8000, count: 12 * 8000), seed: 5).samples
        let launch = ApplianceSessionTests.ManualCaptureLaunch()
        let (appliance, link) = makeAppliance(Microphone(samples: clip), launch: launch)
        appliance.buttonPressed()
        try launch.runNext()
        let messages = posted(link)
        let last = try #require(messages["t/k1/last"])
        #expect(last.hasPrefix(#"{"session":"s-1","outcome":"matched","time":""#), "\(last)")
        #expect(last.contains(#""reference":"\#(reference.id)","title":"#), "\(last)")
        #expect(last.contains(#""offset":19."#) || last.contains(#""offset":20."#), "\(last)")
        let event = try #require(messages["t/k1/event"])
        // No history in this appliance: the recognition was not saved.
        #expect(event.hasSuffix(#","event":null}"#) && event.contains(reference.id), "\(event)")
        #expect(!last.contains("samples") && last.utf8.count < 400)
    }
}
