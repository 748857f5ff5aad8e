import SoundtraceDaemon
import Testing

/// The packaged `soundtrace` binary is the daemon only when started under the daemon's name.
struct DaemonProcessNameTests {
    @Test func theDaemonsNameInAnyFolderStartsTheDaemon() {
        for path in ["soundtraced", "/usr/bin/soundtraced", "./soundtraced", "/opt//bin/soundtraced/"] {
            #expect(DaemonProcess.isInvoked(as: path), "\(path)")
        }
    }

    @Test func everyOtherNameIsTheCompanionCommand() {
        for path in [
            "soundtrace", "/usr/bin/soundtrace", "", "/", "soundtraced2", "/usr/bin/soundtraced.old",
            "/usr/bin/soundtraced/soundtrace", "SOUNDTRACED", "xsoundtraced"
        ] {
            #expect(!DaemonProcess.isInvoked(as: path), "\(path)")
        }
    }
}
