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
    public static func writeAtomically(_ bytes: [UInt8], to path: String) throws(Failure) {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 { throw .system(code: errno, reason: String(cString: strerror(errno))) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return write(fd, base + done, bytes.count - done)
            }
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                close(fd)
                unlink(temporary)
                throw .system(code: code, reason: String(cString: strerror(code)))
            }
            done += n
        }
        if fsync(fd) != 0 || close(fd) != 0 {
            let code = errno
            unlink(temporary)
            throw .system(code: code, reason: String(cString: strerror(code)))
        }
        if rename(temporary, path) != 0 {
            let code = errno
            unlink(temporary)
            throw .system(code: code, reason: String(cString: strerror(code)))
        }
    }
}
