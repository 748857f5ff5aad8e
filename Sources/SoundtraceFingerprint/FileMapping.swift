import CMappingGuard
import Glibc

/// A whole file mapped read-only (PROT_READ, MAP_PRIVATE), unmapped when the last user lets go.
///
/// The catalog is read through this instead of being copied into arrays: its pages are then clean
/// page cache, which the kernel can drop and read again under memory pressure, where a copy would
/// be anonymous memory that a box without swap must keep (docs/CATALOG.md). Replacing the file by
/// renaming another over it is safe: the mapping keeps the old file. Changing or truncating the
/// mapped file in place is not: reads then see the new bytes, or would fault with SIGBUS past its
/// end. The mapping is guarded against the fault (`CMappingGuard`): such a read sees zeros, and
/// `changedSinceMapping` says the file changed, so that its owner stops using it.
final class FileMapping: @unchecked Sendable {
    // @unchecked: the memory is never written after mmap and `fd` only answers fstat, so both can
    // be used from any thread.
    let bytes: UnsafeRawBufferPointer
    /// Kept open to tell whether the mapped file itself (not whatever the path names now) changed.
    private let fd: Int32
    private let mappedSize: Int
    private let mappedModification: timespec
    /// This mapping's slot in the SIGBUS guard, -1 when unguarded (empty, or no slot free).
    private let guardSlot: Int32

    /// Maps the file at `path`, refusing anything but a regular file (`RegularFile`) and files
    /// larger than `limit`. Errors are the ones `FileBytes.read` gives, so callers report both
    /// ways of reading alike.
    init(path: String, limit: Int) throws(FileBytes.Failure) {
        let (fd, info) = try RegularFile.open(path)
        func fail(_ code: Int32) -> FileBytes.Failure {
            close(fd)
            return .system(code: code, reason: String(cString: strerror(code)))
        }
        let size = Int(info.st_size)
        if size > limit {
            close(fd)
            throw .tooLarge(size)
        }
        if size == 0 {
            // mmap refuses a length of 0; an empty file is simply no bytes.
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            guardSlot = -1
        } else {
            let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0)
            guard let address, address != MAP_FAILED else { throw fail(errno) }
            bytes = UnsafeRawBufferPointer(start: UnsafeRawPointer(address), count: size)
            guardSlot = soundtrace_guard_mapping(address, size)
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

    /// Why `sha256(ofFirst:)` could not read the file.
    struct ReadFailure: Error {
        let reason: String
    }

    /// The SHA-256 of the file's first `length` bytes, read with pread in 1 MiB chunks from the
    /// open file (the one mapped, whatever the path names now), each chunk then advised out of
    /// the page cache (POSIX_FADV_DONTNEED; pages the mapping holds stay): checking a 250 MB
    /// catalog neither maps it into the process nor leaves it filling the cache.
    func sha256(ofFirst length: Int) throws(ReadFailure) -> [UInt8] {
        let chunk = 1 << 20
        // Mapped, not malloc'd: freeing a 1 MiB malloc block would raise glibc's mmap threshold
        // for the rest of the daemon's life, and later buffers of that size would stay in its heap.
        let address = mmap(nil, chunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let address, address != MAP_FAILED else { throw ReadFailure(reason: String(cString: strerror(errno))) }
        defer { munmap(address, chunk) }
        let buffer = UnsafeMutableRawBufferPointer(start: address, count: chunk)
        var hasher = SHA256()
        var offset = 0
        while offset < length {
            let count = pread(fd, buffer.baseAddress, min(chunk, length - offset), off_t(offset))
            if count < 0 {
                if errno == EINTR { continue }
                throw ReadFailure(reason: String(cString: strerror(errno)))
            }
            if count == 0 { throw ReadFailure(reason: "the file ends at byte \(offset), before the \(length) its content hash covers") }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            _ = posix_fadvise(fd, off_t(offset), off_t(count), POSIX_FADV_DONTNEED)
            offset += count
        }
        return hasher.finalize()
    }

    deinit {
        soundtrace_unguard_mapping(guardSlot)
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
        close(fd)
    }

    /// Whether the mapped file was written or truncated since it was mapped (its size or
    /// modification time changed, or a read past its end was caught). A file renamed over the path
    /// is not this file: it does not count.
    var changedSinceMapping: Bool {
        if readPastTheEnd { return true }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return true }
        return Int(info.st_size) != mappedSize || info.st_mtim.tv_sec != mappedModification.tv_sec
            || info.st_mtim.tv_nsec != mappedModification.tv_nsec
    }

    /// Whether a read past the end of the file, truncated under the mapping, was caught: the rest
    /// of the mapping reads as zeros since.
    var readPastTheEnd: Bool { soundtrace_mapping_lost_pages(guardSlot) != 0 }
}
