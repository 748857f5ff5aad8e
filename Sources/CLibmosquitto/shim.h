#ifndef SOUNDTRACE_CLIBMOSQUITTO_SHIM_H
#define SOUNDTRACE_CLIBMOSQUITTO_SHIM_H
// libmosquitto's declarations only (Debian's libmosquitto-dev). Nothing links the library: CMosquitto
// loads it for a TLS link only, because linking it would load OpenSSL into every process (about
// 1.8 MB resident, measured) whether MQTT is on or not; plain TCP uses the copy compiled in
// (CMosquittoBuiltin; see CMosquitto's header).
#include <mosquitto.h>
#endif
