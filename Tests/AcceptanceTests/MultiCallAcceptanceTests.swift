import Foundation
import Glibc
import SoundtraceTestSupport
import Testing

/// The package installs one binary, `soundtrace`, with /usr/bin/soundtraced a symbolic link to it
/// (deploy/install.sh): the name it is started under picks the program. These run the built
/// `soundtrace` through such links, the way systemd and a user start it.
@Suite(.serialized) struct MultiCallAcceptanceTests {
    let mics = Microphones.shared

    /// A folder holding `name`, a symbolic link to the built `soundtrace`.
    private func link(named name: String) throws -> String {
        let folder = DaemonProcess.stateDirectory("links")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/" + name
        try #require(symlink(Microphones.binary, path) == 0, "symlink: \(String(cString: strerror(errno)))")
        return path
    }

    @Test func underTheDaemonsNameTheCLIBinaryIsTheDaemon() throws {
        let daemonLink = try link(named: "soundtraced")
        let version = try SystemTool.run([daemonLink, "--version"])
        #expect(version.status == 0)
        #expect(version.output.hasPrefix("soundtraced ") && version.output.contains("(protocol 1)"), "\(version.output)")

        // A fixed microphone, not the switch: suites run in parallel, and the switch is
        // DaemonAcceptanceTests' to plug (`Microphones.plug`).
        let daemon = try DaemonProcess(
            stateDirectory: DaemonProcess.stateDirectory("multicall"), device: "st_acc_ref_a", binary: daemonLink)
        defer { daemon.stop() }
        let client = try daemon.connect()
        #expect(client.greetingLine == "OK SOUNDTRACE 1")
        let started = try client.command("listen")
        let session = try #require(started.value("session"), "listen: \(started)")
        let outcome = try client.waitForOutcome(session)
        #expect(outcome.value("state") == "matched", "\(outcome)")
        #expect(outcome.value("reference") == mics.catalog.references[1].audio.id, "\(outcome)")
        #expect(daemon.stop() == 0)
    }

    @Test func underItsOwnNameItIsTheCompanionCommand() throws {
        let cliLink = try link(named: "soundtrace")
        let version = try SystemTool.run([cliLink, "--version"])
        #expect(version.status == 0)
        #expect(version.output.hasPrefix("soundtrace ") && !version.output.hasPrefix("soundtraced"), "\(version.output)")
        let unknown = try SystemTool.run([cliLink, "--no-gpio"])
        #expect(unknown.status == 2, "a daemon option is not a command of the CLI: \(unknown.output)")
    }
}
