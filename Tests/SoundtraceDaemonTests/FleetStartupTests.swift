import Glibc
import SoundtraceTestSupport
import Testing

@testable import SoundtraceDaemon

/// The MQTT link's files are checked at start, with the key to fix, not at the first connection.
@Suite struct FleetStartupTests {
    static func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = "/tmp/fleet-startup-\(getpid())-\(name)"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        try #require(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count)
        return path
    }

    static func refusal(_ path: String) -> String? {
        do {
            try FleetStartup.checkCertificateFile(path)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func aCAFileWithoutAPEMCertificateIsRefusedAtStartWithTheFix() throws {
        // A DER certificate starts with a SEQUENCE; a key or random bytes hold no certificate either.
        let der = try Self.file("der", [0x30, 0x82, 0x03, 0x1F, 0x30, 0x82, 0x02, 0x07, 0xA0, 0x03, 0x02, 0x01, 0x02])
        let key = try Self.file("key", Array("-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n".utf8))
        let empty = try Self.file("empty", [])
        defer { for path in [der, key, empty] { unlink(path) } }
        for path in [der, key, empty] {
            let refusal = try #require(Self.refusal(path), "\(path) accepted")
            #expect(
                refusal
                    == "mqtt_tls_ca_file \(path) holds no certificate in PEM form (no '-----BEGIN CERTIFICATE-----' line); give the CA certificate that signed the broker's, as PEM (`openssl x509 -inform der -in ca.der -out ca.pem` converts a DER file)"
            )
        }
    }

    @Test func aCAFileThatCannotBeReadOrIsNotAFileSaysSo() throws {
        #expect(
            Self.refusal("/nonexistent/ca.pem")
                == "cannot read mqtt_tls_ca_file /nonexistent/ca.pem: No such file or directory; it must be readable by the soundtrace user"
        )
        #expect(Self.refusal("/dev/zero")?.hasPrefix("cannot read mqtt_tls_ca_file /dev/zero: it is a character device") == true)
        let huge = try Self.file("huge", [UInt8](repeating: 0x41, count: (4 << 20) + 1))
        defer { unlink(huge) }
        #expect(Self.refusal(huge) == "mqtt_tls_ca_file \(huge) is larger than a CA certificate file can be (4 MiB)")
    }

    @Test func thePasswordIsTheFirstLineOfItsFileAndAWrongFileIsSaid() throws {
        func read(_ path: String) -> String {
            do { return try FleetStartup.password(path) } catch { return "refused: \(error.description)" }
        }
        let good = try Self.file("password", Array("s3cret pass\r\nsecond line\n".utf8))
        let empty = try Self.file("password-empty", Array("\nsecret\n".utf8))
        let huge = try Self.file("password-huge", [UInt8](repeating: 0x41, count: 4097))
        defer { for path in [good, empty, huge] { unlink(path) } }
        #expect(read(good) == "s3cret pass")
        #expect(read(empty) == "refused: mqtt_password_file \(empty) must hold the password as UTF-8 text on its first line")
        #expect(read(huge) == "refused: mqtt_password_file \(huge) is larger than a password can be (4 KiB)")
        #expect(
            read("/nonexistent/password")
                == "refused: cannot read mqtt_password_file /nonexistent/password: No such file or directory; it must be readable by the soundtrace user"
        )
    }

    @Test func aPEMBundleIsAccepted() throws {
        // As /etc/ssl/certs/ca-certificates.crt: text around several certificates.
        let text =
            "# museum CA\n-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n"
        let bundle = try Self.file("bundle", Array(text.utf8))
        defer { unlink(bundle) }
        #expect(Self.refusal(bundle) == nil)
    }
}
