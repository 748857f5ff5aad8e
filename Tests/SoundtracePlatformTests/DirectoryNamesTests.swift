import Foundation
import Glibc
import Testing

@testable import SoundtracePlatform

/// Folder listings read each name in place. The regression this guards against is only visible
/// under AddressSanitizer (scripts/sanitizers.sh address): copying `struct dirent` out of
/// readdir's buffer read past its end when the last record of a full buffer was short. Enough
/// entries to fill glibc's 32 KiB buffer several times, with names of every length, put short
/// records at the end of a buffer.
@Suite struct DirectoryNamesTests {
    @Test func everyNameOfALargeFolderIsReadWhole() throws {
        let folder = NSTemporaryDirectory() + "directory-names-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var expected: Set<String> = [".", ".."]
        for index in 0..<3000 {
            // 1 to 255 bytes (NAME_MAX), the index first so that every name is different.
            let length = 1 + (index * 37) % 255
            let name = String(String(index).padding(toLength: length, withPad: "n", startingAt: 0).prefix(length))
            guard expected.insert(name).inserted else { continue }
            let fd = open(folder + "/" + name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            try #require(fd >= 0, "cannot create \(name): \(String(cString: strerror(errno)))")
            close(fd)
        }
        let listed = try #require(DirectoryNames.list(folder))
        #expect(listed.count == expected.count)
        #expect(Set(listed) == expected)
    }

    @Test func aFolderThatCannotBeOpenedHasNoListing() {
        #expect(DirectoryNames.list("/nonexistent/folder") == nil)
    }
}
