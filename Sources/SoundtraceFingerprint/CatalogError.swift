import Glibc

/// Why a catalog file could not be loaded or written. Each description says what failed and how to fix it.
public enum CatalogError: Error, Equatable, CustomStringConvertible {
    case notFound(path: String)
    case cannotRead(path: String, reason: String)
    case cannotWrite(path: String, reason: String)
    case tooLarge(path: String, bytes: Int, limit: Int)
    case notACatalog(path: String)
    case unsupportedFormatVersion(path: String, found: UInt32, supported: UInt32)
    case truncated(path: String, section: String)
    case contentHashMismatch(path: String)
    case structureChecksumMismatch(path: String)
    case parameterMismatch(path: String, field: String, stored: UInt32, expected: UInt32)
    case damaged(path: String, detail: String)
    case cannotBuild(detail: String)
    /// The file was written or truncated in place while it was mapped (`Catalog.checkUnchangedSinceLoading`).
    case rewrittenInPlace(path: String)

    static let rebuildHint = "rebuild it with: soundtrace catalog build"

    /// What is wrong, without the closing advice to copy or rebuild the file: for a caller that
    /// gives fuller advice of its own (the daemon names the command for its path, and how to
    /// replace the file it has mapped), so that the advice is not given twice.
    public var problem: String {
        if case let .notFound(path) = self { return "catalog \(path) does not exist" }
        let text = description
        for advice in ["; copy it again or \(Self.rebuildHint)", "; \(Self.rebuildHint)"] where text.hasSuffix(advice) {
            return String(text.dropLast(advice.count))
        }
        return text
    }

    /// Advice that fits why a file could not be read: permissions only when they were the reason.
    static func readAdvice(_ reason: String) -> String {
        if reason == String(cString: strerror(EACCES)) || reason == String(cString: strerror(EPERM)) {
            return "; check its permissions"
        }
        if reason == "it is a directory" { return "; give the path of the catalog file itself" }
        return ""
    }

    public var description: String {
        switch self {
        case let .notFound(path):
            return "catalog \(path) does not exist; \(Self.rebuildHint) (or pass --catalog PATH)"
        case let .cannotRead(path, reason):
            return "cannot read catalog \(path): \(reason)\(Self.readAdvice(reason))"
        case let .cannotWrite(path, reason):
            return "cannot write catalog \(path): \(reason); check that the folder exists and is writable"
        case let .tooLarge(path, bytes, limit):
            return
                "catalog \(path) is \(bytes) bytes, over the \(limit)-byte limit; it is not a Soundtrace catalog or is damaged; \(Self.rebuildHint)"
        case let .notACatalog(path):
            return "\(path) is not a Soundtrace catalog (wrong magic bytes); \(Self.rebuildHint)"
        case let .unsupportedFormatVersion(path, found, supported):
            return "catalog \(path) has format version \(found), but this soundtrace reads version \(supported); \(Self.rebuildHint)"
        case let .truncated(path, section):
            return "catalog \(path) is truncated (it ends inside the \(section)); copy it again or \(Self.rebuildHint)"
        case let .contentHashMismatch(path):
            return "catalog \(path) is corrupt: its content does not match its SHA-256; copy it again or \(Self.rebuildHint)"
        case let .structureChecksumMismatch(path):
            return
                "catalog \(path) is corrupt: its header, parameters, references or index directory do not match their checksum; copy it again or \(Self.rebuildHint)"
        case let .parameterMismatch(path, field, stored, expected):
            return
                "catalog \(path) was built with engine parameter \(field) = \(stored), but this soundtrace uses \(expected); \(Self.rebuildHint)"
        case let .damaged(path, detail):
            return "catalog \(path) is damaged (\(detail)); \(Self.rebuildHint)"
        case let .cannotBuild(detail):
            return "cannot build the catalog: \(detail)"
        case let .rewrittenInPlace(path):
            return
                "catalog \(path) was rewritten in place while it was in use, so what was read from it cannot be trusted; replace catalog files rather than rewriting them (`soundtrace catalog build --out \(path)`, or `install -m 0644 FILE \(path)`), then try again"
        }
    }
}
