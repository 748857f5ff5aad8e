import Glibc

/// A whole file mapped read-only (PROT_READ, MAP_PRIVATE), unmapped when the last user lets go.
///
/// The catalog is read through this instead of being copied into arrays: its pages are then clean
/// page cache, which the kernel can drop and read again under memory pressure, where a copy would
/// be anonymous memory that a box without swap must keep (docs/CATALOG.md). Replacing the file by
/// renaming another over it is safe: the mapping keeps the old file. Changing or truncating the
/// mapped file in place is not: reads then see the new bytes, or fault with SIGBUS past its end.
final class FileMapping: @unchecked Sendable {
    // @unchecked: the memory is never written after mmap and `fd` only answers fstat, so both can
    // be used from any thread.
    let bytes: UnsafeRawBufferPointer
    /// Kept open to tell whether the mapped file itself (not whatever the path names now) changed.
    private let fd: Int32
    private let mappedSize: Int
    private let mappedModification: timespec

    /// Maps the file at `path`, refusing directories and files larger than `limit`. Errors are the
    /// ones `FileBytes.read` gives, so callers report both ways of reading alike.
    init(path: String, limit: Int) throws(FileBytes.Failure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw .system(code: errno, reason: String(cString: strerror(errno))) }
        func fail(_ code: Int32, _ reason: String? = nil) -> FileBytes.Failure {
            close(fd)
            return .system(code: code, reason: reason ?? String(cString: strerror(code)))
        }
        var info = stat()
        if fstat(fd, &info) != 0 { throw fail(errno) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw fail(EISDIR, "it is a directory") }
        let size = Int(info.st_size)
        if size > limit {
            close(fd)
            throw .tooLarge(size)
        }
        if size == 0 {
            // mmap refuses a length of 0; an empty file is simply no bytes.
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
        } else {
            let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0)
            guard let address, address != MAP_FAILED else { throw fail(errno) }
            bytes = UnsafeRawBufferPointer(start: UnsafeRawPointer(address), count: size)
        }
        self.fd = fd
        mappedSize = size
        mappedModification = info.st_mtim
    }

    /// Drops this mapping's page table entries (MADV_DONTNEED). For a private read-only file
    /// mapping that discards nothing: no page was ever written, so the pages stay in the page
    /// cache and the next read maps them again (a minor fault, or a read from storage if the
    /// kernel dropped them meanwhile). Safe while other threads read the mapping.
    func releaseResidentPages() {
        guard let base = bytes.baseAddress else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: base), bytes.count, MADV_DONTNEED)
    }

    deinit {
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
        close(fd)
    }

    /// Whether the mapped file was written or truncated since it was mapped (its size or
    /// modification time changed). A file renamed over the path is not this file: it does not count.
    var changedSinceMapping: Bool {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return true }
        return Int(info.st_size) != mappedSize || info.st_mtim.tv_sec != mappedModification.tv_sec
            || info.st_mtim.tv_nsec != mappedModification.tv_nsec
    }
}
