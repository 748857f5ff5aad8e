#include "soundtrace_mosquitto.h"

#include <dlfcn.h>
#include <stdio.h>

static soundtrace_mosquitto_library library;
static int loaded;

static int resolve(void *handle, void **slot, const char *name, char *error, size_t error_size) {
    *slot = dlsym(handle, name);
    if (*slot == NULL) {
        snprintf(error, error_size, "libmosquitto.so.1 has no %s (a libmosquitto older than 2.0?)", name);
        return -1;
    }
    return 0;
}

const soundtrace_mosquitto_library *soundtrace_mosquitto_load(char *error, size_t error_size) {
    if (loaded) return &library;
    // The soname of Debian's libmosquitto1, which libmosquitto-dev's headers describe.
    void *handle = dlopen("libmosquitto.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(error, error_size, "%s", reason != NULL ? reason : "dlopen failed");
        return NULL;
    }
    soundtrace_mosquitto_library found;
    struct {
        void **slot;
        const char *name;
    } symbols[] = {
        {(void **)&found.lib_version, "mosquitto_lib_version"},
        {(void **)&found.lib_init, "mosquitto_lib_init"},
        {(void **)&found.create, "mosquitto_new"},
        {(void **)&found.destroy, "mosquitto_destroy"},
        {(void **)&found.user_data_set, "mosquitto_user_data_set"},
        {(void **)&found.int_option, "mosquitto_int_option"},
        {(void **)&found.will_set, "mosquitto_will_set"},
        {(void **)&found.username_pw_set, "mosquitto_username_pw_set"},
        {(void **)&found.tls_set, "mosquitto_tls_set"},
        {(void **)&found.connect, "mosquitto_connect"},
        {(void **)&found.disconnect, "mosquitto_disconnect"},
        {(void **)&found.publish, "mosquitto_publish"},
        {(void **)&found.subscribe, "mosquitto_subscribe"},
        {(void **)&found.socket, "mosquitto_socket"},
        {(void **)&found.want_write, "mosquitto_want_write"},
        {(void **)&found.loop_read, "mosquitto_loop_read"},
        {(void **)&found.loop_write, "mosquitto_loop_write"},
        {(void **)&found.loop_misc, "mosquitto_loop_misc"},
        {(void **)&found.connect_callback_set, "mosquitto_connect_callback_set"},
        {(void **)&found.disconnect_callback_set, "mosquitto_disconnect_callback_set"},
        {(void **)&found.message_callback_set, "mosquitto_message_callback_set"},
        {(void **)&found.strerror, "mosquitto_strerror"},
        {(void **)&found.connack_string, "mosquitto_connack_string"},
    };
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        if (resolve(handle, symbols[i].slot, symbols[i].name, error, error_size) != 0) {
            dlclose(handle);
            return NULL;
        }
    }
    found.lib_init();
    library = found;
    loaded = 1;
    return &library;
}
