import Testing
@testable import SoundtraceFingerprint
import SoundtraceTestSupport

@Suite struct CatalogFileTests {
    static let built: (Catalog, [UInt8]) = {
        // Force-try is fine in a fixture: a failure here fails every test that uses it, loudly.
        try! TestAudio.catalog([("alpha-one", TestAudio.music(seed: 1, seconds: 12)),
                                ("beta-two", TestAudio.music(seed: 2, seconds: 10))])
    }()

    @Test func roundTripsMetadataAndIndex() throws {
        let (catalog, bytes) = Self.built
        let again = try CatalogFile.decode(bytes, path: "x")
        #expect(again.references == catalog.references)
        #expect(again.index == catalog.index)
        #expect(again.manifest.version == 3)
        #expect(again.manifest.referenceIds == ["alpha-one", "beta-two"])
        #expect(again.manifest.hash.count == 64)
        #expect(again.references[0].audio.metadata == [.init(key: "kind", value: "synthetic")])
    }

    @Test func buildingTwiceGivesIdenticalBytes() throws {
        let (_, again) = try TestAudio.catalog([("alpha-one", TestAudio.music(seed: 1, seconds: 12)),
                                                ("beta-two", TestAudio.music(seed: 2, seconds: 10))])
        #expect(again == Self.built.1)
    }

    @Test func refusesOtherFilesWithSpecificErrors() {
        let bytes = Self.built.1
        #expect(throws: CatalogError.notACatalog(path: "x")) { try CatalogFile.decode([], path: "x") }
        #expect(throws: CatalogError.notACatalog(path: "x")) { try CatalogFile.decode(Array("RIFF1234WAVEfmt ".utf8), path: "x") }
        var future = bytes
        future[8] = 2
        #expect(throws: CatalogError.unsupportedFormatVersion(path: "x", found: 2, supported: 1)) { try CatalogFile.decode(future, path: "x") }
        #expect(throws: CatalogError.truncated(path: "x", section: "content hash")) { try CatalogFile.decode(Array(bytes.dropLast(5)), path: "x") }
        #expect(throws: CatalogError.truncated(path: "x", section: "header")) { try CatalogFile.decode(Array(bytes.prefix(10)), path: "x") }
        var flipped = bytes
        flipped[bytes.count / 2] ^= 0x10
        #expect(throws: CatalogError.contentHashMismatch(path: "x")) { try CatalogFile.decode(flipped, path: "x") }
        #expect(throws: CatalogError.damaged(path: "x", detail: "3 unexpected bytes after the content hash")) {
            try CatalogFile.decode(bytes + [1, 2, 3], path: "x")
        }
    }

    @Test func refusesACatalogBuiltWithOtherParameters() {
        var other = EngineParameters()
        other.referenceFanOut += 1
        #expect(throws: CatalogError.parameterMismatch(path: "x", field: "referenceFanOut",
                                                       stored: UInt32(EngineParameters().referenceFanOut),
                                                       expected: UInt32(other.referenceFanOut))) {
            try CatalogFile.decode(Self.built.1, path: "x", parameters: other)
        }
    }

    @Test func everyTruncationAndByteFlipIsAnErrorNotACrash() {
        let bytes = Self.built.1
        for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 400)) {
            #expect(throws: CatalogError.self) { try CatalogFile.decode(Array(bytes.prefix(length)), path: "x") }
        }
        for position in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 300)) {
            var damaged = bytes
            damaged[position] &+= 1
            #expect(throws: CatalogError.self) { try CatalogFile.decode(damaged, path: "x") }
        }
    }

    @Test func aConsistentlyRehashedButInvalidIndexIsStillRefused() throws {
        // Damage the index and fix up the content hash, as a buggy writer might: validation must catch it.
        var bytes = Self.built.1
        let hashStart = bytes.count - 40
        // The directory's last element (the entry count it covers) sits just before the entries.
        let directoryEnd = hashStart - 4 * Self.built.0.index.entries.count - 4
        bytes[directoryEnd] &+= 1
        let digest = SHA256.digest(bytes[0..<hashStart])
        bytes.replaceSubrange((hashStart + 8)..<bytes.count, with: digest)
        #expect(throws: CatalogError.self) { try CatalogFile.decode(bytes, path: "x") }
    }

    @Test func missingFileSaysHowToBuildOne() {
        do {
            _ = try CatalogFile.load(path: "/nonexistent/soundtrace.catalog")
            Issue.record("loading a missing catalog succeeded")
        } catch {
            #expect(error == .notFound(path: "/nonexistent/soundtrace.catalog"))
            #expect(error.description.contains("soundtrace catalog build"))
        }
    }
}
