import Glibc

/// The database file's path and folder, checked before SQLite touches them so that a missing or
/// read-only folder gives an error naming the folder and the fix rather than SQLite's "unable to open".
struct DatabaseLocation {
    let path: String
    let directory: String

    /// The suffixes of the files SQLite keeps next to a database.
    static let companionSuffixes = ["-journal", "-wal", "-shm"]

    init(path: String) throws(HistoryError) {
        guard !path.isEmpty else { throw .invalidPath(path: path, problem: "the path is empty") }
        guard !path.unicodeScalars.contains("\0") else { throw .invalidPath(path: path, problem: "the path contains a NUL byte") }
        // Leave room for ".corrupt-YYYYMMDDTHHMMSSZ-NN-journal" when the file has to be moved aside.
        guard path.utf8.count <= Int(PATH_MAX) - 64 else {
            throw .invalidPath(path: path, problem: "the path is longer than \(Int(PATH_MAX) - 64) bytes")
        }
        let parts = Self.split(path)
        guard !parts.name.isEmpty, parts.name != ".", parts.name != ".." else {
            throw .invalidPath(path: path, problem: "it names a folder, not a file")
        }
        self.path = path
        self.directory = parts.directory
    }

    /// Splits a path into its folder ("." when there is none) and its last component.
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let name = String(path[path.index(after: slash)...])
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, name)
    }

    /// Checks that the folder exists and is writable and that the file, if present, is a writable regular file.
    func checkUsable() throws(HistoryError) {
        var info = stat()
        if stat(directory, &info) != 0 {
            switch errno {
            case ENOTDIR: throw .notADirectory(path: path, directory: directory)
            case EACCES: throw .permissionDenied(path: path, target: "the folder \(directory)")
            default: throw .directoryMissing(path: path, directory: directory)
            }
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .notADirectory(path: path, directory: directory) }
        // SQLite creates the -wal and -shm files next to the database, so the folder itself must be writable.
        try checkAccess(directory, W_OK | X_OK, describedAs: "the folder \(directory)")
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFREG else { throw .notAFile(path: path) }
            try checkAccess(path, R_OK | W_OK, describedAs: "the file \(path)")
        }
    }

    private func checkAccess(_ target: String, _ mode: Int32, describedAs description: String) throws(HistoryError) {
        guard access(target, mode) != 0 else { return }
        switch errno {
        case EROFS: throw .readOnlyFileSystem(path: path, directory: directory)
        default: throw .permissionDenied(path: path, target: description)
        }
    }

    /// True when a file (or dangling symlink) exists at `path`.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Makes renames and file creations in the folder durable across power loss.
    func syncDirectory() {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        _ = Glibc.close(descriptor)
    }
}
