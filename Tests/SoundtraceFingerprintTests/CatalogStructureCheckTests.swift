import Glibc
import SoundtraceTestSupport
import Testing

@testable import SoundtraceFingerprint

/// What a catalog loaded with `Check.structure` (the daemon's start and reload) refuses at once,
/// what it leaves to `verifyContent()`, and that a damaged bulk cannot crash a match.
@Suite struct CatalogStructureCheckTests {
    /// Three references, so that an index entry's two reference bits can name one that does not exist.
    static let items: [(id: String, audio: PCMAudio)] = (1...3).map { song in
        ("song-\(song)", TestAudio.layeredMusic(layers: (1...4).map { UInt64(10 * song + $0) }, seconds: 14))
    }
    static let built: (Catalog, [UInt8]) = { try! TestAudio.catalog(items) }()

    static func layout(_ bytes: [UInt8]) throws -> CatalogLayout {
        try bytes.withUnsafeBytes { try CatalogLayout($0, start: 12, path: "x") }
    }

    static func writeTemporary(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = "/tmp/soundtrace-structure-\(getpid())-\(name).catalog"
        try FileBytes.writeAtomically(bytes, to: path)
        return path
    }

    @Test func aDamagedHeaderParametersReferencesOrDirectoryIsRefusedAtStart() throws {
        let bytes = Self.built.1
        let layout = try Self.layout(bytes)
        let places: [(String, Int)] = [
            ("parameters", layout.body(.parameters).lowerBound + 9),
            ("references", layout.body(.references).lowerBound + 12),
            ("reference title", layout.body(.references).upperBound - 60),
            ("index header", layout.body(.index).lowerBound + 2),
            ("index directory", layout.directoryEnd - 400)
        ]
        for (name, position) in places {
            var damaged = bytes
            damaged[position] ^= 0x04
            for check in [CatalogFile.Check.structure, .full] {
                do {
                    _ = try CatalogFile.decode(damaged, path: "x", check: check)
                    Issue.record("a catalog with a damaged \(name) was accepted (\(check))")
                } catch {
                    #expect(error == .structureChecksumMismatch(path: "x"), "\(name)")
                    #expect(error.description.contains("copy it again or rebuild it with: soundtrace catalog build"))
                }
            }
        }
    }

    @Test func aDamagedBulkPassesTheStructureCheckAndFailsTheContentCheck() throws {
        let (built, bytes) = Self.built
        let layout = try Self.layout(bytes)
        for (name, range) in [
            ("index entries", layout.directoryEnd..<layout.body(.index).upperBound),
            ("signatures", layout.body(.signatures)), ("levels", layout.body(.levels))
        ] {
            var damaged = bytes
            damaged[range.lowerBound + range.count / 2] ^= 0x21
            let path = try Self.writeTemporary(damaged, name)
            defer { unlink(path) }
            let loaded = try CatalogFile.load(path: path, check: .structure)
            #expect(loaded.references == built.references)
            #expect(loaded.manifest.hash == built.manifest.hash, "the stored hash, not yet checked")
            #expect(loaded.contentKnownSound == nil)
            #expect(throws: CatalogError.contentHashMismatch(path: path), "\(name)") { try loaded.verifyContent() }
            #expect(loaded.contentKnownSound == false)
            #expect(throws: CatalogError.contentHashMismatch(path: path), "\(name)") { try CatalogFile.load(path: path) }
        }
        // The undamaged file passes both, and the structure check does not change what loads.
        let path = try Self.writeTemporary(bytes, "good")
        defer { unlink(path) }
        let loaded = try CatalogFile.load(path: path, check: .structure)
        try loaded.verifyContent()
        #expect(loaded.contentKnownSound == true)
        #expect(try CatalogFile.load(path: path).contentKnownSound == true, "checked in full as it loaded")
        #expect(loaded.index == built.index && loaded.signatures == built.signatures && loaded.levels == built.levels)
        loaded.releaseResidentPages()
        #expect(loaded.index == built.index, "pages given back are read again")
    }

    @Test func garbageIndexEntriesCannotCrashAMatchAndMatchNothing() throws {
        let bytes = Self.built.1
        let layout = try Self.layout(bytes)
        let entries = layout.directoryEnd..<layout.body(.index).upperBound
        var garbage = bytes
        // A fixed pseudo-random sequence, every fourth entry naming reference 3 of 3.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let index = Self.built.0.index
        let frameBits = UInt32(index.frameBits)
        for word in 0..<(entries.count / 4) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var value = UInt32(truncatingIfNeeded: state >> 32)
            if word % 4 == 0 { value |= 3 << frameBits }
            for i in 0..<4 { garbage[entries.lowerBound + 4 * word + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
        }
        #expect(throws: CatalogError.contentHashMismatch(path: "x")) { try CatalogFile.decode(garbage, path: "x") }
        let catalog = try CatalogFile.decode(garbage, path: "x", check: .structure)
        for reference in 0..<3 {
            let query = TestAudio.excerpt(Self.items[reference].audio, from: 3 * 8000 + 37, count: 6 * 8000)
            let verdict = try TestAudio.match(query, catalog)
            // Hits land on random alignments (or on no reference: those are dropped): no landmark
            // winner stands out, and the final verdict's signature checks find nothing that agrees.
            #expect(verdict.outcome == .noMatch, "\(verdict)")
        }
    }
}
