import Foundation
import Glibc
import SoundtraceTestSupport
import Testing

@testable import SoundtraceFingerprint

/// A catalog file rewritten in place (`cp new.catalog PATH` truncates, then writes) under a process
/// that has it mapped: no read may crash the process, and nothing decided on it may be trusted.
@Suite struct CatalogRewrittenInPlaceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .path
    static let samplePath = root + "/catalog/soundtrace.catalog"

    private let scratch: TemporaryFolder

    init() throws { scratch = try TemporaryFolder("soundtrace-rewritten") }

    /// A copy of the sample catalog, loaded from the copy.
    private func loadedCopy(_ name: String) throws -> (path: String, catalog: Catalog, bytes: [UInt8]) {
        let bytes = try FileBytes.read(path: Self.samplePath, limit: 1 << 30)
        let path = scratch.path + "/" + name
        try FileBytes.writeAtomically(bytes, to: path)
        return (path, try CatalogFile.load(path: path, check: .structure), bytes)
    }

    /// A microphone's 6 s of catalog recording 3, from 20 s in: a sure match against the sound file.
    private func excerpt(_ catalog: Catalog) throws -> [Int16] {
        let audio = try RecordingLoader.load(path: Self.root + "/catalog/" + catalog.references[3].audio.sourceFile).audio
        return TestAudio.micChain(TestAudio.excerpt(audio, from: 20 * 8000, count: 6 * 8000), seed: 4).samples
    }

    private func verdict(_ samples: [Int16], _ catalog: Catalog) throws -> Verdict {
        let matcher = try QueryMatcher(catalog: catalog)
        var start = 0
        while start < samples.count {
            matcher.push(Array(samples[start..<min(samples.count, start + 1024)]))
            start += 1024
        }
        matcher.finish()
        return matcher.verdict()
    }

    @Test func aReadPastTheEndOfATruncatedMappingSeesZerosAndIsRecorded() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let path = scratch.path + "/three-pages"
        try FileBytes.writeAtomically([UInt8](repeating: 0xAB, count: 3 * page), to: path)
        let mapping = try FileMapping(path: path, limit: 1 << 20)
        #expect(mapping.bytes[2 * page + 100] == 0xAB)
        #expect(!mapping.readPastTheEnd)
        #expect(!mapping.changedSinceMapping)

        #expect(truncate(path, off_t(page)) == 0)
        // Past the new end: without the guard this read is SIGBUS and ends the test process.
        #expect(mapping.bytes[2 * page + 100] == 0)
        #expect(mapping.bytes[page + 1] == 0)
        #expect(mapping.readPastTheEnd)
        #expect(mapping.changedSinceMapping)
        // What the file still holds reads as before.
        #expect(mapping.bytes[page - 1] == 0xAB)

        // Another mapping is guarded on its own.
        let other = try FileMapping(path: Self.samplePath, limit: 1 << 30)
        #expect(!other.readPastTheEnd)
        #expect(!other.changedSinceMapping)
    }

    @Test func aQueryAgainstACatalogTruncatedUnderItIsRefusedNotACrash() throws {
        let (path, catalog, bytes) = try loadedCopy("truncated.catalog")
        let samples = try excerpt(catalog)
        let before = try verdict(samples, catalog)
        #expect(before.isMatch && before.candidate == 3)
        try catalog.checkUnchangedSinceLoading()

        #expect(truncate(path, off_t(bytes.count / 3)) == 0)
        _ = try verdict(samples, catalog)
        #expect(catalog.content.file?.readPastTheEnd == true, "the query read nothing past the new end")
        #expect(throws: CatalogError.rewrittenInPlace(path: path)) { try catalog.checkUnchangedSinceLoading() }
    }

    /// `cp -p` of another catalog of the same length keeps the size and sets the modification time
    /// back to the source's: if that equals the old file's, only the bytes tell. The file then states
    /// another content hash than the one loaded, which each check reads through the mapping.
    @Test func aCatalogRewrittenWithTheSameSizeAndTimeIsStillSeen() throws {
        let (path, catalog, bytes) = try loadedCopy("same-size-and-time.catalog")
        var before = stat()
        try #require(stat(path, &before) == 0)
        try catalog.checkUnchangedSinceLoading()
        // Another catalog: the same length, another stated hash (and so other content).
        var other = bytes
        for i in (other.count - 32)..<other.count { other[i] ^= 0x5A }
        let fd = open(path, O_WRONLY)
        try #require(fd >= 0)
        let written = other.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        var times = [before.st_atim, before.st_mtim]
        let restored = futimens(fd, &times)
        close(fd)
        try #require(written == bytes.count && restored == 0)
        var after = stat()
        try #require(stat(path, &after) == 0)
        try #require(after.st_size == before.st_size && after.st_mtim.tv_sec == before.st_mtim.tv_sec)
        try #require(after.st_mtim.tv_nsec == before.st_mtim.tv_nsec, "size and modification time as loaded")
        #expect(throws: CatalogError.rewrittenInPlace(path: path)) { try catalog.checkUnchangedSinceLoading() }
        // Written back as it was, with its times: the loaded file again, nothing to refuse.
        let back = open(path, O_WRONLY)
        try #require(back >= 0)
        let rewritten = bytes.withUnsafeBytes { pwrite(back, $0.baseAddress, $0.count, 0) }
        let timesBack = futimens(back, &times)
        close(back)
        try #require(rewritten == bytes.count && timesBack == 0)
        #expect(!catalog.fileChangedSinceLoading)
    }

    @Test func aCatalogScrambledInPlaceNeverTrapsALookup() throws {
        let (path, catalog, bytes) = try loadedCopy("scrambled.catalog")
        let samples = try excerpt(catalog)
        // The same size, other bytes: directory, entries, signatures and levels all say anything.
        var generator = TestAudio.Generator(state: 11)
        let noise = (0..<bytes.count).map { _ in UInt8(truncatingIfNeeded: generator.next() >> 24) }
        let fd = open(path, O_WRONLY)
        try #require(fd >= 0)
        let written = noise.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        close(fd)
        try #require(written == bytes.count)
        _ = try verdict(samples, catalog)
        #expect(throws: CatalogError.rewrittenInPlace(path: path)) { try catalog.checkUnchangedSinceLoading() }
        #expect(CatalogError.rewrittenInPlace(path: path).description.contains("install -m 0644 FILE \(path)"))
    }
}
