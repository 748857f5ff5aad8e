import Glibc

/// Opening a file that is to be read whole: only a regular file is (and /dev/null, an empty one),
/// because its size is known and reading it ends. A FIFO would block the opener until something writes to it (the daemon's
/// main loop, which also takes its signals), a pipe reports a size of 0 (a configuration read
/// through one came out empty), and a device such as /dev/zero never ends.
enum RegularFile {
    /// The descriptor and status of the regular file at `path`. O_NONBLOCK makes opening a FIFO
    /// return at once so that it can be refused; on a regular file it changes nothing.
    static func open(_ path: String) throws(FileBytes.Failure) -> (fd: Int32, info: stat) {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 { throw .system(code: errno, reason: String(cString: strerror(errno))) }
        var info = stat()
        if fstat(fd, &info) != 0 {
            let code = errno
            close(fd)
            throw .system(code: code, reason: String(cString: strerror(code)))
        }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG || isNull(info) else {
            close(fd)
            if kind == S_IFDIR { throw .system(code: EISDIR, reason: "it is a directory") }
            throw .system(code: EINVAL, reason: "it is \(describe(kind)), not a regular file; give the path of a file")
        }
        return (fd, info)
    }

    /// /dev/null reads as an empty file and is used as one (`soundtraced --config /dev/null`: the
    /// built-in defaults and nothing else).
    private static func isNull(_ info: stat) -> Bool {
        var null = stat()
        guard (info.st_mode & S_IFMT) == S_IFCHR, stat("/dev/null", &null) == 0 else { return false }
        return (null.st_mode & S_IFMT) == S_IFCHR && null.st_rdev == info.st_rdev
    }

    static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFIFO: return "a pipe or FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "not a file"
        }
    }
}
