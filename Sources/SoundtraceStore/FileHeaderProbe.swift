import Glibc

/// A first look at the database file's first bytes, before SQLite opens it.
enum FileHeaderProbe {
    /// What the first bytes say.
    enum Finding: Equatable {
        /// There is no file yet.
        case absent
        /// A zero-byte file: SQLite treats it as an empty database (e.g. created just before a crash).
        case empty
        /// The file starts with a complete SQLite header.
        case sqlite
        /// The file starts like SQLite but ends before the 100-byte header does.
        case truncatedHeader(bytes: Int)
        /// The file is not an SQLite database at all.
        case notSQLite
        /// The file could not be read.
        case unreadable(errno: Int32)
    }

    /// "SQLite format 3" followed by a NUL: the first 16 bytes of every SQLite 3 database.
    static let magic: [UInt8] = Array("SQLite format 3".utf8) + [0]
    static let headerSize = 100

    static func inspect(_ path: String) -> Finding {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return errno == ENOENT ? .absent : .unreadable(errno: errno) }
        defer { _ = close(descriptor) }
        var header = [UInt8](repeating: 0, count: headerSize)
        var filled = 0
        while filled < headerSize {
            let count = header.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress.map { $0 + filled }, headerSize - filled)
            }
            if count < 0 {
                if errno == EINTR { continue }
                return .unreadable(errno: errno)
            }
            if count == 0 { break }
            filled += count
        }
        if filled == 0 { return .empty }
        let comparable = min(filled, magic.count)
        guard header[0..<comparable].elementsEqual(magic[0..<comparable]) else { return .notSQLite }
        return filled < headerSize ? .truncatedHeader(bytes: filled) : .sqlite
    }
}
