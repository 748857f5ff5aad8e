import CLinux
import Glibc
import SoundtraceDaemon

// glibc raises its mmap threshold when a mapped block is freed, so after the first session a
// session's megabyte of buffers would come from a heap that keeps the pages: idle memory would
// grow by ~2 MiB and stay there (measured in bench/daemon). A fixed threshold keeps it flat.
_ = mallopt(M_MMAP_THRESHOLD, 128 * 1024)
exit(DaemonRuntime.run(Array(CommandLine.arguments.dropFirst())))
