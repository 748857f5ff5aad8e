#ifndef SOUNDTRACE_CLIBMOSQUITTO_SHIM_H
#define SOUNDTRACE_CLIBMOSQUITTO_SHIM_H
// libmosquitto's declarations only (Debian's libmosquitto-dev). Nothing links the library: CMosquitto
// loads it when MQTT is configured, because linking it would load OpenSSL into every process
// (about 1.8 MB resident, measured) whether MQTT is on or not (see CMosquitto's header).
#include <mosquitto.h>
#endif
