import Foundation
import Glibc
import SoundtraceFingerprint
import SoundtraceTestSupport

/// The simulated microphones of the acceptance tests: raw recordings behind ALSA `file` PCMs
/// (exact, not paced), and one PulseAudio null sink (real time, real playback), all in one
/// private ALSA configuration that the `soundtrace` child processes get through ALSA_CONFIG_PATH.
final class Microphones: @unchecked Sendable {
    // @unchecked: built once in `shared` and only read afterwards.
    static let shared: Microphones = {
        do { return try Microphones() } catch { fatalError("cannot set up simulated microphones: \(error)") }
    }()

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .path
    static let catalogPath = root + "/catalog/soundtrace.catalog"
    static let rate = 8000

    let directory: String
    let configPath: String
    let catalog: Catalog
    /// Where each file PCM's recording starts in its reference (seconds), for the tests' expectations.
    private(set) var starts: [String: Double] = [:]
    private var definitions = "</usr/share/alsa/alsa.conf>\n\n"
    let pulse: TestPulseServer
    let pulsePCM = "st_acc_pulse"
    /// A second server for the daemon's tests, which run alongside the live-session suite.
    let daemonPulse: TestPulseServer
    let daemonPulsePCM = "st_daemon_pulse"

    private init() throws {
        directory = NSTemporaryDirectory() + "soundtrace-acceptance-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, 0o755)
        configPath = directory + "/asound.conf"
        catalog = try CatalogFile.load(path: Self.catalogPath)
        pulse = TestPulseServer("acceptance", directory: directory + "/pulse-acceptance")
        daemonPulse = TestPulseServer("daemon", directory: directory + "/pulse-daemon")

        // Two catalog recordings "from another device": excerpts through the speaker→room→mic chain.
        for (index, name) in [(1, "st_acc_ref_a"), (4, "st_acc_ref_b")] {
            let audio = try recording(index)
            let start = 30 * Self.rate + 37
            let clip = TestAudio.micChain(TestAudio.excerpt(audio, from: start, count: 12 * Self.rate), seed: UInt64(index))
            try addFilePCM(name, samples: clip.samples)
            starts[name] = Double(start) / Double(Self.rate)
        }
        try addFilePCM("st_acc_silence", samples: [Int16](repeating: 0, count: 14 * Self.rate))
        try addFilePCM("st_acc_noise", samples: TestAudio.pinkNoise(seed: 9, count: 14 * Self.rate, rms: 3000).samples)
        let outside = try RecordingLoader.load(path: Self.root + "/catalog/outside/salt-meadow-mallets.wav").audio
        try addFilePCM(
            "st_acc_outside",
            samples: TestAudio.micChain(TestAudio.excerpt(outside, from: 5 * Self.rate, count: 14 * Self.rate), seed: 3).samples)
        try addFilePCM("st_acc_root_only", samples: [Int16](repeating: 0, count: 14 * Self.rate), mode: 0o600)
        // One microphone whose recording a test can swap between sessions (the file plugin opens
        // its input file when the device is opened, i.e. at every session start).
        definePCM("st_acc_switch", input: "\(directory)/switch.raw")
        // A microphone whose open blocks, as a sound server that never answers does: the file
        // plugin opens its input when the device is opened, and a FIFO's open waits for a writer.
        try addFIFOPCM(Self.hangingPCM, fifo: hangingFIFO)
        // The same for the CLI's and the hardware check's tests, on a FIFO of its own that nobody
        // ever writes: the daemon's test lets its FIFO's open return, which must not end these.
        try addFIFOPCM(Self.unansweredPCM, fifo: directory + "/unanswered.fifo")
        try plug("st_acc_silence")
        definitions += pulse.alsaDefinition(pcm: pulsePCM)
        definitions += daemonPulse.alsaDefinition(pcm: daemonPulsePCM)
        try Data(definitions.utf8).write(to: URL(fileURLWithPath: configPath))
        chmod(configPath, 0o644)
        atexit { try? FileManager.default.removeItem(atPath: Microphones.shared.directory) }
    }

    /// The file PCM whose input is the FIFO `hangingFIFO`: its open returns only once the FIFO has a writer.
    static let hangingPCM = "st_acc_hanging"
    var hangingFIFO: String { directory + "/mic.fifo" }
    /// A file PCM whose open never returns: its FIFO input never gets a writer.
    static let unansweredPCM = "st_acc_unanswered"

    /// Waits until a thread of process `pid` is inside a FIFO's open (the kernel's
    /// `wait_for_partner`); false when none was within `seconds`.
    static func waitUntilInsideFIFOOpen(pid: pid_t, seconds: Int) -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            for task in tasks {
                let wchan = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/wchan", encoding: .utf8)) ?? ""
                if wchan == "wait_for_partner" { return true }
            }
            usleep(20_000)
        }
        return false
    }

    /// Makes `st_acc_switch` play the recording of the file PCM `name` from its next session on.
    /// One device for the whole process, so only one serialized suite may plug it
    /// (DaemonAcceptanceTests): suites run in parallel, and another suite's plug between this
    /// suite's plug and its session would swap the recording under it (a multi-call test once
    /// heard another recording that way under ThreadSanitizer). Other suites name a fixed PCM.
    func plug(_ name: String) throws {
        let link = directory + "/switch.raw"
        unlink(link)
        guard symlink("\(directory)/\(name).raw", link) == 0 else { throw TestFailure("cannot link \(link)") }
    }

    func recording(_ index: Int) throws -> PCMAudio {
        try RecordingLoader.load(path: Self.root + "/catalog/" + catalog.references[index].audio.sourceFile).audio
    }

    private func addFilePCM(_ name: String, samples: [Int16], mode: mode_t = 0o644) throws {
        // The file plugin repeats stale data past the end: one extra second of silence keeps a
        // session that reads a little beyond the recording honest.
        let path = "\(directory)/\(name).raw"
        try Data(TestAudio.rawBytes(samples + [Int16](repeating: 0, count: Self.rate))).write(to: URL(fileURLWithPath: path))
        chmod(path, mode)
        definePCM(name, input: path)
    }

    private func addFIFOPCM(_ name: String, fifo: String) throws {
        guard mkfifo(fifo, 0o644) == 0 else { throw TestFailure("cannot make \(fifo)") }
        definePCM(name, input: fifo)
    }

    /// A capture PCM that reads `input` (raw 16-bit samples) when it is opened.
    private func definePCM(_ name: String, input: String) {
        definitions += """
            pcm.\(name) {
                type file
                slave.pcm "null"
                file "/dev/null"
                infile "\(input)"
                format "raw"
            }

            """
    }

    /// The environment for `soundtrace` children: this ALSA configuration.
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["ALSA_CONFIG_PATH"] = configPath
        return environment
    }

    /// The `soundtrace` built with these tests (see `BuiltProducts`); the daemon is next to it.
    static var binary: String { BuiltProducts.path("soundtrace", packageRoot: root) }
}

/// One run of `soundtrace match --device … --json`, started and waited for.
struct LiveRun {
    let status: Int32
    let output: [String: Any]
    let stderr: String
    let seconds: Double

    /// Starts the session and returns the running child and where its output goes.
    static func start(
        device: String, window: Int = 10, binary: String = Microphones.binary,
        catalog: String = Microphones.catalogPath, prefix: [String] = []
    ) throws -> (ChildProcess, String, String) {
        let mics = Microphones.shared
        let out = "\(mics.directory)/out-\(UUID().uuidString).json"
        let err = out + ".err"
        let command =
            prefix + [
                binary, "match", "--device", device, "--seconds", String(window),
                "--catalog", catalog, "--json"
            ]
        let child = try ChildProcess(
            path: command[0], arguments: Array(command.dropFirst()),
            environment: mics.environment, stdout: out, stderr: err)
        return (child, out, err)
    }

    static func finish(_ child: ChildProcess, out: String, err: String, started: ContinuousClock.Instant) throws -> LiveRun {
        let status = child.waitForExit()
        let elapsed = ContinuousClock.now - started
        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        let errText = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw TestFailure("no JSON from soundtrace (status \(status)): \(text) \(errText)")
        }
        return LiveRun(
            status: status, output: object, stderr: errText,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// Runs a session to its end.
    static func run(
        device: String, window: Int = 10, binary: String = Microphones.binary,
        catalog: String = Microphones.catalogPath, prefix: [String] = []
    ) throws -> LiveRun {
        let started = ContinuousClock.now
        let (child, out, err) = try start(device: device, window: window, binary: binary, catalog: catalog, prefix: prefix)
        return try finish(child, out: out, err: err, started: started)
    }

    var outcome: String? { output["outcome"] as? String }
    var referenceId: String? { output["referenceId"] as? String }
    var offset: Double? { output["offsetSeconds"] as? Double }
    var heard: Double? { output["heardSeconds"] as? Double }
}
