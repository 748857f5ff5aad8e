// Linux interfaces Swift's Glibc module does not export: signalfd, so the daemon can take
// signals in its poll loop instead of in async-signal handlers; and the pseudo-terminal calls
// (hidden behind _XOPEN_SOURCE in the C library's headers), with which tests give the daemon a
// terminal.
#include <signal.h>
#include <sys/signalfd.h>

extern int posix_openpt(int flags);
extern int grantpt(int fd);
extern int unlockpt(int fd);
extern char *ptsname(int fd);

// mallopt and malloc_trim: the daemon asks for large blocks (a session's vote grid) to be mapped on
// their own so that they go back to the system when the session ends, for a single arena, and for
// the rest of a session's freed memory to be returned after it.
#include <malloc.h>

// ioprio_set, which glibc does not wrap (and Swift cannot call the variadic syscall()): the
// daemon's background check of the catalog's content reads the whole file in the idle I/O class,
// so that a session reading the catalog meanwhile does not queue behind it on an SD card. With
// IOPRIO_WHO_PROCESS (1) and id 0 it applies to the calling thread only; IOPRIO_CLASS_IDLE is 3,
// shifted by IOPRIO_CLASS_SHIFT (13). Returns -1 with errno set on failure.
#include <sys/syscall.h>
#include <unistd.h>
static inline int soundtrace_ioprio_idle_for_this_thread(void) {
    return (int)syscall(SYS_ioprio_set, 1, 0, 3 << 13);
}
