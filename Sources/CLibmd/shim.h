#ifndef SOUNDTRACE_CLIBMD_SHIM_H
#define SOUNDTRACE_CLIBMD_SHIM_H
// libmd's SHA-2 functions (Debian's libmd-dev): the catalog's content hash and the recordings' checksums.
#include <sys/types.h>
#include <stdint.h>
#include <sha2.h>
#endif
