import Foundation
import Glibc

/// The ALSA configuration every test in this target uses: a private directory with raw S16_LE
/// "microphone" recordings and one config file that includes the system's `alsa.conf` and then
/// defines the test PCMs. `ALSA_CONFIG_PATH` points ALSA at it.
///
/// ALSA reads (and caches) its configuration on the first open in a process, so the variable is set
/// in this value's initializer, which every test touches before it calls ALSA. (ALSA also re-reads
/// the configuration when the variable's file list changes, but nothing here relies on that.)
/// The directory is world-readable on purpose: the permission test reads the configuration from a
/// thread whose file-system user is `nobody`.
final class TestALSAConfiguration: Sendable {
    static let shared = TestALSAConfiguration()

    /// Frames in each raw recording; reads stay below it because ALSA's `file` plugin repeats stale
    /// data after the end of the file instead of reporting it.
    static let recordingFrames = 40_000

    /// A mono pattern in which neighbouring samples differ, so a dropped, repeated or reordered
    /// sample cannot go unnoticed; wraps through the whole Int16 range.
    static func monoSample(_ index: Int) -> Int16 {
        Int16(truncatingIfNeeded: index &* 7919 &+ 11)
    }

    /// The two channels of the stereo recording: different signals, so a mixdown that took only one
    /// channel (or swapped them into one) fails.
    static func stereoSample(_ index: Int) -> (left: Int16, right: Int16) {
        (Int16(truncatingIfNeeded: index &* 331 &- 5000), Int16(truncatingIfNeeded: 20_000 &- index &* 17))
    }

    /// The mono samples the source must deliver for the stereo recording: sum / 2, toward zero.
    static func stereoMixdown(_ index: Int) -> Int16 {
        let (left, right) = stereoSample(index)
        return Int16((Int32(left) + Int32(right)) / 2)
    }

    let directory: String

    /// PCM names defined by the configuration.
    enum PCM {
        /// `file` plugin over `null`: mono pattern, any format/rate/channels accepted.
        static let mono = "st_mono"
        /// `file` plugin over a two-channel `multi` of `null`: refuses mono.
        static let stereo = "st_stereo"
        /// `file` plugin over `lfloat`: offers only float formats.
        static let floatOnly = "st_float"
        /// `file` plugin whose recording is readable by root only.
        static let rootOnly = "st_root_only"
        /// `plug` over the stereo recording with the "hardware" fixed at 48 kHz stereo, as most
        /// USB microphones are: plug would convert any rate, with alsa-lib's converter.
        static let plug48 = "st_plug48"
        /// The same with the "hardware" at 96 kHz, outside the rates the engine takes.
        static let plug96 = "st_plug96"
        /// `pulse` plugin reading the monitor of sink `vmic` on test server `name`.
        static func pulse(_ name: String) -> String { "st_pulse_\(name)" }
    }

    /// Names of the private PulseAudio servers the configuration knows; see `TestPulseServer`.
    static let pulseServers = ["play", "unplug", "wake"]

    private init() {
        var template = Array("/tmp/soundtrace-alsa-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else {
            fatalError("cannot create a temporary directory: \(String(cString: strerror(errno)))")
        }
        directory = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        chmod(directory, 0o755)

        let frames = 0..<Self.recordingFrames
        Self.writeRaw(frames.map(Self.monoSample), to: "\(directory)/mono.raw", mode: 0o644)
        Self.writeRaw(
            frames.flatMap { [Self.stereoSample($0).left, Self.stereoSample($0).right] },
            to: "\(directory)/stereo.raw", mode: 0o644)
        // Mode 000: only a process that bypasses file permissions (root) can read it.
        Self.writeRaw(frames.map(Self.monoSample), to: "\(directory)/root-only.raw", mode: 0o000)

        // `hint.show on` makes the test PCMs appear in ALSA's device list, as a real card's do.
        func filePCM(_ name: String, slave: String, recording: String) -> String {
            """
            pcm.\(name) {
                type file
                slave.pcm \(slave)
                file "/dev/null"
                infile "\(directory)/\(recording)"
                format "raw"
                hint { show on description "Soundtrace test microphone" }
            }

            """
        }
        var config = "</usr/share/alsa/alsa.conf>\n\n"
        config += """
            pcm.st_two_null {
                type multi
                slaves.a.pcm "null"
                slaves.a.channels 2
                bindings.0 { slave a; channel 0 }
                bindings.1 { slave a; channel 1 }
            }
            pcm.st_missing_plugin {
                type soundtrace_no_such_plugin
            }
            pcm.st_float_null {
                type lfloat
                slave { pcm "null"; format S16_LE }
            }

            """
        config += filePCM(PCM.mono, slave: "\"null\"", recording: "mono.raw")
        config += filePCM(PCM.stereo, slave: "\"st_two_null\"", recording: "stereo.raw")
        config += filePCM(PCM.floatOnly, slave: "\"st_float_null\"", recording: "mono.raw")
        config += filePCM(PCM.rootOnly, slave: "\"null\"", recording: "root-only.raw")
        config += filePCM("st_stereo_hardware", slave: "\"st_two_null\"", recording: "stereo.raw")
        for (name, rate) in [(PCM.plug48, 48_000), (PCM.plug96, 96_000)] {
            config +=
                "pcm.\(name) {\n    type plug\n    slave { pcm \"st_stereo_hardware\"; rate \(rate); channels 2; format S16_LE }\n}\n\n"
        }
        for server in Self.pulseServers {
            config += """
                pcm.\(PCM.pulse(server)) {
                    type pulse
                    server "unix:\(pulseRuntimeDirectory(server))/pulse/native"
                    device "vmic.monitor"
                }

                """
        }
        let configPath = "\(directory)/asound.conf"
        _ = FileManager.default.createFile(
            atPath: configPath, contents: Data(config.utf8),
            attributes: [.posixPermissions: 0o644])
        setenv("ALSA_CONFIG_PATH", configPath, 1)
        atexit { TestALSAConfiguration.removeDirectory() }
    }

    /// Where test server `name` keeps its socket (`<dir>/pulse/native`) and state.
    func pulseRuntimeDirectory(_ name: String) -> String {
        "\(directory)/pulse-\(name)"
    }

    private static func removeDirectory() {
        try? FileManager.default.removeItem(atPath: shared.directory)
    }

    private static func writeRaw(_ samples: [Int16], to path: String, mode: Int) {
        let data = samples.map(\.littleEndian).withUnsafeBytes { Data($0) }
        _ = FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: mode])
    }
}
