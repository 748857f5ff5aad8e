import Glibc

/// A fresh, empty folder under the system's temporary directory, removed with everything in it
/// when the last reference goes. A test holds it for as long as it uses the files, so nothing it
/// wrote is left behind in /tmp after `swift test`, however the test ends.
public final class TemporaryFolder: Sendable {
    public let path: String

    /// Creates `<TMPDIR or /tmp>/<prefix>-XXXXXX`.
    public init(_ prefix: String) throws(TemporaryFolderFailure) {
        let root = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((root + "/" + prefix + "-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else {
            throw TemporaryFolderFailure(description: "mkdtemp in \(root): \(String(cString: strerror(errno)))")
        }
        path = String(cString: created)
    }

    deinit { Self.removeTree(path) }

    /// Removes `path` and everything below it, without following symbolic links.
    static func removeTree(_ path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        if status.st_mode & S_IFMT == S_IFDIR, let directory = opendir(path) {
            var names: [String] = []
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(directory)
            for name in names { removeTree(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}

public struct TemporaryFolderFailure: Error, CustomStringConvertible {
    public let description: String
}
