import Glibc

/// The names in a folder, read with `readdir`.
enum DirectoryNames {
    /// The entries of `directory` (with `.` and `..`), or nil when it cannot be opened.
    ///
    /// Each name is read in place, up to its terminating NUL. `entry.pointee.d_name` would copy the
    /// whole `struct dirent` (280 bytes on x86_64) out of readdir's buffer, but the kernel packs
    /// records by their real length (`d_reclen`): a short name near the end of the buffer makes
    /// that copy read past it (AddressSanitizer: heap-buffer-overflow; docs/RELIABILITY.md).
    static func list(_ directory: String) -> [String]? {
        guard let folder = opendir(directory) else { return nil }
        defer { closedir(folder) }
        // Nil only for a computed property; `d_name` is a stored field of the C struct.
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self)
            names.append(String(cString: name))
        }
        return names
    }
}
