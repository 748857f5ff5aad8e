import Foundation
import Glibc
import SoundtraceClock
import SoundtraceCore
import SoundtraceFingerprint
import SoundtraceProtocol
import SoundtraceStore
import SoundtraceTestSupport
import Testing

@testable import SoundtraceDaemon
@testable import SoundtracePlatform

/// Session ids across restarts, the catalog a session keeps, and listening while shutting down.
@Suite(.serialized) struct ApplianceLifecycleTests {
    /// Every file a test writes, removed when the test ends.
    private let scratch: TemporaryFolder

    init() throws { scratch = try TemporaryFolder("soundtrace-appliance-tests") }

    typealias Microphone = ApplianceSessionTests.ScriptedMicrophone
    static let catalog = ApplianceSessionTests.catalog

    /// A microphone whose device takes `closeDelay` to close, as a USB device being released can.
    final class SlowClosingMicrophone: AudioSource, @unchecked Sendable {
        // @unchecked: opened under the appliance's lock, then used by one capture thread.
        let device = "slow"
        let closeDelay: useconds_t
        private let inner = Microphone(samples: [], pace: 20_000)
        var opened = 0
        init(closeDelay: useconds_t) { self.closeDelay = closeDelay }
        func open(preferredRate: Int) throws(CaptureFault) -> CaptureFormat {
            opened += 1
            return try inner.open(preferredRate: preferredRate)
        }
        func read(timeoutMilliseconds: Int) throws(CaptureFault) -> CaptureEvent {
            try inner.read(timeoutMilliseconds: timeoutMilliseconds)
        }
        func wake() { inner.wake() }
        func close() { usleep(closeDelay) }
    }

    private func makeAppliance(
        _ source: any AudioSource & Sendable, store: HistoryStore?, catalog: Catalog = Self.catalog,
        channel: ClientChannel = ApplianceSessionTests.NullChannel(),
        indicator: ApplianceSessionTests.RecordingIndicator = ApplianceSessionTests.RecordingIndicator(),
        longestCloseOnStop: Int? = nil
    ) -> Appliance {
        var environment = Appliance.Environment(
            device: source.device, settings: .standard, token: nil, makeSource: { _ in source },
            clock: RealTimeFixedWall(), timersChanged: {})
        if let longestCloseOnStop { environment.longestCaptureCloseOnStopMilliseconds = longestCloseOnStop }
        return Appliance(
            environment: environment, channel: channel,
            indicator: indicator,
            catalog: CatalogSlot(path: "sample", catalog: catalog, problem: nil), store: store, storeProblem: nil)
    }

    private func temporaryStorePath() throws -> String {
        let directory = scratch.path + "/\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory + "/history.db"
    }

    /// Returns once the capture threads have closed their devices (the session ended first).
    private func waitUntilIdle(_ appliance: Appliance) {
        appliance.runningCaptures.waitForNone()
    }

    /// A clip of catalog reference `index` that matches (through the microphone chain).
    private func matchingClip(_ index: Int) throws -> [Int16] {
        let root = ApplianceSessionTests.root
        let recording = try RecordingLoader.load(path: root + "/catalog/" + Self.catalog.references[index].audio.sourceFile).audio
        return TestAudio.micChain(TestAudio.excerpt(recording, from: 20 * 8000, count: 12 * 8000), seed: 5).samples
    }

    @Test func deletingTheNewestRecognitionDoesNotBringItsSessionIdBackAfterARestart() throws {
        let path = try temporaryStorePath()
        var store = try HistoryStore.open(path: path).store
        let microphone = Microphone(samples: try matchingClip(2))
        let first = makeAppliance(microphone, store: store)
        first.buttonPressed()
        waitUntilIdle(first)
        let recorded = try #require(try store.events().first)
        #expect(recorded.sessionId == "s-1")
        try store.deleteEvent(id: recorded.id)
        store = try HistoryStore.open(path: path).store
        // Restarted: the deleted session's id is not handed out again.
        let restarted = makeAppliance(microphone, store: store)
        #expect(restarted.state.withLock { $0.nextToken } == 2)
        restarted.buttonPressed()
        waitUntilIdle(restarted)
        #expect(try store.events().first?.sessionId == "s-2")
    }

    @Test func aSessionWhoseRecognitionWasDeletedNoLongerNamesIt() throws {
        let store = try HistoryStore.open(path: try temporaryStorePath()).store
        let appliance = makeAppliance(Microphone(samples: try matchingClip(2)), store: store)
        appliance.buttonPressed()
        waitUntilIdle(appliance)
        func sessionPairs() throws -> [(String, String)] {
            guard
                case let .reply(pairs) = try appliance.state.withLock({ (state: inout ApplianceState) throws(ProtocolError) in
                    try state.session("s-1")
                })
            else { throw TestFailure("no reply to `session s-1`") }
            return pairs
        }
        #expect(try sessionPairs().contains { $0 == ("event", "1") })
        _ = try appliance.state.withLock { (state: inout ApplianceState) throws(ProtocolError) in try state.delete("1") }
        let pairs = try sessionPairs()
        #expect(pairs.contains { $0 == ("state", "matched") })
        #expect(pairs.contains { $0 == ("saved", "deleted") })
        #expect(!pairs.contains { $0.0 == "event" })
        let last = try #require(appliance.state.withLock { $0.lastFinished })
        #expect(SessionReply.pairs(last, device: "scripted").contains { $0 == ("saved", "deleted") })
    }

    @Test func aMalformedSessionIdIsABadArgumentAndAnUnknownOneIsNotFound() throws {
        let appliance = makeAppliance(Microphone(samples: []), store: nil)
        func refusal(_ command: String, _ id: String) -> ProtocolError.Code? {
            appliance.state.withLock { (state: inout ApplianceState) -> ProtocolError.Code? in
                do {
                    _ = command == "session" ? try state.session(id) : try state.cancel(id)
                    return nil
                } catch let error as ProtocolError {
                    return error.code
                } catch {
                    return nil
                }
            }
        }
        for id in ["x", "s-", "s-0", "s-01", "s-+1", "s-1x", "S-1", "s-\u{661}", "s-99999999999999999999"] {
            #expect(refusal("session", id) == .badArguments, "session \(id)")
            #expect(refusal("cancel", id) == .badArguments, "cancel \(id)")
        }
        #expect(refusal("session", "s-7") == .notFound)
        #expect(refusal("cancel", "s-7") == .notFound)
    }

    @Test func aMatchRecordsTheCatalogItWasMatchedAgainstNotOneReloadedMeanwhile() throws {
        let store = try HistoryStore.open(path: try temporaryStorePath()).store
        // The microphone plays the clip slowly, so the reload lands while the session listens.
        let microphone = Microphone(samples: try matchingClip(2), pace: 15_000)
        let appliance = makeAppliance(microphone, store: store)
        // The other catalog is built before the session starts: indexing takes a while (much
        // longer under a sanitizer), and the reload must land while the session listens.
        let recording = try RecordingLoader.load(
            path: ApplianceSessionTests.root + "/catalog/" + Self.catalog.references[2].audio.sourceFile
        ).audio
        let other = try TestAudio.catalog([
            (id: Self.catalog.references[2].audio.id, audio: TestAudio.excerpt(recording, from: 0, count: 30 * 8000))
        ]).0
        #expect(other.manifest.hash != Self.catalog.manifest.hash)
        appliance.buttonPressed()
        appliance.replaceCatalog(CatalogSlot(path: "other", catalog: other, problem: nil))
        #expect(appliance.state.withLock { $0.engine.listeningToken } != nil, "the reload must land mid-session")
        waitUntilIdle(appliance)
        let event = try #require(try store.events().first)
        #expect(event.snapshot.catalogHash == Self.catalog.manifest.hash)
        #expect(event.snapshot.metadata.map(\.key) == Self.catalog.references[2].audio.metadata.map(\.key))
    }

    @Test func aFailedContentCheckRetiresTheCatalogItCheckedAndNoOther() throws {
        let appliance = makeAppliance(Microphone(samples: []), store: nil)
        let other = try TestAudio.catalog([(id: "other", audio: TestAudio.music(seed: 4, seconds: 10))]).0
        // The check of a catalog a reload has replaced since changes nothing.
        appliance.catalogContentFailed(other, .contentHashMismatch(path: "other"))
        #expect(appliance.state.withLock { $0.catalogSlot.catalog } === Self.catalog)
        appliance.catalogContentFailed(Self.catalog, .contentHashMismatch(path: "sample"))
        let pairs = appliance.state.withLock { $0.statusPairs() }
        #expect(pairs.contains { $0 == ("catalog", "unavailable") })
        let problem = pairs.first { $0.0 == "catalog_error" }?.1 ?? ""
        #expect(problem.contains("does not match its SHA-256") && problem.contains("soundtrace catalog build --out sample"), "\(problem)")
        let refused = appliance.state.withLock { $0.startSession(for: .button) }
        guard case let .failure(error) = refused else {
            Issue.record("listen was not refused")
            return
        }
        #expect(error.message.contains("does not match its SHA-256"), "\(error.message)")
    }

    @Test func aReloadWhoseContentFailsItsCheckPutsTheVerifiedCatalogBack() throws {
        let appliance = makeAppliance(Microphone(samples: []), store: nil)
        let reloaded = try TestAudio.catalog([(id: "reloaded", audio: TestAudio.music(seed: 4, seconds: 10))]).0
        let later = try TestAudio.catalog([(id: "later", audio: TestAudio.music(seed: 5, seconds: 10))]).0
        appliance.catalogContentVerified(Self.catalog)
        appliance.replaceCatalog(CatalogSlot(path: "sample", catalog: reloaded, problem: nil))
        #expect(appliance.state.withLock { $0.catalogFallback?.catalog } === Self.catalog)
        appliance.catalogContentFailed(reloaded, .contentHashMismatch(path: "sample"))
        // The kiosk keeps listening with what it had, and says why the new file is not served.
        #expect(appliance.state.withLock { $0.catalogSlot.catalog } === Self.catalog)
        let pairs = appliance.state.withLock { $0.statusPairs() }
        #expect(pairs.contains { $0 == ("catalog", "ok") })
        let warning = pairs.first { $0.0 == "catalog_warning" }?.1 ?? ""
        #expect(
            warning.contains("failed its content check, still serving the previous catalog") && warning.contains("SHA-256"), "\(warning)")
        #expect(appliance.state.withLock { $0.catalogFallback } == nil)
        // A reload whose content passes lets the one it replaced go; a failure after that has
        // nothing verified to go back to.
        appliance.replaceCatalog(CatalogSlot(path: "sample", catalog: later, problem: nil))
        appliance.catalogContentVerified(later)
        #expect(appliance.state.withLock { $0.catalogFallback } == nil)
        appliance.catalogContentFailed(later, .contentHashMismatch(path: "sample"))
        #expect(appliance.state.withLock { $0.catalogSlot.catalog } == nil)
    }

    /// A `listen` while the previous session's device is still closing (here 0.4 s) is not refused
    /// as busy and does not hold up other entry points: it runs once the device has closed, and the
    /// client's later lines wait behind it.
    @Test func aListenWhileTheDeviceClosesStartsOnceItHasClosed() throws {
        let source = SlowClosingMicrophone(closeDelay: 400_000)
        let channel = ApplianceProtocolTests.RecordingChannel()
        let appliance = makeAppliance(source, store: nil, channel: channel)
        let client = LineServer.Client(id: 7, isLoopback: true, peer: "127.0.0.1:50007")
        appliance.clientConnected(client)
        appliance.buttonPressed()
        appliance.buttonPressed()  // cancel: the device now takes 0.4 s to close
        appliance.clientLine(client, Array("listen".utf8))
        appliance.clientLine(client, Array("ping".utf8))
        // Meanwhile the appliance answers others: status does not wait for the device.
        #expect(appliance.state.withLock { $0.statusPairs() }.first! == ("state", "idle"))
        #expect(channel.locked { $0.sent[client.id, default: []] }.isEmpty)
        // The cancelled session's thread closes the device, then runs the deferred listen, which
        // starts a session with a capture thread of its own.
        let replies = channel.waitFor(client, count: 2)
        #expect(replies.first?.contains("state: listening") == true, "\(replies)")
        #expect(replies.last == "OK\n")
        #expect(source.opened == 2)
        appliance.shutdown()
    }

    /// Presses while the previous device closes start one session once it has closed; a press
    /// that finds a client's deferred listen already listening neither cancels it nor shows a failure.
    @Test func pressesWhileTheDeviceClosesStartOneSessionAndShowNoFailure() throws {
        let source = SlowClosingMicrophone(closeDelay: 200_000)
        let channel = ApplianceProtocolTests.RecordingChannel()
        let indicator = ApplianceSessionTests.RecordingIndicator()
        let appliance = makeAppliance(source, store: nil, channel: channel, indicator: indicator)
        let client = LineServer.Client(id: 7, isLoopback: true, peer: "127.0.0.1:50007")
        appliance.clientConnected(client)
        appliance.buttonPressed()
        appliance.buttonPressed()  // cancel: the device now takes 0.2 s to close
        appliance.clientLine(client, Array("listen".utf8))
        appliance.buttonPressed()
        appliance.buttonPressed()
        #expect(appliance.state.withLock { $0.deferredStarts } == [.client(client.id), .button])
        let replies = channel.waitFor(client, count: 1)
        #expect(replies.first?.contains("state: listening") == true, "\(replies)")
        #expect(source.opened == 2)
        appliance.shutdown()
        #expect(indicator.states == [.listening, .canceled, .listening, .canceled], "\(indicator.states)")
    }

    /// A session the daemon cancels as it stops is told apart from one a person canceled: a client
    /// waiting on it learns that soundtraced went away (`reason: shutdown`; the CLI exits 5).
    @Test func aSessionEndedByShutdownSaysSoNotCanceledByAPerson() throws {
        func lastMessage(_ appliance: Appliance) -> String? {
            appliance.state.withLock { $0.statusPairs() }.first { $0.0 == "last_message" }?.1
        }
        let byPerson = makeAppliance(SlowClosingMicrophone(closeDelay: 0), store: nil)
        byPerson.buttonPressed()
        byPerson.buttonPressed()
        #expect(lastMessage(byPerson) == "canceled before a result")
        byPerson.shutdown()
        #expect(lastMessage(byPerson) == "canceled before a result")

        let channel = ApplianceProtocolTests.RecordingChannel()
        let stopping = makeAppliance(SlowClosingMicrophone(closeDelay: 0), store: nil, channel: channel)
        let client = LineServer.Client(id: 7, isLoopback: true, peer: "127.0.0.1:50007")
        stopping.clientConnected(client)
        stopping.clientLine(client, Array("listen".utf8))
        let started = channel.waitFor(client, count: 1)
        let line = started.first?.split(separator: "\n").first { $0.hasPrefix("session: ") }
        let session = try #require(line.map { String($0.dropFirst("session: ".count)) }, "\(started)")
        stopping.shutdown()
        #expect(lastMessage(stopping) == "canceled: soundtraced is stopping")
        stopping.clientLine(client, Array("session \(session)".utf8))
        let replies = channel.waitFor(client, count: 2)
        #expect(replies.last?.contains("state: canceled\n") == true && replies.last?.contains("reason: shutdown\n") == true, "\(replies)")
    }

    @Test func aListenWaitingForTheDeviceToCloseIsRefusedOnceShutdownBegins() throws {
        let source = SlowClosingMicrophone(closeDelay: 400_000)
        let channel = ApplianceProtocolTests.RecordingChannel()
        let appliance = makeAppliance(source, store: nil, channel: channel)
        let client = LineServer.Client(id: 7, isLoopback: true, peer: "127.0.0.1:50007")
        appliance.clientConnected(client)
        appliance.buttonPressed()
        #expect(appliance.state.withLock { $0.engine.listeningToken } != nil)
        appliance.buttonPressed()  // cancel: the device now takes 0.4 s to close
        appliance.clientLine(client, Array("listen".utf8))
        #expect(appliance.state.withLock { $0.deferredStarts } == [.client(client.id)])
        // Returns once the device has closed; the listen ran as it closed, and was refused.
        appliance.shutdown()
        let replies = channel.locked { $0.sent[client.id, default: []] }
        #expect(replies.count == 1 && replies.first?.contains("shutting down") == true, "\(replies)")
        #expect(source.opened == 1)
        #expect(appliance.state.withLock { $0.engine.listeningToken } == nil)
    }

    /// A capture thread held in the device (a read or close that does not return) must not hold
    /// a stop until systemd kills the daemon: the stop ends the session and returns after its bound.
    @Test func aStopDoesNotWaitForeverForACaptureThreadHeldInTheDevice() throws {
        let source = SlowClosingMicrophone(closeDelay: 2_000_000)
        let appliance = makeAppliance(source, store: nil, longestCloseOnStop: 50)
        appliance.buttonPressed()
        #expect(appliance.state.withLock { $0.engine.listeningToken } != nil)
        appliance.shutdown()
        #expect(appliance.runningCaptures.count == 1, "the device is still closing, yet the stop returned")
        #expect(appliance.state.withLock { $0.lastFinished?.session.state } == .canceled)
        waitUntilIdle(appliance)
    }

    @Test func withoutAUsableCatalogFavoritesKeepWorkingForWhatTheHistoryRecognized() throws {
        let path = try temporaryStorePath()
        let store = try HistoryStore.open(path: path).store
        let healthy = makeAppliance(Microphone(samples: try matchingClip(2)), store: store)
        healthy.buttonPressed()
        waitUntilIdle(healthy)
        let heard = Self.catalog.references[2].audio.id
        #expect(try store.hasEvent(referenceId: heard))
        // Restarted with a broken catalog.
        let environment = Appliance.Environment(
            device: "scripted", settings: .standard, token: nil, makeSource: { _ in Microphone(samples: []) },
            clock: ManualClock(0), timersChanged: {})
        let broken = Appliance(
            environment: environment, channel: ApplianceSessionTests.NullChannel(), indicator: nil,
            catalog: CatalogSlot(path: "/broken.catalog", catalog: nil, problem: "corrupt"),
            store: try HistoryStore.open(path: path).store, storeProblem: nil)
        func run(_ handler: (inout ApplianceState) throws(ProtocolError) -> CommandOutcome) -> Result<CommandOutcome, ProtocolError> {
            broken.state.withLock { state in Result { () throws(ProtocolError) in try handler(&state) } }
        }
        func reply(_ outcome: Result<CommandOutcome, ProtocolError>) -> [(String, String)]? {
            if case let .success(.reply(pairs)) = outcome { return pairs }
            return nil
        }
        #expect(
            reply(run { state throws(ProtocolError) in try state.favorite(heard, on: true) })?.contains { $0 == ("changed", "yes") }
                == true)
        guard
            case let .failure(error) = run({ state throws(ProtocolError) in
                try state.favorite(Self.catalog.references[0].audio.id, on: true)
            })
        else {
            Issue.record("a reference neither in a catalog nor in the history was favorited")
            return
        }
        #expect("\(error)".contains("no usable catalog"))
        #expect(reply(run { state throws(ProtocolError) in try state.favorites() })?.filter { $0.0 == "reference" }.map(\.1) == [heard])
        #expect(
            reply(run { state throws(ProtocolError) in try state.favorite(heard, on: false) })?.contains { $0 == ("changed", "yes") }
                == true)
    }

    /// Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN): a full card is only
    /// honest on a real, small file system.
    static let canMount: Bool = {
        let directory = NSTemporaryDirectory() + "mount-probe-\(UUID().uuidString)"
        guard (try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)) != nil else { return false }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        guard mount("tmpfs", directory, "tmpfs", 0, "size=4k") == 0 else { return false }
        return umount2(directory, 0) == 0
    }()

    @Test(.enabled(if: canMount, "needs root with CAP_SYS_ADMIN to mount a small tmpfs"))
    func aMatchThatCannotBeSavedSaysSoEverywhere() throws {
        let mountPoint = NSTemporaryDirectory() + "full-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        guard mount("tmpfs", mountPoint, "tmpfs", 0, "size=512k,mode=0755") == 0 else { throw TestFailure("mount tmpfs") }
        defer {
            _ = umount2(mountPoint, Int32(MNT_DETACH))
            try? FileManager.default.removeItem(atPath: mountPoint)
        }
        let store = try HistoryStore.open(path: mountPoint + "/history.db").store
        // Ballast takes the rest of the card, as recordings or logs would.
        _ = FileManager.default.createFile(atPath: mountPoint + "/ballast", contents: nil)
        let ballast = try #require(FileHandle(forWritingAtPath: mountPoint + "/ballast"))
        while (try? ballast.write(contentsOf: Data(count: 4096))) != nil {}
        try ballast.close()

        let indicator = ApplianceSessionTests.RecordingIndicator()
        let microphone = Microphone(samples: try matchingClip(2))
        let environment = Appliance.Environment(
            device: "scripted", settings: .standard, token: nil, makeSource: { _ in microphone },
            clock: RealTimeFixedWall(), timersChanged: {})
        let appliance = Appliance(
            environment: environment, channel: ApplianceSessionTests.NullChannel(), indicator: indicator,
            catalog: CatalogSlot(path: "sample", catalog: Self.catalog, problem: nil), store: store, storeProblem: nil)
        appliance.buttonPressed()
        waitUntilIdle(appliance)
        // The room still sees the match ...
        #expect(indicator.states == [.listening, .match])
        // ... and the session and `status` say it was not saved, and why.
        let record = try #require(appliance.state.withLock { $0.lastFinished })
        let pairs = SessionReply.pairs(record, device: "scripted")
        #expect(pairs.contains { $0 == ("state", "matched") })
        #expect(pairs.contains { $0 == ("saved", "no") })
        #expect(!pairs.contains { $0.0 == "event" })
        let reason = try #require(pairs.first { $0.0 == "save_error" }?.1)
        #expect(reason.contains("full") || reason.contains("space"), "\(reason)")
        let status = appliance.state.withLock { $0.statusPairs() }
        #expect(status.contains { $0.0 == "history_error" && $0.1.contains("was not saved") })
        #expect(try store.eventCount() == 0)
    }
}
