import Glibc
import SoundtraceFingerprint

/// Writes a manifest in its canonical form: two-space indent, the fields in the order the docs
/// show, metadata keys sorted (as the catalog stores them). What it writes is parsed back before
/// anything touches the disk, so an edit can never leave a manifest `catalog build` refuses.
enum ManifestWriter {
    static func text(version: Int, references: [ReferenceAudio]) -> String {
        var out = "{\n  \"version\": \(version),\n  \"references\": ["
        for (i, r) in references.enumerated() {
            out += i == 0 ? "\n" : ",\n"
            out += "    {\n"
            var fields = [("id", r.id), ("title", r.title), ("creator", r.creator), ("license", r.license), ("sourceFile", r.sourceFile)]
                .map { "      \(Text.json($0.0)): \(Text.json($0.1))" }
            if !r.metadata.isEmpty {
                let entries = r.metadata.sorted { $0.key < $1.key }.map { "        \(Text.json($0.key)): \(Text.json($0.value))" }
                fields.append("      \"metadata\": {\n" + entries.joined(separator: ",\n") + "\n      }")
            }
            out += fields.joined(separator: ",\n") + "\n    }"
        }
        return out + "\n  ]\n}\n"
    }

    /// Checks `text` as `catalog build` would, then replaces `path` with it atomically (a
    /// temporary file beside it, synced, renamed over it). Returns the manifest as parsed.
    static func write(_ text: String, to path: String) throws(Manifest.Invalid) -> Manifest {
        let parsed = try Manifest.parse(Array(text.utf8), path: path)
        do {
            try FileSystem.replace(path, with: Array(text.utf8))
        } catch  where [EACCES, EPERM, EROFS].contains(error.code) && error.reason == String(cString: strerror(error.code)) {
            throw Manifest.Invalid(path: path, problem: "cannot be written: the folder is not writable (check its permissions)")
        } catch {
            throw Manifest.Invalid(path: path, problem: "could not be saved (\(error)); it was left unchanged")
        }
        return parsed
    }
}
