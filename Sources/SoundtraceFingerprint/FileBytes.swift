import Glibc

/// Reads and writes whole files without Foundation, which the daemon does not link.
public enum FileBytes {
    public enum Failure: Error, Equatable {
        case system(code: Int32, reason: String)
        case tooLarge(Int)
    }

    /// The file's bytes, refusing files larger than `limit`.
    public static func read(path: String, limit: Int) throws(Failure) -> [UInt8] {
        let file = try SequentialFile(path: path, limit: limit)
        return try file.read(file.size)
    }

    /// The first `count` bytes of a file (fewer if it is shorter) and the file's size: enough to
    /// read a header without reading the rest.
    public static func head(path: String, count: Int) throws(Failure) -> (bytes: [UInt8], size: Int) {
        let file = try SequentialFile(path: path, limit: Int.max)
        return (try file.read(count), file.size)
    }

    /// Writes `bytes` to a temporary file beside `path`, syncs it and renames it over `path`, so a
    /// reader never sees half a file and a power cut leaves the old one or the new one.
    ///
    /// What `path` names is respected (`replaceableTarget`): a symbolic link is followed and the
    /// file it points to is replaced, not the link; a device, FIFO or folder there is refused
    /// instead of being renamed over (as root, `--svg /dev/full` would have replaced the device
    /// node); a file without write permission is refused; and the new file keeps the old one's
    /// mode and, where the system allows, its owner.
    public static func writeAtomically(_ bytes: [UInt8], to path: String) throws(Failure) {
        let target = try replaceableTarget(path)
        var existing = stat()
        let replacing = stat(target, &existing) == 0
        let temporary = target + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
        if fd < 0 { throw .system(code: errno, reason: String(cString: strerror(errno))) }
        func fail(_ code: Int32) -> Failure {
            close(fd)
            unlink(temporary)
            return .system(code: code, reason: String(cString: strerror(code)))
        }
        if replacing {
            if fchmod(fd, existing.st_mode & 0o7777) != 0 { throw fail(errno) }
            // Only root may give a file away; anyone else's new file is theirs, as a copy would be.
            _ = fchown(fd, existing.st_uid, existing.st_gid)
        }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return write(fd, base + done, bytes.count - done)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw fail(errno)
            }
            done += n
        }
        if fsync(fd) != 0 { throw fail(errno) }
        if close(fd) != 0 {
            let code = errno
            unlink(temporary)
            throw .system(code: code, reason: String(cString: strerror(code)))
        }
        if rename(temporary, target) != 0 {
            let code = errno
            unlink(temporary)
            throw .system(code: code, reason: String(cString: strerror(code)))
        }
    }

    /// The file that writing `path` replaces: `path` itself, or the file a symbolic link there
    /// points to. Refused: a link that leads nowhere, anything there that is not a regular file,
    /// and a file nobody may write (mode without any write bit: root could, but it was made
    /// read-only on purpose).
    static func replaceableTarget(_ path: String) throws(Failure) -> String {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return path }
            throw .system(code: errno, reason: String(cString: strerror(errno)))
        }
        var target = path
        if (info.st_mode & S_IFMT) == S_IFLNK {
            guard let resolved = realpath(path, nil) else {
                let code = errno
                throw .system(code: code, reason: "it is a symbolic link that cannot be followed (\(String(cString: strerror(code))))")
            }
            target = String(cString: resolved)
            free(resolved)
            guard stat(target, &info) == 0 else { throw .system(code: errno, reason: String(cString: strerror(errno))) }
        }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG else {
            if kind == S_IFDIR { throw .system(code: EISDIR, reason: "it is a directory") }
            throw .system(code: EINVAL, reason: "it is \(RegularFile.describe(kind)), not a regular file; name a file to write")
        }
        guard info.st_mode & 0o222 != 0 else {
            throw .system(
                code: EACCES,
                reason:
                    "it is read-only (mode \(String(info.st_mode & 0o7777, radix: 8))); make it writable first (chmod u+w) if it is to be replaced"
            )
        }
        return target
    }
}
