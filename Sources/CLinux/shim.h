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
