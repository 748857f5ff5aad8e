#include "soundtrace_mosquitto.h"

#include <dlfcn.h>
#include <stdio.h>

#include "soundtrace_mosquitto_builtin.h"

// One table per source: the compiled-in library (plain TCP) and Debian's libmosquitto1 (TLS).
static soundtrace_mosquitto_library libraries[2];
static int loaded[2];

// The functions soundtraced calls, by name, and where each goes in a table.
#define SLOTS(table)                                                                  \
    struct {                                                                          \
        void **slot;                                                                  \
        const char *name;                                                             \
    } symbols[] = {                                                                   \
        {(void **)&(table).lib_version, "mosquitto_lib_version"},                     \
        {(void **)&(table).lib_init, "mosquitto_lib_init"},                           \
        {(void **)&(table).create, "mosquitto_new"},                                  \
        {(void **)&(table).destroy, "mosquitto_destroy"},                             \
        {(void **)&(table).user_data_set, "mosquitto_user_data_set"},                 \
        {(void **)&(table).int_option, "mosquitto_int_option"},                       \
        {(void **)&(table).will_set, "mosquitto_will_set"},                           \
        {(void **)&(table).username_pw_set, "mosquitto_username_pw_set"},             \
        {(void **)&(table).tls_set, "mosquitto_tls_set"},                             \
        {(void **)&(table).connect, "mosquitto_connect"},                             \
        {(void **)&(table).disconnect, "mosquitto_disconnect"},                       \
        {(void **)&(table).publish, "mosquitto_publish"},                             \
        {(void **)&(table).subscribe, "mosquitto_subscribe"},                         \
        {(void **)&(table).socket, "mosquitto_socket"},                               \
        {(void **)&(table).want_write, "mosquitto_want_write"},                       \
        {(void **)&(table).loop_read, "mosquitto_loop_read"},                         \
        {(void **)&(table).loop_write, "mosquitto_loop_write"},                       \
        {(void **)&(table).loop_misc, "mosquitto_loop_misc"},                         \
        {(void **)&(table).connect_callback_set, "mosquitto_connect_callback_set"},   \
        {(void **)&(table).disconnect_callback_set, "mosquitto_disconnect_callback_set"}, \
        {(void **)&(table).message_callback_set, "mosquitto_message_callback_set"},   \
        {(void **)&(table).strerror, "mosquitto_strerror"},                           \
        {(void **)&(table).connack_string, "mosquitto_connack_string"},               \
    };                                                                                \
    enum { symbol_count = sizeof symbols / sizeof symbols[0] }

static int load_builtin(soundtrace_mosquitto_library *found, char *error, size_t error_size) {
    SLOTS(*found);
    const char *names[symbol_count];
    void *slots[symbol_count];
    for (int i = 0; i < symbol_count; i++) names[i] = symbols[i].name;
    int missing = soundtrace_mosquitto_builtin_resolve(names, slots, symbol_count);
    if (missing >= 0) {
        snprintf(error, error_size, "the built-in MQTT library has no %s", names[missing]);
        return -1;
    }
    for (int i = 0; i < symbol_count; i++) *symbols[i].slot = slots[i];
    return 0;
}

static int load_debian(soundtrace_mosquitto_library *found, char *error, size_t error_size) {
    // The soname of Debian's libmosquitto1, which libmosquitto-dev's headers describe.
    void *handle = dlopen("libmosquitto.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(error, error_size, "%s", reason != NULL ? reason : "dlopen failed");
        return -1;
    }
    SLOTS(*found);
    for (int i = 0; i < symbol_count; i++) {
        *symbols[i].slot = dlsym(handle, symbols[i].name);
        if (*symbols[i].slot == NULL) {
            snprintf(error, error_size, "libmosquitto.so.1 has no %s (a libmosquitto older than 2.0?)", symbols[i].name);
            dlclose(handle);
            return -1;
        }
    }
    return 0;
}

const soundtrace_mosquitto_library *soundtrace_mosquitto_load(int tls, char *error, size_t error_size) {
    int which = tls ? 1 : 0;
    if (loaded[which]) return &libraries[which];
    soundtrace_mosquitto_library found;
    int rc = tls ? load_debian(&found, error, error_size) : load_builtin(&found, error, error_size);
    if (rc != 0) return NULL;
    found.lib_init();
    libraries[which] = found;
    loaded[which] = 1;
    return &libraries[which];
}
