// Linux interfaces Swift's Glibc module does not export: signalfd, so the daemon can take
// signals in its poll loop instead of in async-signal handlers.
#include <signal.h>
#include <sys/signalfd.h>
