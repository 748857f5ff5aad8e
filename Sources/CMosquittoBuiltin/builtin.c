#include "soundtrace_mosquitto_builtin.h"

#include <string.h>

#include "mosquitto.h"

// Only the functions soundtraced calls (CMosquitto's table); a name outside this list is reported
// to the loader rather than guessed.
static const struct {
    const char *name;
    void *function;
} functions[] = {
    {"mosquitto_lib_version", (void *)mosquitto_lib_version},
    {"mosquitto_lib_init", (void *)mosquitto_lib_init},
    {"mosquitto_new", (void *)mosquitto_new},
    {"mosquitto_destroy", (void *)mosquitto_destroy},
    {"mosquitto_user_data_set", (void *)mosquitto_user_data_set},
    {"mosquitto_int_option", (void *)mosquitto_int_option},
    {"mosquitto_will_set", (void *)mosquitto_will_set},
    {"mosquitto_username_pw_set", (void *)mosquitto_username_pw_set},
    {"mosquitto_tls_set", (void *)mosquitto_tls_set},
    {"mosquitto_connect", (void *)mosquitto_connect},
    {"mosquitto_disconnect", (void *)mosquitto_disconnect},
    {"mosquitto_publish", (void *)mosquitto_publish},
    {"mosquitto_subscribe", (void *)mosquitto_subscribe},
    {"mosquitto_socket", (void *)mosquitto_socket},
    {"mosquitto_want_write", (void *)mosquitto_want_write},
    {"mosquitto_loop_read", (void *)mosquitto_loop_read},
    {"mosquitto_loop_write", (void *)mosquitto_loop_write},
    {"mosquitto_loop_misc", (void *)mosquitto_loop_misc},
    {"mosquitto_connect_callback_set", (void *)mosquitto_connect_callback_set},
    {"mosquitto_disconnect_callback_set", (void *)mosquitto_disconnect_callback_set},
    {"mosquitto_message_callback_set", (void *)mosquitto_message_callback_set},
    {"mosquitto_strerror", (void *)mosquitto_strerror},
    {"mosquitto_connack_string", (void *)mosquitto_connack_string},
};

int soundtrace_mosquitto_builtin_resolve(const char *const *names, void **slots, int count) {
    for (int i = 0; i < count; i++) {
        slots[i] = NULL;
        for (size_t f = 0; f < sizeof functions / sizeof functions[0]; f++) {
            if (strcmp(names[i], functions[f].name) == 0) {
                slots[i] = functions[f].function;
                break;
            }
        }
        if (slots[i] == NULL) return i;
    }
    return -1;
}
