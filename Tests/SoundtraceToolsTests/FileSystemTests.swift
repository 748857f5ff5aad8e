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

    @Test func replacingFollowsALinkKeepsModeAndOwnerAndRefusesWhatIsNotAFile() throws {
        let folder = "/tmp/soundtrace-fs-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { _ = system("rm -rf '\(folder)'") }
        try FileSystem.makeFolders(folder)
        // A link: the file it points to is replaced, and the link stays a link.
        try FileSystem.replace(folder + "/real", with: [1])
        #expect(chmod(folder + "/real", 0o600) == 0)
        #expect(chown(folder + "/real", 65534, 65534) == 0 || getuid() != 0)
        #expect(symlink("real", folder + "/link") == 0)
        try FileSystem.replace(folder + "/link", with: [2, 3])
        var info = stat()
        #expect(lstat(folder + "/link", &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK)
        #expect(try FileBytesReader.read(folder + "/real") == [2, 3])
        #expect(stat(folder + "/real", &info) == 0 && info.st_mode & 0o7777 == 0o600)
        if getuid() == 0 { #expect(info.st_uid == 65534 && info.st_gid == 65534) }
        // A device, a FIFO or a folder is not renamed over; a read-only file is not replaced.
        #expect(mkfifo(folder + "/fifo", 0o600) == 0)
        try FileSystem.makeFolders(folder + "/dir")
        try FileSystem.replace(folder + "/ro", with: [4])
        #expect(chmod(folder + "/ro", 0o444) == 0)
        for (path, reason) in [
            ("/dev/null", "it is a character device, not a regular file; name a file to write"),
            (folder + "/fifo", "it is a pipe or FIFO, not a regular file; name a file to write"),
            (folder + "/dir", "it is a directory"),
            (folder + "/ro", "it is read-only (mode 444); make it writable first (chmod u+w) if it is to be replaced")
        ] {
            do {
                try FileSystem.replace(path, with: [9])
                Issue.record("\(path) was replaced")
            } catch {
                #expect(error.description == reason, "\(path)")
            }
        }
        #expect(lstat("/dev/null", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)
        #expect(lstat(folder + "/fifo", &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
        #expect(try FileBytesReader.read(folder + "/ro") == [4])
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
