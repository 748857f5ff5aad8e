// libmosquitto, reached through a table of its functions rather than linked. Debian's
// libmosquitto.so.1 is always linked against libssl and libcrypto: linked into the binary, it would
// bring about 1.8 MB more resident memory into every process that starts it (the CLI, and the
// daemon with MQTT off), measured with a program that only links it; loaded for a plain-TCP link,
// those 1.8 MB against the link's budget of half a megabyte (docs/BENCHMARKS.md, "The MQTT link").
// So a plain-TCP link uses the same library compiled into the binary without TLS
// (CMosquittoBuiltin, from Debian's mosquitto sources), and a TLS link (mqtt_tls_ca_file) loads
// Debian's libmosquitto1 with dlopen.
//
// The table's members have the types of <mosquitto.h>'s own declarations (__typeof__), so a call
// through them is checked by the compiler as a direct call would be.
#ifndef SOUNDTRACE_MOSQUITTO_H
#define SOUNDTRACE_MOSQUITTO_H

#include <stddef.h>
#include <mosquitto.h>

/// The libmosquitto functions soundtraced calls.
typedef struct {
    __typeof__(mosquitto_lib_version) *lib_version;
    __typeof__(mosquitto_lib_init) *lib_init;
    __typeof__(mosquitto_new) *create;
    __typeof__(mosquitto_destroy) *destroy;
    __typeof__(mosquitto_user_data_set) *user_data_set;
    __typeof__(mosquitto_int_option) *int_option;
    __typeof__(mosquitto_will_set) *will_set;
    __typeof__(mosquitto_username_pw_set) *username_pw_set;
    __typeof__(mosquitto_tls_set) *tls_set;
    __typeof__(mosquitto_connect) *connect;
    __typeof__(mosquitto_disconnect) *disconnect;
    __typeof__(mosquitto_publish) *publish;
    __typeof__(mosquitto_subscribe) *subscribe;
    __typeof__(mosquitto_socket) *socket;
    __typeof__(mosquitto_want_write) *want_write;
    __typeof__(mosquitto_loop_read) *loop_read;
    __typeof__(mosquitto_loop_write) *loop_write;
    __typeof__(mosquitto_loop_misc) *loop_misc;
    __typeof__(mosquitto_connect_callback_set) *connect_callback_set;
    __typeof__(mosquitto_disconnect_callback_set) *disconnect_callback_set;
    __typeof__(mosquitto_message_callback_set) *message_callback_set;
    __typeof__(mosquitto_strerror) *strerror;
    __typeof__(mosquitto_connack_string) *connack_string;
} soundtrace_mosquitto_library;

/// The library for a link with TLS (`tls` non-zero: Debian's libmosquitto.so.1, loaded once) or
/// without (the compiled-in one), after mosquitto_lib_init; later calls return the same table.
/// NULL when it cannot be loaded; then `error` holds why (dlerror's text), NUL-terminated.
/// Not thread-safe: call it from one thread (the daemon's MQTT thread).
const soundtrace_mosquitto_library *soundtrace_mosquitto_load(int tls, char *error, size_t error_size);

#endif
