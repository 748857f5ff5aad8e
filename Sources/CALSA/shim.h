#ifndef SOUNDTRACE_CALSA_SHIM_H
#define SOUNDTRACE_CALSA_SHIM_H
#include <alsa/asoundlib.h>
/* eventfd backs the capture source's wake-up descriptor; Swift's Glibc module does not export it. */
#include <sys/eventfd.h>

/* ALSA prints its own diagnostics to stderr unless a handler is installed. The handler type is a
   variadic C function pointer, which Swift cannot define, so the no-op handler lives here. The
   Swift side reports every failure itself, with the error code ALSA returns. */
static inline void soundtrace_alsa_discard_message(const char *file, int line, const char *function,
                                                   int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

/* Installs the no-op handler above; returns 0 on success. */
static inline int soundtrace_alsa_silence_errors(void) {
    return snd_lib_error_set_handler(soundtrace_alsa_discard_message);
}

#endif
