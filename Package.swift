// swift-tools-version:6.0
import PackageDescription

// Dependency direction (see docs and CONVENTIONS): SoundtraceFingerprint depends on its C libraries and the leaf SoundtraceClock only;
// SoundtraceTools (the CLI's commands) wires the engine to files and terminals; executables stay thin.
let package = Package(
    name: "Soundtrace",
    products: [
        .executable(name: "soundtrace", targets: ["soundtrace"]),
        .executable(name: "soundtraced", targets: ["soundtraced"])
    ],
    targets: [
        // KissFFT's fixed-point build, compiled from Debian's source package fetched at set-up time
        // (scripts/fetch-kissfft.sh puts it in Sources/CKissFFT/vendor, which is never committed).
        .target(
            name: "CKissFFT",
            path: "Sources/CKissFFT",
            exclude: ["vendor"],
            sources: ["kissfft_fixed.c"],
            publicHeadersPath: "include"
        ),
        // libmd (Debian's libmd-dev): SHA-256 for catalogs and recordings.
        .systemLibrary(
            name: "CLibmd",
            path: "Sources/CLibmd",
            pkgConfig: "libmd",
            providers: [.apt(["libmd-dev"])]
        ),
        // The SIGBUS guard of mapped catalogs: a read past the end of a file truncated in place
        // reads zeros and is recorded, instead of killing the process (include/mapping_guard.h).
        .target(
            name: "CMappingGuard",
            path: "Sources/CMappingGuard",
            sources: ["mapping_guard.c"],
            publicHeadersPath: "include"
        ),
        .target(
            name: "SoundtraceFingerprint",
            dependencies: ["CKissFFT", "CLibmd", "CMappingGuard", "SoundtraceClock"]
        ),
        // The line protocol's one codec, for the daemon and the CLI alike: the request grammar, the
        // command table, replies and errors, the client's request builder and reply parser, and the
        // one control-character rule. No I/O, no dependencies.
        .target(name: "SoundtraceProtocol"),
        // Sessions, states, decisions and texts: no I/O, no C, no dependencies.
        .target(name: "SoundtraceCore"),
        // The one reading of the system's clocks and the one writer of UTC times, for every module.
        .target(name: "SoundtraceClock"),
        .systemLibrary(
            name: "CALSA",
            path: "Sources/CALSA",
            pkgConfig: "alsa",
            providers: [.apt(["libasound2-dev"])]
        ),
        // libgpiod as installed: 1.6 from Debian 12's libgpiod-dev, or 2.x (Debian 13, or the static
        // build of scripts/build-libgpiod2.sh found through PKG_CONFIG_PATH). Compile and link flags
        // come from pkg-config only (see its shim.h).
        .systemLibrary(
            name: "CLibgpiod",
            path: "Sources/CLibgpiod",
            pkgConfig: "libgpiod",
            providers: [.apt(["libgpiod-dev"])]
        ),
        // The few GPIO calls the daemon makes, one C implementation per libgpiod major, chosen at
        // compile time from the installed <gpiod.h>; Swift sees only the shim's own header.
        .target(
            name: "CGPIOD",
            dependencies: ["CLibgpiod"],
            path: "Sources/CGPIOD"
        ),
        // libmosquitto's header (Debian's libmosquitto-dev), not its library: CMosquitto loads
        // libmosquitto.so.1 for a TLS link only, because linking it would bring OpenSSL into
        // every process (its header says how much). No pkgConfig: it would add -lmosquitto.
        .systemLibrary(
            name: "CLibmosquitto",
            path: "Sources/CLibmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        // The MQTT client library itself, without TLS: Debian's mosquitto sources, fetched at set-up
        // time (scripts/fetch-mosquitto.sh puts them in Sources/CMosquittoBuiltin/vendor, which is
        // never committed) and compiled in, for brokers reached over plain TCP; CMosquitto's loader
        // calls it through <mosquitto.h>'s declarations. Hidden, so that Debian's libmosquitto1,
        // loaded for TLS, never binds to this copy's functions; its own warnings are not ours to fix.
        .target(
            name: "CMosquittoBuiltin",
            path: "Sources/CMosquittoBuiltin",
            exclude: [
                "vendor/include", "vendor/deps", "vendor/config.h", "vendor/LICENSE.txt", "vendor/edl-v10", "vendor/epl-v20",
                "vendor/SOURCE"
            ],
            sources: ["vendor/lib"],
            publicHeadersPath: "include",
            cSettings: [
                .headerSearchPath("vendor"), .headerSearchPath("vendor/include"), .headerSearchPath("vendor/lib"),
                .headerSearchPath("vendor/deps"), .unsafeFlags(["-fvisibility=hidden", "-w"])
            ]
        ),
        .target(
            name: "CMosquitto",
            dependencies: ["CLibmosquitto", "CMosquittoBuiltin"],
            path: "Sources/CMosquitto"
        ),
        // Hardware and OS edges: ALSA capture, GPIO lines, TCP, sd_notify, the MQTT broker link.
        .target(
            name: "SoundtracePlatform",
            dependencies: ["SoundtraceCore", "SoundtraceProtocol", "SoundtraceClock", "CALSA", "CGPIOD", "CMosquitto"]
        ),
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // History and favorites (SQLite). No Foundation: the daemon links it and must stay small.
        .target(
            name: "SoundtraceStore",
            dependencies: ["CSQLite", "SoundtraceClock"]
        ),
        // A child process for the power-loss test: writes events until it is killed.
        .executableTarget(
            name: "soundtrace-store-writer",
            dependencies: ["SoundtraceStore", "SoundtraceClock"]
        ),
        // The fingerprint engine as a session's recognizer (engine + Core's Recognizer protocol).
        .target(
            name: "SoundtraceRecognition",
            dependencies: ["SoundtraceFingerprint", "SoundtraceCore", "SoundtraceClock"]
        ),
        // jansson (Debian's libjansson-dev): the CLI's JSON parser.
        .systemLibrary(
            name: "CJansson",
            path: "Sources/CJansson",
            pkgConfig: "jansson",
            providers: [.apt(["libjansson-dev"])]
        ),
        .target(
            name: "SoundtraceTools",
            dependencies: [
                "SoundtraceFingerprint", "SoundtraceCore", "SoundtraceProtocol", "SoundtraceClock", "SoundtracePlatform",
                "SoundtraceRecognition", "CJansson", "CLinux"
            ]
        ),
        // Linux headers Glibc does not export (signalfd).
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),
        // The appliance: one owner of state serving the protocol, sessions, history and signals.
        // No Foundation (the daemon's memory budget is 10 MB).
        .target(
            name: "SoundtraceDaemon",
            dependencies: [
                "SoundtraceFingerprint", "SoundtraceCore", "SoundtraceProtocol", "SoundtraceClock", "SoundtracePlatform",
                "SoundtraceStore", "SoundtraceRecognition", "CLinux"
            ]
        ),
        .executableTarget(
            name: "soundtraced",
            dependencies: ["SoundtraceDaemon"]
        ),
        .executableTarget(
            name: "soundtrace",
            dependencies: ["SoundtraceTools", "SoundtraceDaemon"]
        ),
        // Deterministic audio fixtures shared by the test targets.
        .target(
            name: "SoundtraceTestSupport",
            dependencies: ["SoundtraceFingerprint", "SoundtraceClock", "SoundtraceCore"],
            path: "Tests/SoundtraceTestSupport"
        ),
        .testTarget(
            name: "SoundtraceFingerprintTests",
            dependencies: ["SoundtraceFingerprint", "SoundtraceTestSupport"]
        ),
        .testTarget(
            name: "SoundtraceClockTests",
            dependencies: ["SoundtraceClock"]
        ),
        .testTarget(
            name: "SoundtraceCoreTests",
            dependencies: ["SoundtraceCore"]
        ),
        .testTarget(
            name: "SoundtraceProtocolTests",
            dependencies: ["SoundtraceProtocol"]
        ),
        .testTarget(
            name: "SoundtracePlatformTests",
            dependencies: ["SoundtracePlatform", "SoundtraceCore", "SoundtraceProtocol", "SoundtraceTestSupport"]
        ),
        .testTarget(
            name: "SoundtraceStoreTests",
            dependencies: ["SoundtraceStore", "SoundtraceTestSupport"]
        ),
        .testTarget(
            name: "SoundtraceToolsTests",
            dependencies: [
                "SoundtraceTools", "SoundtraceFingerprint", "SoundtraceCore", "SoundtraceProtocol", "SoundtraceTestSupport",
                "SoundtracePlatform"
            ]
        ),
        .testTarget(
            name: "SoundtraceDaemonTests",
            dependencies: [
                "SoundtraceDaemon", "SoundtraceCore", "SoundtraceProtocol", "SoundtraceClock", "SoundtraceStore",
                "SoundtraceFingerprint", "SoundtracePlatform", "SoundtraceTestSupport", "CSQLite"
            ]
        ),
        // Drives the real `soundtrace` binary against simulated microphones (ALSA file plugin,
        // PulseAudio null sink).
        .testTarget(
            name: "AcceptanceTests",
            dependencies: ["SoundtraceFingerprint", "SoundtraceTestSupport", "CLinux"]
        )
    ],
    swiftLanguageModes: [.v6]
)
