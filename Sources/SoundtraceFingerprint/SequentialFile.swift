import Glibc

/// A file read front to back a block at a time: a recording of an hour is hundreds of megabytes
/// as a 44.1 kHz stereo WAV, more than a small board should hold at once.
final class SequentialFile {
    let size: Int
    private let fd: Int32
    private(set) var position = 0

    /// Opens the file at `path`, refusing anything but a regular file (`RegularFile`) and files
    /// larger than `limit`, with the errors `FileBytes.read` gives.
    init(path: String, limit: Int) throws(FileBytes.Failure) {
        let (fd, info) = try RegularFile.open(path)
        let size = Int(info.st_size)
        if size > limit {
            close(fd)
            throw .tooLarge(size)
        }
        self.fd = fd
        self.size = size
    }

    deinit { close(fd) }

    /// The next `count` bytes, fewer only where the file ends (also where it ends sooner than the
    /// size it had when opened: it was cut while being read).
    func read(_ count: Int) throws(FileBytes.Failure) -> [UInt8] {
        let wanted = min(count, size - position)
        var bytes = [UInt8](repeating: 0, count: wanted)
        var done = 0
        while done < wanted {
            let n = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.read(fd, base + done, wanted - done)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw .system(code: errno, reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            done += n
        }
        if done < wanted { bytes.removeLast(wanted - done) }
        position += done
        return bytes
    }
}
