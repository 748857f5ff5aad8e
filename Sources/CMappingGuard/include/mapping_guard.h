// A read of a mapped file past its end faults with SIGBUS, which kills the process: a catalog
// truncated in place under the daemon (`cp new.catalog PATH` truncates first) would stop it in
// the middle of a session. A guarded mapping's range is known to one SIGBUS handler, which maps
// zero pages over the rest of the range instead, so the read goes on and sees zeros, and records
// that it did; the catalog's owner then refuses the catalog (FileMapping.changedSinceMapping).
// Faults anywhere else go to whatever handled SIGBUS before (the Swift runtime's backtracer, or
// the default action).
#ifndef SOUNDTRACE_MAPPING_GUARD_H
#define SOUNDTRACE_MAPPING_GUARD_H

#include <stddef.h>

/// Guards `length` bytes from `base` (page-aligned, as mmap returns it). Returns the guard's slot,
/// or -1 when every slot is in use or the handler could not be installed: the mapping is then
/// unguarded, as before.
int soundtrace_guard_mapping(const void *base, size_t length);

/// Stops guarding `slot` (before the mapping is unmapped); -1 is ignored.
void soundtrace_unguard_mapping(int slot);

/// 1 once a read past the end of the file was caught in `slot` and zero pages replaced the rest
/// of its range; 0 otherwise (and for -1).
int soundtrace_mapping_lost_pages(int slot);

#endif
