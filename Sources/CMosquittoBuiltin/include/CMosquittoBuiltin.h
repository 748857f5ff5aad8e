// The Mosquitto client library compiled into the binary without TLS, from Debian's sources
// (scripts/fetch-mosquitto.sh). It declares nothing of its own: its functions are the ones
// <mosquitto.h> declares, hidden from the dynamic symbol table, and CMosquitto's loader is their
// only caller. SwiftPM wants a public header folder for a C target; this is it.
#ifndef SOUNDTRACE_CMOSQUITTOBUILTIN_H
#define SOUNDTRACE_CMOSQUITTOBUILTIN_H
#endif
