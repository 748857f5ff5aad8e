import Testing

@testable import SoundtraceCore

@Suite struct FleetTests {
    typealias Message = FleetOutbox.Message

    @Test func aRetainedTopicKeepsOnlyItsNewestMessageAndOthersQueueInOrder() {
        var outbox = FleetOutbox(capacity: 4)
        outbox.post(Message(topic: "k/state", payload: "listening", retained: true))
        outbox.post(Message(topic: "k/event", payload: "1", retained: false))
        outbox.post(Message(topic: "k/state", payload: "idle", retained: true))
        outbox.post(Message(topic: "k/reply", payload: "2", retained: false))
        let (messages, dropped) = outbox.take()
        #expect(messages.map(\.payload) == ["idle", "1", "2"] && dropped == 0)
        #expect(outbox.isEmpty)
    }

    @Test func beyondItsCapacityTheOldestQueuedMessagesAreDroppedAndCounted() {
        var outbox = FleetOutbox(capacity: 3)
        for n in 1...10 { outbox.post(Message(topic: "k/event", payload: String(n), retained: false)) }
        outbox.post(Message(topic: "k/state", payload: "idle", retained: true))
        let (messages, dropped) = outbox.take()
        #expect(messages.map(\.payload) == ["idle", "8", "9", "10"] && dropped == 7)
        #expect(outbox.take().dropped == 0)
    }

    @Test func theReconnectDelayDoublesToAMinuteAndStartsOverOnceConnected() {
        var delay = ReconnectDelay()
        let waits = (0..<9).map { _ in delay.failed() }
        #expect(waits == [1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000])
        delay.connected()
        #expect(delay.failed() == 1000)
    }

    @Test(arguments: [
        ("listen", FleetCommand.listen), (" cancel\n", .cancel), ("calm on", .calm(true)), ("calm  off", .calm(false))
    ])
    func commandsAreWords(_ text: String, _ command: FleetCommand) {
        #expect(FleetCommand.parse(Array(text.utf8)) == .success(command))
    }

    @Test func anythingElseIsRefusedSayingWhatIsAccepted() throws {
        for text in ["LISTEN", "listen now", "calm", "calm maybe", "", "\u{1B}[2Jlisten"] {
            guard case let .failure(refusal) = FleetCommand.parse(Array(text.utf8)) else {
                Issue.record("accepted \(text)")
                continue
            }
            #expect(refusal.message.hasSuffix("expected one of: listen, cancel, calm on, calm off"))
            #expect(!refusal.message.contains("\u{1B}"))
        }
    }

    @Test func aPayloadOverTheLimitIsRefusedWholeNotReadInPart() throws {
        let padded = "listen" + String(repeating: " ", count: FleetCommand.maximumPayloadBytes - "listen".count)
        #expect(FleetCommand.parse(Array(padded.utf8)) == .success(.listen))
        // One byte more: what would have been cut off is never read, the whole payload is refused.
        for tail in [" ", "x"] {
            guard case let .failure(refusal) = FleetCommand.parse(Array((padded + tail).utf8)) else {
                Issue.record("accepted a payload of \(padded.utf8.count + 1) bytes")
                continue
            }
            #expect(refusal.message.hasPrefix("a command is at most 256 bytes"), "\(refusal.message)")
            #expect(refusal.received.hasPrefix("listen"))
        }
    }

    @Test func jsonEscapesQuotesBackslashesAndControls() {
        var json = JSONText()
        json.add("title", "Say \"hi\"\\ \n\u{7}\u{85}é")
        json.add("score", raw: "42")
        #expect(json.object == #"{"title":"Say \"hi\"\\ \n\u0007\u0085é","score":42}"#)
        #expect(JSONText().object == "{}")
    }

    @Test func topicsLiveUnderThePrefixAndTheNodeIdIsOneIdentifier() {
        let topics = FleetTopics(prefix: "museum/hall 2/kiosk.3")
        #expect(topics.state == "museum/hall 2/kiosk.3/state" && topics.command == "museum/hall 2/kiosk.3/command")
        #expect(topics.nodeId == "museum_hall_2_kiosk_3")
    }
}
