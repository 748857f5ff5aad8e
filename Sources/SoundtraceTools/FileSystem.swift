import Glibc
import SoundtraceFingerprint

/// The few file operations the CLI needs, on the C library (the CLI does not link Foundation):
/// path text as NSString spelled it, whether a path exists, a streamed copy, folders.
enum FileSystem {
    /// The folder part of a path: "catalog/manifest.json" → "catalog", "manifest.json" → "",
    /// "/manifest.json" → "/", trailing slashes ignored.
    static func directory(of path: String) -> String {
        var rest = Substring(path)
        while rest.count > 1, rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let slash = rest.lastIndex(of: "/") else { return "" }
        var folder = rest[..<slash]
        while folder.hasSuffix("/") { folder = folder.dropLast() }
        return folder.isEmpty ? "/" : String(folder)
    }

    /// `component` inside `folder` ("" is the working folder).
    static func join(_ folder: String, _ component: String) -> String {
        guard !folder.isEmpty else { return component }
        var base = Substring(folder)
        while base.count > 1, base.hasSuffix("/") { base = base.dropLast() }
        return base == "/" ? "/" + component : base + "/" + component
    }

    /// An absolute path without ".", ".." or repeated slashes, resolved against the working folder
    /// by text alone (symbolic links are not followed), as URL.standardizedFileURL did.
    static func absolute(_ path: String) -> String {
        var full = path
        if !path.hasPrefix("/") {
            if let cwd = getcwd(nil, 0) {
                full = join(String(cString: cwd), path)
                free(cwd)
            }
        }
        var parts: [Substring] = []
        for part in full.split(separator: "/") {
            if part == "." { continue }
            if part == ".." {
                _ = parts.popLast()
                continue
            }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// Whether `path` is a folder (a link to one counts).
    static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// What went wrong, in the C library's words.
    struct Failure: Error, CustomStringConvertible {
        let code: Int32
        /// Set where the C library's words for `code` would not say what was wrong.
        var reason: String? = nil
        var description: String { reason ?? String(cString: strerror(code)) }
    }

    /// Creates `path` and any missing folder above it.
    static func makeFolders(_ path: String) throws(Failure) {
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/" + part
            if mkdir(current, 0o755) != 0, errno != EEXIST { throw Failure(code: errno) }
        }
    }

    /// Copies `source` to a new file `destination` (never over an existing one), synced before it
    /// returns; a failed copy leaves no destination behind.
    static func copy(_ source: String, to destination: String) throws(Failure) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw Failure(code: errno) }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw Failure(code: errno) }
        var failure: Int32 = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        copying: while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                failure = errno
                break
            }
            if count == 0 { break }
            var done = 0
            while done < count {
                let written = buffer.withUnsafeBytes { write(output, $0.baseAddress! + done, count - done) }
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    break copying
                }
                done += written
            }
        }
        if failure == 0, fsync(output) != 0 { failure = errno }
        if close(output) != 0, failure == 0 { failure = errno }
        if failure != 0 {
            unlink(destination)
            throw Failure(code: failure)
        }
    }

    /// Replaces `path` with `bytes` atomically (a synced temporary file renamed over it).
    static func replace(_ path: String, with bytes: [UInt8]) throws(Failure) {
        do {
            try FileBytes.writeAtomically(bytes, to: path)
        } catch {
            switch error {
            case let .system(code, reason): throw Failure(code: code, reason: reason)
            case .tooLarge: throw Failure(code: EFBIG)
            }
        }
    }
}
