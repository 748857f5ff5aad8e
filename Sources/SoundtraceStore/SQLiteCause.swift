import CSQLite
import Glibc

/// The underlying reason SQLite (or the operating system beneath it) gave for a failure.
public struct SQLiteCause: Error, Sendable, Equatable, CustomStringConvertible {
    /// SQLite's extended result code, e.g. 13 (`SQLITE_FULL`) or 778 (`SQLITE_IOERR_WRITE`).
    public let code: Int32
    /// SQLite's message for this failure.
    public let message: String
    /// The `errno` of the failed system call, or 0 when there was none.
    public let systemErrno: Int32

    /// A cause with the given extended code, message and system errno.
    public init(code: Int32, message: String, systemErrno: Int32 = 0) {
        self.code = code
        self.message = message
        self.systemErrno = systemErrno
    }

    /// The primary result code (the low byte of the extended code), e.g. `SQLITE_IOERR` for `SQLITE_IOERR_WRITE`.
    public var primaryCode: Int32 { code & 0xFF }

    /// True when the disk or the database size limit is full.
    public var isDiskFull: Bool { primaryCode == SQLITE_FULL || systemErrno == ENOSPC }

    /// True when SQLite found the file damaged or not a database at all.
    public var isCorruption: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }

    public var description: String {
        var text = "SQLite error \(code) (\(Self.name(of: primaryCode))): \(message)"
        if systemErrno != 0 {
            text += " [errno \(systemErrno): \(String(cString: strerror(systemErrno)))]"
        }
        return text
    }

    /// The symbolic name of a primary result code, so that log lines can be searched for it.
    static func name(of primary: Int32) -> String {
        switch primary {
        case SQLITE_ERROR: return "SQLITE_ERROR"
        case SQLITE_INTERNAL: return "SQLITE_INTERNAL"
        case SQLITE_PERM: return "SQLITE_PERM"
        case SQLITE_ABORT: return "SQLITE_ABORT"
        case SQLITE_BUSY: return "SQLITE_BUSY"
        case SQLITE_LOCKED: return "SQLITE_LOCKED"
        case SQLITE_NOMEM: return "SQLITE_NOMEM"
        case SQLITE_READONLY: return "SQLITE_READONLY"
        case SQLITE_INTERRUPT: return "SQLITE_INTERRUPT"
        case SQLITE_IOERR: return "SQLITE_IOERR"
        case SQLITE_CORRUPT: return "SQLITE_CORRUPT"
        case SQLITE_NOTFOUND: return "SQLITE_NOTFOUND"
        case SQLITE_FULL: return "SQLITE_FULL"
        case SQLITE_CANTOPEN: return "SQLITE_CANTOPEN"
        case SQLITE_PROTOCOL: return "SQLITE_PROTOCOL"
        case SQLITE_SCHEMA: return "SQLITE_SCHEMA"
        case SQLITE_TOOBIG: return "SQLITE_TOOBIG"
        case SQLITE_CONSTRAINT: return "SQLITE_CONSTRAINT"
        case SQLITE_MISMATCH: return "SQLITE_MISMATCH"
        case SQLITE_MISUSE: return "SQLITE_MISUSE"
        case SQLITE_NOLFS: return "SQLITE_NOLFS"
        case SQLITE_AUTH: return "SQLITE_AUTH"
        case SQLITE_RANGE: return "SQLITE_RANGE"
        case SQLITE_NOTADB: return "SQLITE_NOTADB"
        default: return "code \(primary)"
        }
    }
}
