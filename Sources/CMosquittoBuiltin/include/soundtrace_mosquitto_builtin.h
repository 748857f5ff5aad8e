// The MQTT client library compiled into soundtraced without TLS (Debian's mosquitto sources; see
// scripts/fetch-mosquitto.sh). Its functions are the ones <mosquitto.h> declares, hidden from the
// dynamic symbol table; CMosquitto's loader reaches them through this one entry.
#ifndef SOUNDTRACE_MOSQUITTO_BUILTIN_H
#define SOUNDTRACE_MOSQUITTO_BUILTIN_H

/// Writes the addresses of the compiled-in library's functions into `slots`, in the order of
/// `names` (each a libmosquitto function name). Returns the index of the first name it does not
/// know, or -1 when every name was found.
int soundtrace_mosquitto_builtin_resolve(const char *const *names, void **slots, int count);

#endif
