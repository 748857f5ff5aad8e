// Which libgpiod the installed <gpiod.h> belongs to. libgpiod 2 removed the "line bulk" of 1.x
// (and defines no macro of its own), so the bulk's size limit, which every 1.x header defines,
// tells the two apart.
#ifndef SOUNDTRACE_GPIOD_MAJOR_H
#define SOUNDTRACE_GPIOD_MAJOR_H

#include <gpiod.h>

#ifdef GPIOD_LINE_BULK_MAX_LINES
#define SOUNDTRACE_GPIOD_MAJOR 1
#else
#define SOUNDTRACE_GPIOD_MAJOR 2
#endif

// The kernel keeps at most 16 events per line in its queue; reading more at once gains nothing.
#define SOUNDTRACE_GPIOD_MAX_EDGES 16

#endif
