#ifndef SOUNDTRACE_CJANSSON_SHIM_H
#define SOUNDTRACE_CJANSSON_SHIM_H
// jansson (Debian's libjansson-dev), the CLI's JSON parser: docs/CLI.md says why this library.
#include <jansson.h>

// A manifest that names a field twice is a mistake to report, not a value to pick silently.
static inline json_t *soundtrace_json_parse(const char *bytes, size_t length, json_error_t *error) {
    return json_loadb(bytes, length, JSON_REJECT_DUPLICATES, error);
}

// json_decref is an inline function over the reference count; this gives Swift one plain call.
static inline void soundtrace_json_release(json_t *json) { json_decref(json); }
#endif
