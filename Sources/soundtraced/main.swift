import CLinux
import Glibc
import SoundtraceDaemon

// glibc raises its mmap threshold when a mapped block is freed, so after the first session a
// session's megabyte of buffers would come from a heap that keeps the pages: idle memory would
// grow by ~2 MiB and stay there (measured in bench/daemon). A fixed threshold keeps it flat.
_ = mallopt(M_MMAP_THRESHOLD, 128 * 1024)
// One malloc arena for all threads: otherwise the protocol thread and each session's capture thread
// get arenas of their own, and each keeps up to ~130 KiB of freed memory between sessions. The
// daemon's threads take turns (one session at a time), so they do not contend for it.
_ = mallopt(M_ARENA_MAX, 1)
exit(DaemonRuntime.run(Array(CommandLine.arguments.dropFirst())))
