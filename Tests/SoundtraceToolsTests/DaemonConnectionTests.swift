import Foundation
import Glibc
import SoundtraceProtocol
import Testing

@testable import SoundtraceTools

/// Connecting, the greeting, the token, errors and protocol hygiene.
@Suite struct DaemonConnectionTests {
    typealias Step = FakeDaemon.Step

    /// A loopback port nothing listens on: bound once to learn a free number, then closed.
    static func closedPort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test func unreachableDaemonExitsFiveWithTheHint() {
        let port = Self.closedPort()
        let run = DaemonRun(["status", "--port", String(port)])
        #expect(run.status == .unreachable)
        #expect(
            run.err
                == "soundtrace status: cannot reach soundtraced at 127.0.0.1:\(port): connection refused — is it running? (systemctl status soundtraced)\n"
        )
        #expect(run.out.isEmpty)
    }

    @Test func anIPv6AddressInBracketsIsThatAddress() {
        // As URLs write it. Whether this machine has IPv6 or not, the address is tried, not looked
        // up as a name ("[::1]").
        let port = Self.closedPort()
        let run = DaemonRun(["status", "--host", "[::1]", "--port", String(port)])
        #expect(run.status == .unreachable)
        #expect(run.err.hasPrefix("soundtrace status: cannot reach soundtraced at [::1]:\(port): "), "\(run.err)")
        #expect(!run.err.contains("cannot resolve"), "\(run.err)")
    }

    @Test func hostAndPortComeFromTheEnvironment() throws {
        let daemon = try FakeDaemon([("ping", "OK\n")])
        let run = DaemonRun(["ping"], variables: ["SOUNDTRACE_HOST": "localhost", "SOUNDTRACE_PORT": String(daemon.port)])
        daemon.stop()
        #expect(run.status == .success, "\(run.err)")
        #expect(run.out == "soundtraced at localhost:\(daemon.port) answers (protocol 1).\n")
        // The command line wins over the environment.
        let override = DaemonRun(["ping", "--port", String(Self.closedPort())], variables: ["SOUNDTRACE_PORT": String(daemon.port)])
        #expect(override.status == .unreachable)
    }

    @Test(arguments: [
        ("OK MPD 0.23.5", "is not a soundtraced speaking protocol 1: it greeted with \"OK MPD 0.23.5\""),
        ("OK SOUNDTRACE 2", "is not a soundtraced speaking protocol 1: it speaks Soundtrace protocol 2"),
        ("SSH-2.0-OpenSSH_9.2p1", "is not a soundtraced speaking protocol 1: it greeted with \"SSH-2.0-OpenSSH_9.2p1\"")
    ])
    func aWrongGreetingIsNotSoundtraced(greeting: String, message: String) throws {
        let (run, received) = try converse([Step](), ["status"], greeting: greeting)
        #expect(run.status == .unreachable)
        #expect(run.err.contains(message), "\(run.err)")
        #expect(received.isEmpty, "nothing may be sent to a peer that is not soundtraced")
    }

    @Test func aPeerThatNeverGreetsIsNotSoundtraced() throws {
        // A listening socket that never accepts: the kernel completes the connection, nobody speaks.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        #expect(listen(fd, 4) == 0)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))
        var limits = DaemonRun.testLimits
        limits.connectTimeoutMilliseconds = 300
        let run = DaemonRun(["status", "--port", String(port)], limits: limits)
        #expect(run.status == .unreachable)
        #expect(
            run.err
                == "soundtrace status: 127.0.0.1:\(port) is not a soundtraced speaking protocol 1: no greeting: it did not answer within 300 ms (a soundtraced that is stuck does the same: see journalctl -u soundtraced); check --host and --port (default port 6680)\n"
        )
    }

    @Test func aFullDaemonRefusesWithItsMessage() throws {
        let (run, _) = try converse([Step](), ["status"], greeting: "ACK [56@0] {} too many clients (8); try again later")
        #expect(run.status == .refused)
        #expect(run.err == "soundtrace status: too many clients (8); try again later\n")
    }

    @Test func anAckExitsSixWithTheDaemonsMessage() throws {
        let (run, _) = try converse([("show 99", "ACK [50@0] {show} no recognition 99; see `soundtrace history`\n")], ["show", "99"])
        #expect(run.status == .refused)
        #expect(run.err == "soundtrace show: no recognition 99; see `soundtrace history`\n")
        #expect(run.out.isEmpty)
        let permission = try converse(
            [("delete 3", "ACK [4@0] {delete} this connection may only read; present the token first (`token SECRET`)\n")],
            ["delete", "3", "--yes"]
        ).run
        #expect(permission.status == .refused)
        #expect(permission.err.contains("present the token first"))
    }

    @Test func theTokenFromTheEnvironmentIsSentFirst() throws {
        let steps: [(String, String)] = [("token s3cret", "permission: control\nOK\n"), ("cancel", "state: idle\nOK\n")]
        let (run, received) = try converse(steps, ["cancel"], variables: ["SOUNDTRACE_TOKEN": "s3cret"])
        #expect(run.status == .success)
        #expect(received == ["token s3cret", "cancel"])
    }

    @Test func aTokenWithSpacesAndQuotesIsQuoted() throws {
        let secret = "my \"box\" \\ key"
        let line = "token \"my \\\"box\\\" \\\\ key\""
        let (run, received) = try converse(
            [(line, "permission: control\nOK\n"), ("ping", "OK\n")], ["ping"], variables: ["SOUNDTRACE_TOKEN": secret])
        #expect(run.status == .success)
        #expect(received.first == line)
        // The daemon's own parser reads back exactly the secret.
        let parsed = try ProtocolRequest.parse(ArraySlice(Array(line.utf8))).get()
        #expect(parsed.arguments == [secret])
    }

    @Test func theTokenFromAFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "soundtrace-token-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        ).path
        try "  f1le-secret \n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        let steps: [(String, String)] = [("token f1le-secret", "permission: control\nOK\n"), ("ping", "OK\n")]
        let (viaOption, optionReceived) = try converse(steps, ["ping", "--token-file", path], variables: ["SOUNDTRACE_TOKEN": "ignored"])
        #expect(viaOption.status == .success)
        #expect(optionReceived == ["token f1le-secret", "ping"])
        let (viaEnvironment, environmentReceived) = try converse(steps, ["ping"], variables: ["SOUNDTRACE_TOKEN_FILE": path])
        #expect(viaEnvironment.status == .success)
        #expect(environmentReceived == ["token f1le-secret", "ping"])
    }

    @Test func aWrongTokenIsRefused() throws {
        let (run, received) = try converse(
            [("token nope", "ACK [3@0] {token} wrong token (2 tries left before the connection closes)\n")],
            ["listen"], variables: ["SOUNDTRACE_TOKEN": "nope"])
        #expect(run.status == .refused)
        // One try per run: the daemon's count of tries left means nothing here; where the token
        // came from does.
        #expect(run.err.hasPrefix("soundtrace listen: soundtraced at 127.0.0.1:"), "\(run.err)")
        #expect(run.err.contains("refused the token from SOUNDTRACE_TOKEN: it is not the daemon's token"), "\(run.err)")
        #expect(!run.err.contains("tries left"), "\(run.err)")
        #expect(received == ["token nope"], "nothing after a refused token")
        let path = NSTemporaryDirectory() + "wrong-token-\(UUID().uuidString)"
        try "nope\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        let (viaFile, _) = try converse(
            [("token nope", "ACK [3@0] {token} wrong token; closing the connection\n")], ["ping", "--token-file", path])
        #expect(viaFile.status == .refused)
        #expect(viaFile.err.contains("refused the token from --token-file \(path):"), "\(viaFile.err)")
        // Any other refusal of the token is passed on as the daemon worded it.
        let (unconfigured, _) = try converse(
            [("token nope", "ACK [3@0] {token} no token is configured on this appliance\n")], ["ping"],
            variables: ["SOUNDTRACE_TOKEN": "nope"])
        #expect(unconfigured.err == "soundtrace ping: no token is configured on this appliance\n")
    }

    @Test(arguments: [
        ("status: idle\nnot a reply line\nOK\n", "sent a line that is not part of protocol 1: \"not a reply line\""),
        ("state: idle\nACK [52@0] {status} late error\n", "sent an error line in the middle of a reply"),
        ("Bad Key: x\nOK\n", "sent a line that is not part of protocol 1"),
        ("state:idle\nOK\n", "sent a line that is not part of protocol 1"),
        ("title: \u{1B}[2Jgotcha\nOK\n", "sent a line with control characters"),
        ("title: \u{9B}2J\nOK\n", "sent a line with control characters")
    ])
    func malformedRepliesAreRefused(reply: String, message: String) throws {
        let (run, _) = try converse([("status", reply)], ["status"])
        #expect(run.status == .unreachable)
        #expect(run.err.contains(message), "\(run.err)")
        #expect(run.out.isEmpty)
    }

    @Test func repliesAreBounded() throws {
        var limits = DaemonRun.testLimits
        limits.maxReplyBytes = 2048
        let big = String(repeating: "id: 1\n", count: 1000) + "OK\n"
        let (run, _) = try converse([Step(expect: "history", reply: .text(big))], ["history"], limits: limits)
        #expect(run.status == .unreachable)
        #expect(run.err.contains("sent a reply larger than 2 KiB"))
    }

    @Test func aSilentDaemonTimesOut() throws {
        var limits = DaemonRun.testLimits
        limits.replyTimeoutMilliseconds = 200
        let (run, _) = try converse([Step(expect: "status", reply: .hold)], ["status"], limits: limits)
        #expect(run.status == .unreachable)
        #expect(run.err.hasSuffix("did not answer within 200 ms\n"))
    }

    @Test func aDaemonThatClosesMidReplyIsReported() throws {
        let (run, _) = try converse([Step(expect: "status", reply: .textThenClose("state: idle\n"))], ["status"])
        #expect(run.status == .unreachable)
        #expect(run.err.hasSuffix("closed the connection\n"))
    }
}
