import CLinux
import Glibc

/// The daemon as a whole process: the allocator settings its memory budget depends on, then
/// `DaemonRuntime`. Both executables start the daemon through here: `soundtraced`, and the packaged
/// `soundtrace` when it is run under the name `soundtraced` (one binary for both, docs/DEPLOY.md).
public enum DaemonProcess {
    /// The program name under which the packaged `soundtrace` binary runs as the daemon.
    public static let programName = "soundtraced"

    /// Sets up the allocator and runs the daemon; returns the exit status.
    public static func main(_ arguments: [String]) -> Int32 {
        // glibc raises its mmap threshold when a mapped block is freed, so after the first session a
        // session's megabyte of buffers would come from a heap that keeps the pages: idle memory would
        // grow by ~2 MiB and stay there (measured in bench/daemon). A fixed threshold keeps it flat.
        _ = mallopt(M_MMAP_THRESHOLD, 128 * 1024)
        // One malloc arena for all threads: otherwise the protocol thread and each session's capture
        // thread get arenas of their own, and each keeps up to ~130 KiB of freed memory between
        // sessions. The daemon's threads take turns (one session at a time), so they do not contend.
        _ = mallopt(M_ARENA_MAX, 1)
        return DaemonRuntime.run(arguments)
    }

    /// Whether `programPath` (argv[0]) names the daemon: its last path component is `soundtraced`,
    /// as when systemd runs /usr/bin/soundtraced, a link to the packaged binary.
    public static func isInvoked(as programPath: String) -> Bool {
        let name = programPath.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? ""
        return name == programName
    }
}
