import Foundation
import Glibc
import SoundtraceFingerprint
import SoundtraceTestSupport
import Testing

/// The listening journey end to end: the real `soundtrace match --device` binary against
/// simulated microphones. Exact-sample tests use ALSA's file plugin; real-time playback, cancel
/// and unplugging use a private PulseAudio server.
@Suite(.serialized) struct LiveSessionAcceptanceTests {
    let mics = Microphones.shared

    @Test(arguments: [("st_acc_ref_a", 1), ("st_acc_ref_b", 4)])
    func recordingsFromAnotherDeviceAreRecognizedEarlyAtTheRightOffset(device: String, reference: Int) throws {
        let run = try LiveRun.run(device: device)
        #expect(run.status == 0, "\(run.output) \(run.stderr)")
        #expect(run.outcome == "match")
        #expect(run.referenceId == mics.catalog.references[reference].audio.id)
        let expected = try #require(mics.starts[device])
        #expect(abs((run.offset ?? -100) - expected) <= 1.0, "offset \(String(describing: run.offset)) vs \(expected)")
        // Early decision: far less than the 10 s window was heard.
        #expect((run.heard ?? 99) < 5.0, "heard \(String(describing: run.heard))")
    }

    @Test(arguments: [("st_acc_silence", "silence"), ("st_acc_noise", "notInCatalog"), ("st_acc_outside", "notInCatalog")])
    func silenceNoiseAndUnrelatedMusicAreAnHonestNoMatch(device: String, reason: String) throws {
        let run = try LiveRun.run(device: device, window: 10)
        #expect(run.status == 0)
        #expect(run.outcome == "noMatch", "\(run.output)")
        #expect(run.output["reason"] as? String == reason)
        #expect(run.referenceId == nil)
        #expect(abs((run.heard ?? 0) - 10) < 0.1)
    }

    @Test func aMissingDeviceFailsWithTheDevicesThatExistAndTheNextSessionWorks() throws {
        let missing = try LiveRun.run(device: "st_acc_no_such_mic")
        #expect(missing.status == 4)
        #expect(missing.outcome == "failed")
        #expect(missing.output["errorCode"] as? String == "deviceNotFound")
        let message = missing.output["error"] as? String ?? ""
        #expect(message.contains("st_acc_no_such_mic") && message.contains("capture devices here"))
        let next = try LiveRun.run(device: "st_acc_ref_a")
        #expect(next.outcome == "match")
    }

    @Test func aDeniedDeviceSaysWhichGroupToJoin() throws {
        // The recording is readable by root only; the session runs as `nobody`.
        guard let setpriv = TestPulseServer.executable("setpriv") else {
            Issue.record("setpriv (util-linux) is needed to drop privileges")
            return
        }
        // Copies of the binary and catalog in the world-readable test folder: the checkout may live
        // where nobody cannot go (e.g. under /root on a CI machine).
        let binary = mics.directory + "/soundtrace-as-nobody"
        let catalog = mics.directory + "/soundtrace.catalog"
        try BuiltProducts.placeExecutable(Microphones.binary, at: binary)
        try? FileManager.default.removeItem(atPath: catalog)
        try FileManager.default.copyItem(atPath: Microphones.catalogPath, toPath: catalog)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: catalog)
        let run = try LiveRun.run(
            device: "st_acc_root_only", binary: binary, catalog: catalog,
            prefix: [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"])
        #expect(run.status == 4, "\(run.output) \(run.stderr)")
        #expect(run.output["errorCode"] as? String == "permissionDenied")
        #expect((run.output["error"] as? String ?? "").contains("'audio' group"))
    }

    /// An ALSA plugin whose open never returns (here the file plugin on a FIFO nobody writes):
    /// the session fails at the open's bound and says why, Ctrl-C inside the open cancels it at
    /// once, and `explain --device` fails the same way without writing a picture.
    @Test func aDeviceWhoseOpenDoesNotReturnFailsWithinTheBoundAndCtrlCEndsTheWaitAtOnce() throws {
        let bounded = try LiveRun.run(device: Microphones.unansweredPCM)
        #expect(bounded.status == 4, "\(bounded.output) \(bounded.stderr)")
        #expect(bounded.outcome == "failed")
        #expect(bounded.output["errorCode"] as? String == "deviceNotAnswering")
        #expect((bounded.output["error"] as? String ?? "").contains("has not finished opening after 5.0 s"), "\(bounded.output)")
        #expect(bounded.seconds >= 5 && bounded.seconds < 15, "took \(bounded.seconds) s")

        let started = ContinuousClock.now
        let (child, out, err) = try LiveRun.start(device: Microphones.unansweredPCM, window: 30)
        #expect(Microphones.waitUntilInsideFIFOOpen(pid: child.pid, seconds: 20), "the session never reached the device's open")
        let signalled = ContinuousClock.now
        child.send(SIGINT)
        let canceled = try LiveRun.finish(child, out: out, err: err, started: started)
        #expect(canceled.status == 130, "\(canceled.output) \(canceled.stderr)")
        #expect(canceled.outcome == "canceled")
        #expect(ContinuousClock.now - signalled < .seconds(3))

        let picture = mics.directory + "/unanswered.svg"
        let explain = try ChildProcess(
            path: Microphones.binary,
            arguments: ["explain", "--device", Microphones.unansweredPCM, "--catalog", Microphones.catalogPath, "--svg", picture],
            environment: mics.environment, stdout: picture + ".out", stderr: picture + ".err")
        #expect(explain.waitForExit() == 4)
        let said = ["out", "err"].map { (try? String(contentsOfFile: picture + "." + $0, encoding: .utf8)) ?? "" }.joined()
        #expect(said.contains("has not finished opening"), "\(said)")
        #expect(!FileManager.default.fileExists(atPath: picture))

        // Ctrl-C inside `explain --device`'s open: canceled, nothing heard, so nothing drawn.
        let interrupted = try ChildProcess(
            path: Microphones.binary,
            arguments: [
                "explain", "--device", Microphones.unansweredPCM, "--seconds", "30", "--catalog", Microphones.catalogPath, "--svg", picture
            ],
            environment: mics.environment, stdout: picture + ".out", stderr: picture + ".err")
        #expect(Microphones.waitUntilInsideFIFOOpen(pid: interrupted.pid, seconds: 20), "explain never reached the device's open")
        let interruptedAt = ContinuousClock.now
        interrupted.send(SIGINT)
        #expect(interrupted.waitForExit() == 130)
        #expect(ContinuousClock.now - interruptedAt < .seconds(3))
        #expect((try? String(contentsOfFile: picture + ".out", encoding: .utf8))?.contains("canceled") == true)
        #expect(!FileManager.default.fileExists(atPath: picture))
    }

    // MARK: Real time, through PulseAudio

    /// The private PulseAudio server, started; nil, with the reason recorded, when this machine cannot run one.
    private func startedPulse() throws -> TestPulseServer? {
        if let missing = TestPulseServer.missingRequirements() {
            Issue.record(Comment(rawValue: missing))
            return nil
        }
        try mics.pulse.start()
        return mics.pulse
    }

    /// Waits (bounded) until the session's capture stream is connected to the server.
    private func waitForCapture(_ server: TestPulseServer) throws {
        let listing = mics.directory + "/source-outputs.txt"
        for _ in 0..<200 {
            let child = try ChildProcess(
                path: try TestPulseServer.executable("pactl").orThrow("pactl missing"),
                arguments: ["list", "short", "source-outputs"], environment: server.environment,
                stdout: listing)
            child.waitForExit()
            if let text = try? String(contentsOfFile: listing, encoding: .utf8),
                !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
            {
                return
            }
            usleep(50_000)  // poll the server's stream list for the condition itself, at most 10 s
        }
        throw TestFailure("the session's capture stream never appeared on the test PulseAudio server")
    }

    private func playbackFile(reference: Int, from seconds: Int, length: Int, lead: Int) throws -> String {
        let audio = try mics.recording(reference)
        let upsampled = Resampler.convert(TestAudio.excerpt(audio, from: seconds * 8000, count: length * 8000), to: 16000)
        let degraded = TestAudio.micChain(upsampled, seed: UInt64(reference + 40))
        let clip = PCMAudio(sampleRate: 16000, samples: [Int16](repeating: 0, count: lead * 16000) + degraded.samples)
        let path = mics.directory + "/play-\(reference)-\(seconds).wav"
        try Data(TestAudio.wavFile(clip)).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Starts a 15 s session on the PulseAudio microphone, plays 9 s of `reference` from `from`
    /// seconds (after 1 s of silence) through the speaker→room→mic chain once capture runs, and
    /// returns the session's result.
    private func listenWhilePlaying(_ server: TestPulseServer, reference: Int, from: Int) throws -> LiveRun {
        let file = try playbackFile(reference: reference, from: from, length: 9, lead: 1)
        let started = ContinuousClock.now
        let (child, out, err) = try LiveRun.start(device: mics.pulsePCM, window: 15)
        try waitForCapture(server)
        let player = try server.client("paplay", ["--device=vmic", "--latency-msec=100", file])
        let run = try LiveRun.finish(child, out: out, err: err, started: started)
        player.send(SIGTERM)
        player.waitForExit()
        return run
    }

    @Test func playbackInRealTimeIsRecognizedAndTheDeviceIsReleased() throws {
        guard let server = try startedPulse() else { return }
        defer { server.stop() }
        let run = try listenWhilePlaying(server, reference: 2, from: 40)
        #expect(run.outcome == "match", "\(run.output) \(run.stderr)")
        #expect(run.referenceId == mics.catalog.references[2].audio.id)
        // The session heard some silence before playback began, so it started earlier in the
        // reference than 40 s, by the lead plus however long capture ran before playback.
        let offset = run.offset ?? -100
        #expect(offset > 40 - 1 - 4 && offset < 40 - 1 + 1, "offset \(offset)")
        // Decided early, before the 15 s window was full.
        #expect((run.heard ?? 99) < 14, "heard \(String(describing: run.heard)) s in \(run.seconds) s")
        // The device is closed: no capture stream remains on the server.
        let listing = mics.directory + "/after.txt"
        try ChildProcess(
            path: try TestPulseServer.executable("pactl").orThrow("pactl missing"),
            arguments: ["list", "short", "source-outputs"], environment: server.environment,
            stdout: listing
        ).waitForExit()
        #expect((try String(contentsOfFile: listing, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
    }

    @Test func ctrlCCancelsWithTheDeviceClosedAndNoResult() throws {
        guard let server = try startedPulse() else { return }
        defer { server.stop() }
        let started = ContinuousClock.now
        let (child, out, err) = try LiveRun.start(device: mics.pulsePCM, window: 30)
        try waitForCapture(server)
        let signalled = ContinuousClock.now
        child.send(SIGINT)
        let run = try LiveRun.finish(child, out: out, err: err, started: started)
        #expect(run.status == 130)
        #expect(run.outcome == "canceled")
        #expect(run.referenceId == nil)
        #expect(ContinuousClock.now - signalled < .seconds(3))
        // The device was closed: the server has no capture stream left.
        let listing = mics.directory + "/after-cancel.txt"
        try ChildProcess(
            path: try TestPulseServer.executable("pactl").orThrow("pactl missing"),
            arguments: ["list", "short", "source-outputs"], environment: server.environment,
            stdout: listing
        ).waitForExit()
        #expect((try String(contentsOfFile: listing, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
    }

    /// `explain --device` ended by Ctrl-C while it listens draws what it heard until then and exits 130.
    @Test func ctrlCDuringALiveExplainDrawsWhatWasHeardUntilThen() throws {
        guard let server = try startedPulse() else { return }
        defer { server.stop() }
        let picture = mics.directory + "/explain-canceled.svg"
        let child = try ChildProcess(
            path: Microphones.binary,
            arguments: ["explain", "--device", mics.pulsePCM, "--seconds", "30", "--catalog", Microphones.catalogPath, "--svg", picture],
            environment: mics.environment, stdout: picture + ".out", stderr: picture + ".err")
        try waitForCapture(server)
        usleep(1_000_000)
        let signalled = ContinuousClock.now
        child.send(SIGINT)
        let status = child.waitForExit()
        let said = (try? String(contentsOfFile: picture + ".err", encoding: .utf8)) ?? ""
        #expect(status == 130, "\(said)")
        #expect(ContinuousClock.now - signalled < .seconds(5))
        #expect(said.contains("canceled; showing what was heard until then"), "\(said)")
        let svg = (try? String(contentsOfFile: picture, encoding: .utf8)) ?? ""
        #expect(svg.hasPrefix("<?xml") || svg.hasPrefix("<svg"), "no picture was drawn")
        #expect(svg.contains("live capture on \(mics.pulsePCM)"))
    }

    @Test func unpluggingMidSessionFailsAndTheNextSessionWorksOnceTheDeviceIsBack() throws {
        guard let server = try startedPulse() else { return }
        let started = ContinuousClock.now
        let (child, out, err) = try LiveRun.start(device: mics.pulsePCM, window: 30)
        try waitForCapture(server)
        server.kill()
        let run = try LiveRun.finish(child, out: out, err: err, started: started)
        #expect(run.status == 4, "\(run.output)")
        #expect(run.output["errorCode"] as? String == "deviceDisconnected", "\(run.output)")
        // The device comes back: the next session listens and recognizes.
        try server.start()
        defer { server.stop() }
        let second = try listenWhilePlaying(server, reference: 5, from: 20)
        #expect(second.outcome == "match", "\(second.output)")
        #expect(second.referenceId == mics.catalog.references[5].audio.id)
    }
}
