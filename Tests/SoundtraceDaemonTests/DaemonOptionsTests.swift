import Testing

@testable import SoundtraceDaemon

@Suite struct DaemonOptionsTests {
    @Test func flagsOverrideTheConfiguration() throws {
        let options = try DaemonOptions.parse([
            "--config", "/tmp/x.conf", "--catalog", "c.catalog", "--state-dir", "/tmp/s",
            "--bind", "::1", "--port", "0", "--device", "plughw:1,0", "--no-gpio"
        ])
        #expect(options.configPath == "/tmp/x.conf")
        #expect(options.port == 0)
        #expect(options.noGPIO)
        let configuration = try DaemonStartup.configuration(options.with(config: "/dev/null"))
        #expect(configuration.catalog == "c.catalog")
        #expect(configuration.stateDirectory == "/tmp/s")
        #expect(configuration.bind == "::1")
        #expect(configuration.device == "plughw:1,0")
        #expect(!configuration.gpio)
    }

    @Test(arguments: [
        (["--port"], "--port needs a value"),
        (["--state-dir", "--no-gpio"], "--state-dir needs a value, not the option --no-gpio"),
        (["--port", "70000"], "--port must be a whole number in 0–65535, got '70000'"),
        (["--device", "a", "--device", "b"], "--device was given twice"),
        (["--verbose"], "unknown argument '--verbose'"),
        // A command-line mistake, so a usage error (exit 2) like the others, before any file is read.
        (["--bind", "example.org"], "--bind must be an IPv4 address, ::1, :: or localhost, got 'example.org'")
    ])
    func badFlagsAreExplained(arguments: [String], message: String) {
        #expect(throws: DaemonOptions.Invalid(description: message)) { try DaemonOptions.parse(arguments) }
    }

    @Test func aLANBindNeedsATokenEvenFromTheCommandLine() throws {
        let options = try DaemonOptions.parse(["--config", "/dev/null", "--bind", "0.0.0.0"])
        do {
            _ = try DaemonStartup.configuration(options)
            Issue.record("a LAN bind without a token was accepted")
        } catch {
            // The value came from the command line, not from the (empty) file: both are named.
            #expect(error.description.hasPrefix("/dev/null with --bind 0.0.0.0: bind = 0.0.0.0 reaches the network"), "\(error)")
        }
    }

    @Test func aMissingExplicitConfigurationIsAnError() throws {
        let options = try DaemonOptions.parse(["--config", "/nonexistent/soundtraced.conf"])
        do {
            _ = try DaemonStartup.configuration(options)
            Issue.record("a missing --config file was accepted")
        } catch {
            #expect(error.description.contains("cannot read configuration /nonexistent/soundtraced.conf"))
        }
    }
}

extension DaemonOptions {
    fileprivate func with(config: String) -> DaemonOptions {
        var copy = self
        copy.configPath = config
        return copy
    }
}
