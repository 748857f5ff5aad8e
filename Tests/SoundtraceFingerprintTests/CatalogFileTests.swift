import Glibc
import SoundtraceTestSupport
import Testing

@testable import SoundtraceFingerprint

@Suite struct CatalogFileTests {
    static let built: (Catalog, [UInt8]) = {
        // Force-try is fine in a fixture: a failure here fails every test that uses it, loudly.
        try! TestAudio.catalog([
            ("alpha-one", TestAudio.music(seed: 1, seconds: 12)),
            ("beta-two", TestAudio.music(seed: 2, seconds: 10))
        ])
    }()

    @Test func roundTripsMetadataAndIndex() throws {
        let (catalog, bytes) = Self.built
        let again = try CatalogFile.decode(bytes, path: "x")
        #expect(again.references == catalog.references)
        #expect(again.index == catalog.index)
        #expect(again.signatures == catalog.signatures)
        #expect(again.signatures.count == catalog.totalFrames)
        #expect(again.signatureStart == [0, catalog.references[0].durationFrames])
        #expect(again.manifest.version == 3)
        #expect(again.manifest.referenceIds == ["alpha-one", "beta-two"])
        #expect(again.manifest.hash.count == 64)
        #expect(again.references[0].audio.metadata == [.init(key: "kind", value: "synthetic")])
    }

    @Test func buildingTwiceGivesIdenticalBytes() throws {
        let (_, again) = try TestAudio.catalog([
            ("alpha-one", TestAudio.music(seed: 1, seconds: 12)),
            ("beta-two", TestAudio.music(seed: 2, seconds: 10))
        ])
        #expect(again == Self.built.1)
    }

    @Test func refusesOtherFilesWithSpecificErrors() {
        let bytes = Self.built.1
        #expect(throws: CatalogError.notACatalog(path: "x")) { try CatalogFile.decode([], path: "x") }
        #expect(throws: CatalogError.notACatalog(path: "x")) { try CatalogFile.decode(Array("RIFF1234WAVEfmt ".utf8), path: "x") }
        var future = bytes
        future[8] = UInt8(CatalogFile.formatVersion + 1)
        #expect(
            throws: CatalogError.unsupportedFormatVersion(
                path: "x", found: CatalogFile.formatVersion + 1,
                supported: CatalogFile.formatVersion)
        ) { try CatalogFile.decode(future, path: "x") }
        // A catalog of an earlier format (no structure checksum) says how to rebuild it, at
        // start-up as everywhere.
        var previous = bytes
        previous[8] = 3
        for check in [CatalogFile.Check.full, .structure] {
            do {
                _ = try CatalogFile.decode(previous, path: "x", check: check)
                Issue.record("a format-3 catalog was accepted")
            } catch {
                #expect(error == .unsupportedFormatVersion(path: "x", found: 3, supported: CatalogFile.formatVersion))
                #expect(error.description.contains("rebuild it with: soundtrace catalog build"))
            }
        }
        #expect(throws: CatalogError.truncated(path: "x", section: "content hash")) {
            try CatalogFile.decode(Array(bytes.dropLast(5)), path: "x")
        }
        #expect(throws: CatalogError.truncated(path: "x", section: "header")) { try CatalogFile.decode(Array(bytes.prefix(10)), path: "x") }
        // In the bulk (the signatures): the structure checksum does not cover it, the content hash does.
        var flipped = bytes
        flipped[Self.signaturesStart + 20] ^= 0x10
        #expect(throws: CatalogError.contentHashMismatch(path: "x")) { try CatalogFile.decode(flipped, path: "x") }
        #expect(throws: CatalogError.damaged(path: "x", detail: "3 unexpected bytes after the content hash")) {
            try CatalogFile.decode(bytes + [1, 2, 3], path: "x")
        }
    }

    @Test func refusesACatalogBuiltWithOtherParameters() {
        var other = EngineParameters()
        other.referenceFanOut += 1
        #expect(
            throws: CatalogError.parameterMismatch(
                path: "x", field: "referenceFanOut",
                stored: UInt32(EngineParameters().referenceFanOut),
                expected: UInt32(other.referenceFanOut))
        ) {
            try CatalogFile.decode(Self.built.1, path: "x", parameters: other)
        }
    }

    @Test func aCatalogOfAnEngineWithOtherFieldsIsRefusedByItsRevision() {
        // A later engine stores more fields (here one more peak band) under a new revision: the
        // message names the revision, which says "rebuild", not a damaged file.
        var later = EngineParameters()
        later.algorithmRevision += 1
        later.peakBandEdges.insert(160, at: later.peakBandEdges.count - 1)
        #expect(
            throws: CatalogError.parameterMismatch(
                path: "x", field: "algorithmRevision",
                stored: EngineParameters().algorithmRevision,
                expected: later.algorithmRevision)
        ) {
            try CatalogFile.decode(Self.built.1, path: "x", parameters: later)
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

    /// Where the structure checksum section starts, and the levels and signatures sections before it.
    static var checksumStart: Int { built.1.count - 80 }
    static var levelWords: Int { built.0.levels.count }
    static var levelsStart: Int { checksumStart - 8 - 4 * levelWords }
    static var signaturesStart: Int { levelsStart - 8 - 2 * built.0.totalFrames }

    static func layout(_ bytes: [UInt8]) throws -> CatalogLayout {
        try bytes.withUnsafeBytes { try CatalogLayout($0, start: 12, path: "x") }
    }

    /// Fixes up both checksums after damaging `bytes`, as a buggy writer might.
    static func rehashed(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        let checksumStart = bytes.count - 80
        guard let layout = try? layout(bytes) else { return bytes }
        let structure = bytes.withUnsafeBytes { layout.structureDigest($0) }
        bytes.replaceSubrange((checksumStart + 8)..<(checksumStart + 40), with: structure)
        bytes.replaceSubrange((bytes.count - 32)..<bytes.count, with: SHA256.digest(bytes[0..<(bytes.count - 40)]))
        return bytes
    }

    @Test func aConsistentlyRehashedButInvalidIndexIsStillRefused() throws {
        var bytes = Self.built.1
        // The directory's last element (the entry count it covers) sits just before the entries.
        let directoryEnd = Self.signaturesStart - 4 * Self.built.0.index.entries.count - 4
        bytes[directoryEnd] &+= 1
        #expect(throws: CatalogError.self) { try CatalogFile.decode(Self.rehashed(bytes), path: "x") }
    }

    @Test func signaturesThatDoNotCoverEveryFrameAreRefused() throws {
        let bytes = Self.built.1
        let start = Self.signaturesStart
        // Drop the last signature and shorten the section's length to match.
        var short = Array(bytes[..<(Self.levelsStart - 2)]) + Array(bytes[Self.levelsStart...])
        let length = UInt32(2 * Self.built.0.totalFrames - 2)
        for i in 0..<4 { short[start + 4 + i] = UInt8((length >> (8 * UInt32(i))) & 0xFF) }
        let frames = Self.built.0.totalFrames
        #expect(
            throws: CatalogError.damaged(
                path: "x", detail: "signatures section holds \(2 * frames - 2) bytes, not 2 for each of the references' \(frames) frames")
        ) {
            try CatalogFile.decode(Self.rehashed(short), path: "x")
        }
    }

    @Test func levelsThatDoNotCoverEveryKeptFrameAreRefused() throws {
        let bytes = Self.built.1
        let start = Self.levelsStart
        // Drop the last level word and shorten the section's length to match.
        var short = Array(bytes[..<(Self.checksumStart - 4)]) + Array(bytes[Self.checksumStart...])
        let words = Self.levelWords
        let length = UInt32(4 * words - 4)
        for i in 0..<4 { short[start + 4 + i] = UInt8((length >> (8 * UInt32(i))) & 0xFF) }
        #expect(
            throws: CatalogError.damaged(
                path: "x", detail: "levels section holds \(4 * words - 4) bytes, not 4 for each of the references' \(words) level words")
        ) {
            try CatalogFile.decode(Self.rehashed(short), path: "x")
        }
    }

    @Test func aLoadedCatalogReadsItsMappedFileAndNoticesInPlaceRewrites() throws {
        let (built, bytes) = Self.built
        let path = "/tmp/soundtrace-mapped-\(getpid()).catalog"
        defer { unlink(path) }
        try FileBytes.writeAtomically(bytes, to: path)
        let loaded = try CatalogFile.load(path: path)
        #expect(loaded.index == built.index)
        #expect(!loaded.fileChangedSinceLoading)

        // Replaced by rename (as `catalog build` and `install` do): the mapping keeps the old file.
        try FileBytes.writeAtomically(Array(repeating: 0, count: bytes.count), to: path)
        #expect(!loaded.fileChangedSinceLoading)
        #expect(loaded.index == built.index)

        // Truncated in place: noticed (its index must not be read again, past the end is SIGBUS).
        try FileBytes.writeAtomically(bytes, to: path)
        let again = try CatalogFile.load(path: path)
        #expect(truncate(path, off_t(bytes.count / 2)) == 0)
        #expect(again.fileChangedSinceLoading)
    }

    /// kB of this process's resident set that come from mappings of `path` (/proc/self/smaps).
    static func residentKilobytes(mapping path: String) -> Int {
        // procfs files report a size of 0: read until the end.
        let fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return -1 }
        defer { close(fd) }
        var raw: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            raw += chunk[0..<n]
        }
        let smaps = String(decoding: raw, as: UTF8.self)
        var inside = false
        var total = 0
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), first.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
                inside = fields.last.map(String.init) == path
            } else if inside, fields.first == "Rss:", fields.count > 1 {
                total += Int(fields[1]) ?? 0
            }
        }
        return total
    }

    @Test func theFilesPagesLeaveTheResidentSetAndAreReadAgainWhenNeeded() throws {
        let (built, bytes) = Self.built
        let path = "/tmp/soundtrace-resident-\(getpid()).catalog"
        defer { unlink(path) }
        try FileBytes.writeAtomically(bytes, to: path)
        let loaded = try CatalogFile.load(path: path)
        // Loading hashed every byte through the mapping: the file is resident.
        #expect(Self.residentKilobytes(mapping: path) >= bytes.count / 1024 - 4)
        loaded.releaseResidentPages()
        #expect(Self.residentKilobytes(mapping: path) == 0)
        // Nothing was lost: the index, signatures and levels read the same bytes again.
        #expect(loaded.index == built.index && loaded.signatures == built.signatures && loaded.levels == built.levels)
        #expect(Self.residentKilobytes(mapping: path) > 0)
    }

    @Test func aTextFieldWithControlCharactersIsDamageEvenWithValidChecksums() throws {
        var bytes = Self.built.1
        let word = Array("synthetic".utf8)
        let at = try #require((0...(bytes.count - word.count)).first { bytes[$0..<($0 + word.count)].elementsEqual(word) })
        bytes[at + 5] = 0x1B  // "synth" ESC "tic": a terminal escape, forged with valid checksums
        #expect(throws: CatalogError.damaged(path: "x", detail: "a text field holds control characters")) {
            try CatalogFile.decode(Self.rehashed(bytes), path: "x", check: .structure)
        }
    }

    @Test func aFIFOOrADirectoryIsRefusedWithAdviceThatFits() throws {
        let fifo = "/tmp/catalog-file-tests-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        do {
            _ = try CatalogFile.load(path: fifo, check: .structure)
            Issue.record("a FIFO was loaded")
        } catch {
            #expect(error.description == "cannot read catalog \(fifo): it is a pipe or FIFO, not a regular file; give the path of a file")
        }
        do {
            _ = try CatalogFile.load(path: "/tmp", check: .structure)
            Issue.record("a directory was loaded")
        } catch {
            #expect(error.description == "cannot read catalog /tmp: it is a directory; give the path of the catalog file itself")
        }
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
