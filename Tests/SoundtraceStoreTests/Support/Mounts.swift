import Foundation

/// Small tmpfs mounts for read-only and disk-full tests. Tests run as root, and root ignores
/// permission bits, so a read-only file system (EROFS) is the only honest "read-only folder" here.
enum Mounts {
    /// Whether this process may mount file systems (root with CAP_SYS_ADMIN, not in a locked-down
    /// container); probed once by mounting and unmounting a tiny tmpfs.
    static let available: Bool = {
        guard
            let probe = try? withTemporaryDirectory({ directory -> Bool in
                guard mount("tmpfs", directory, "tmpfs", 0, "size=4k") == 0 else { return false }
                return umount2(directory, 0) == 0
            })
        else { return false }
        return probe
    }()

    /// Runs `body` with a tmpfs of `kibibytes` mounted on `directory`, unmounted afterwards.
    static func withTmpfs<T>(at directory: String, kibibytes: Int, _ body: () throws -> T) throws -> T {
        guard mount("tmpfs", directory, "tmpfs", 0, "size=\(kibibytes)k,mode=0755") == 0 else {
            throw TestFailure("mount tmpfs on \(directory): \(String(cString: strerror(errno)))")
        }
        // MNT_DETACH: a file SQLite still holds open must not leave the mount (and the test folder) behind.
        defer { _ = umount2(directory, Int32(MNT_DETACH)) }
        return try body()
    }

    /// Makes the tmpfs on `directory` read-only, as a card mounted read-only after errors would be.
    /// A remount to read-only is refused (EBUSY) while any process holds a file on it open for
    /// writing. Other suites of this process start child processes, and a child holds this test's
    /// descriptors from its fork until its exec closes them: a CI run met that moment once. So a
    /// busy remount is tried again, for up to five seconds.
    static func remountReadOnly(_ directory: String) throws {
        var attempts = 0
        while mount("tmpfs", directory, "tmpfs", UInt(MS_REMOUNT | MS_RDONLY), nil) != 0 {
            let error = errno
            attempts += 1
            guard error == EBUSY, attempts < 50 else {
                throw TestFailure("remount \(directory) read-only: \(String(cString: strerror(error)))")
            }
            usleep(100_000)
        }
    }
}
