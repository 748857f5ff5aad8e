import Glibc
import SoundtraceFingerprint

/// Whether a command may write its output over what is at a path. A mistyped or swapped argument
/// (`explain --svg rec.wav other.wav`, `catalog build --out manifest.json`) must not destroy a
/// recording, a manifest or a catalog, while rewriting one's own earlier output must still work.
enum OutputTarget {
    /// Why an SVG picture must not replace what is at `path`: anything but an empty file or an
    /// earlier picture (which starts, after a byte order mark and white space, as "<svg" or
    /// "<?xml"). Nil when it may, or when the path cannot be read (the write then says why).
    static func svgRefusal(toReplace path: String) -> String? {
        guard let head = head(of: path) else { return nil }
        var start = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < head.count, [0x20, 0x09, 0x0A, 0x0D].contains(head[start]) { start += 1 }
        let rest = head[start...]
        if rest.starts(with: Array("<svg".utf8)) || rest.starts(with: Array("<?xml".utf8)) { return nil }
        return refusal(path, "is not an SVG picture")
    }

    /// Why a catalog must not replace what is at `path`: the manifest or one of its recordings
    /// (the same file, whatever the path says), or any WAV or JSON file. Anything else may be
    /// replaced: a damaged old catalog, even one whose first bytes are lost, is rebuilt over.
    static func catalogRefusal(toReplace path: String, manifest: String, recordings: [String]) -> String? {
        guard let head = head(of: path), let target = identity(of: path) else { return nil }
        if identity(of: manifest) == target { return refusal(path, "is the manifest") }
        if recordings.contains(where: { identity(of: $0) == target }) { return refusal(path, "is one of the manifest's recordings") }
        if ["RIFF", "RIFX", "RF64"].contains(where: { head.starts(with: Array($0.utf8)) }) {
            return refusal(path, "is a WAV recording")
        }
        if let first = head.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }), first == UInt8(ascii: "{") {
            return refusal(path, "is a JSON file")
        }
        return nil
    }

    private static func refusal(_ path: String, _ what: String) -> String {
        "\(path) exists and \(what); refusing to replace it (name another file, or remove this one first)"
    }

    /// The first bytes of the regular, non-empty file at `path` (a link followed); nil otherwise.
    private static func head(of path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size > 0 else { return nil }
        var head = [UInt8](repeating: 0, count: 64)
        let count = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return count > 0 ? Array(head[0..<count]) : nil
    }

    private struct Identity: Equatable {
        let device: UInt
        let inode: UInt
    }

    private static func identity(of path: String) -> Identity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Identity(device: UInt(info.st_dev), inode: UInt(info.st_ino))
    }
}
