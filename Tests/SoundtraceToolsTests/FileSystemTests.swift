import Glibc
import Testing

@testable import SoundtraceTools

@Suite struct FileSystemTests {
    @Test(arguments: [
        ("catalog/manifest.json", "catalog"), ("manifest.json", ""), ("/manifest.json", "/"), ("/", "/"),
        ("a/b/", "a"), ("a//b", "a"), ("/srv/kiosk/catalog/m.json", "/srv/kiosk/catalog"), ("", "")
    ])
    func theFolderOfAPathIsWhatNSStringGave(path: String, folder: String) {
        #expect(FileSystem.directory(of: path) == folder)
    }

    @Test func joiningAndResolvingArePureText() {
        #expect(FileSystem.join("", "audio/a.wav") == "audio/a.wav")
        #expect(FileSystem.join("catalog/", "audio/a.wav") == "catalog/audio/a.wav")
        #expect(FileSystem.join("/", "a.wav") == "/a.wav")
        #expect(FileSystem.absolute("/srv/./kiosk//catalog/../audio/a.wav") == "/srv/kiosk/audio/a.wav")
        #expect(FileSystem.absolute("/..") == "/")
        #expect(FileSystem.absolute("x/y").hasSuffix("/x/y") && FileSystem.absolute("x/y").hasPrefix("/"))
    }

    @Test func copyMakesANewSyncedFileAndNeverOverwrites() throws {
        let folder = "/tmp/soundtrace-fs-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { _ = system("rm -rf '\(folder)'") }
        try FileSystem.makeFolders(folder + "/a/b")
        try FileSystem.makeFolders(folder + "/a/b")  // already there: fine
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try FileSystem.replace(folder + "/a/source", with: bytes)
        try FileSystem.copy(folder + "/a/source", to: folder + "/a/b/copy")
        let copied = try FileBytesReader.read(folder + "/a/b/copy")
        #expect(copied == bytes)
        // An existing destination is refused and left as it was.
        try FileSystem.replace(folder + "/a/b/other", with: [1, 2, 3])
        #expect(throws: FileSystem.Failure.self) { try FileSystem.copy(folder + "/a/source", to: folder + "/a/b/other") }
        #expect(try FileBytesReader.read(folder + "/a/b/other") == [1, 2, 3])
        // A missing source leaves no destination behind.
        #expect(throws: FileSystem.Failure.self) { try FileSystem.copy(folder + "/nope", to: folder + "/a/b/never") }
        #expect(!FileSystem.exists(folder + "/a/b/never"))
        #expect(FileSystem.exists(folder + "/a/b/copy"))
    }

    @Test func oneDecimalIsPrintfsForLevels() {
        #expect(Text.oneDecimal(-41.26) == "-41.3")
        #expect(Text.oneDecimal(-0.04) == "0.0")
        #expect(Text.oneDecimal(12) == "12.0")
        #expect(Text.oneDecimal(-Double.infinity) == "-inf")
    }
}

private enum FileBytesReader {
    static func read(_ path: String) throws -> [UInt8] {
        guard let file = fopen(path, "rb") else { throw FileSystem.Failure(code: errno) }
        defer { fclose(file) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n == 0 { break }
            out += chunk[0..<n]
        }
        return out
    }
}
