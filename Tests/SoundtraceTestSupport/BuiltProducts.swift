import Glibc

/// The executables built by the same `swift build` as the running tests. SwiftPM puts the test
/// bundle (`SoundtracePackageTests.xctest`) in the same folder as the package's executables, so
/// that folder is the one to take them from: a `--scratch-path` elsewhere, a debug run next to an
/// older release build, or a sanitized build (scripts/sanitizers.sh) all run their own binaries,
/// never stale ones from another configuration. When the tests do not run from a SwiftPM bundle
/// (an unusual runner), `<package>/.build/release` and then `.build/debug` are the fallback.
public enum BuiltProducts {
    /// The folder the running test executable lives in, if it holds `product`.
    public static func path(_ product: String, packageRoot: String) -> String {
        if let folder = testBundleFolder(), access(folder + "/" + product, X_OK) == 0 {
            return folder + "/" + product
        }
        for configuration in ["release", "debug"] where access(packageRoot + "/.build/\(configuration)/\(product)", X_OK) == 0 {
            return packageRoot + "/.build/\(configuration)/\(product)"
        }
        return packageRoot + "/.build/release/\(product)"
    }

    /// The folder of /proc/self/exe: on Linux, `swift test` runs the bundle itself.
    static func testBundleFolder() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }
}

extension BuiltProducts {
    /// Puts an executable at `destination` (e.g. a world-readable folder, for a test that runs it
    /// as `nobody`): a hard link when the file system allows one, else a copy written through a
    /// close-on-exec descriptor. Copying with FileManager could fail the test at random: its
    /// descriptor is not close-on-exec, so a child another test spawned meanwhile could keep the
    /// copy open for writing, and running it then fails with "Text file busy" (ETXTBSY). A link
    /// writes nothing; the copy's descriptor cannot outlive its `close` in any child program.
    public static func placeExecutable(_ source: String, at destination: String) throws {
        unlink(destination)
        if link(source, destination) == 0 {
            guard chmod(destination, 0o755) == 0 else { throw TestFailure("chmod \(destination): \(String(cString: strerror(errno)))") }
            return
        }
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw TestFailure("cannot read \(source): \(String(cString: strerror(errno)))") }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        guard output >= 0 else { throw TestFailure("cannot create \(destination): \(String(cString: strerror(errno)))") }
        var failure: String?
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while failure == nil {
            let count = read(input, &buffer, buffer.count)
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                failure = "read \(source): \(String(cString: strerror(errno)))"
                break
            }
            var written = 0
            while written < count {
                let step = buffer[written..<count].withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
                if step < 0 {
                    if errno == EINTR { continue }
                    failure = "write \(destination): \(String(cString: strerror(errno)))"
                    break
                }
                written += step
            }
        }
        if failure == nil, fchmod(output, 0o755) != 0 { failure = "chmod \(destination): \(String(cString: strerror(errno)))" }
        close(output)
        if let failure { throw TestFailure(failure) }
    }
}
