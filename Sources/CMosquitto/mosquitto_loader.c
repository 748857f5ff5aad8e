#include "soundtrace_mosquitto.h"

#include <dlfcn.h>
#include <stdio.h>

// One table per source: [0] the library compiled into the binary (CMosquittoBuiltin, plain TCP),
// whose functions <mosquitto.h> declares and the link resolves; [1] Debian's libmosquitto1 (TLS).
static soundtrace_mosquitto_library libraries[2];
static int loaded[2];

static const soundtrace_mosquitto_library builtin = {
    .lib_version = mosquitto_lib_version,
    .lib_init = mosquitto_lib_init,
    .create = mosquitto_new,
    .destroy = mosquitto_destroy,
    .user_data_set = mosquitto_user_data_set,
    .int_option = mosquitto_int_option,
    .will_set = mosquitto_will_set,
    .username_pw_set = mosquitto_username_pw_set,
    .tls_set = mosquitto_tls_set,
    .connect = mosquitto_connect,
    .disconnect = mosquitto_disconnect,
    .publish = mosquitto_publish,
    .subscribe = mosquitto_subscribe,
    .socket = mosquitto_socket,
    .want_write = mosquitto_want_write,
    .loop_read = mosquitto_loop_read,
    .loop_write = mosquitto_loop_write,
    .loop_misc = mosquitto_loop_misc,
    .connect_callback_set = mosquitto_connect_callback_set,
    .disconnect_callback_set = mosquitto_disconnect_callback_set,
    .message_callback_set = mosquitto_message_callback_set,
    .strerror = mosquitto_strerror,
    .connack_string = mosquitto_connack_string,
};

static int resolve(void *handle, void **slot, const char *name, char *error, size_t error_size) {
    *slot = dlsym(handle, name);
    if (*slot == NULL) {
        snprintf(error, error_size, "libmosquitto.so.1 has no %s (a libmosquitto older than 2.0?)", name);
        return -1;
    }
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
    struct {
        void **slot;
        const char *name;
    } symbols[] = {
        {(void **)&found->lib_version, "mosquitto_lib_version"},
        {(void **)&found->lib_init, "mosquitto_lib_init"},
        {(void **)&found->create, "mosquitto_new"},
        {(void **)&found->destroy, "mosquitto_destroy"},
        {(void **)&found->user_data_set, "mosquitto_user_data_set"},
        {(void **)&found->int_option, "mosquitto_int_option"},
        {(void **)&found->will_set, "mosquitto_will_set"},
        {(void **)&found->username_pw_set, "mosquitto_username_pw_set"},
        {(void **)&found->tls_set, "mosquitto_tls_set"},
        {(void **)&found->connect, "mosquitto_connect"},
        {(void **)&found->disconnect, "mosquitto_disconnect"},
        {(void **)&found->publish, "mosquitto_publish"},
        {(void **)&found->subscribe, "mosquitto_subscribe"},
        {(void **)&found->socket, "mosquitto_socket"},
        {(void **)&found->want_write, "mosquitto_want_write"},
        {(void **)&found->loop_read, "mosquitto_loop_read"},
        {(void **)&found->loop_write, "mosquitto_loop_write"},
        {(void **)&found->loop_misc, "mosquitto_loop_misc"},
        {(void **)&found->connect_callback_set, "mosquitto_connect_callback_set"},
        {(void **)&found->disconnect_callback_set, "mosquitto_disconnect_callback_set"},
        {(void **)&found->message_callback_set, "mosquitto_message_callback_set"},
        {(void **)&found->strerror, "mosquitto_strerror"},
        {(void **)&found->connack_string, "mosquitto_connack_string"},
    };
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        if (resolve(handle, symbols[i].slot, symbols[i].name, error, error_size) != 0) {
            dlclose(handle);
            return -1;
        }
    }
    return 0;
}

const soundtrace_mosquitto_library *soundtrace_mosquitto_load(int tls, char *error, size_t error_size) {
    int which = tls ? 1 : 0;
    if (loaded[which]) return &libraries[which];
    soundtrace_mosquitto_library found = builtin;
    if (tls && load_debian(&found, error, error_size) != 0) return NULL;
    found.lib_init();
    libraries[which] = found;
    loaded[which] = 1;
    return &libraries[which];
}
