// The few libgpiod calls soundtraced makes, with one signature for both libgpiod majors: 1.6
// (Debian 12, Raspberry Pi OS bookworm) and 2.x (Debian 13, trixie) differ in every name and in
// their object model, so gpiod_v1.c and gpiod_v2.c each implement this header and the installed
// <gpiod.h> decides, at compile time, which one is built (gpiod_major.h). Swift imports only
// this header, so the Swift code is the same against either library.
//
// Errors: functions returning a pointer return NULL, the others -1, with errno set (libgpiod's
// own errno, or ENOTSUP for what the library cannot do).
#ifndef SOUNDTRACE_GPIOD_H
#define SOUNDTRACE_GPIOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// An open GPIO chip (`/dev/gpiochipN`).
typedef struct soundtrace_gpiod_chip soundtrace_gpiod_chip;
/// One requested line: the button (input with edge events) or an output.
typedef struct soundtrace_gpiod_request soundtrace_gpiod_request;

/// What the kernel reports about one line of a chip.
typedef struct {
    /// The line's name ("GPIO17"), empty when it has none; NUL-terminated.
    char name[32];
    /// Who holds the line ("soundtraced", a driver), empty when nobody does or it is unnamed.
    char consumer[32];
    /// True when the line is requested by a program or claimed by a kernel driver.
    bool used;
} soundtrace_gpiod_line_info;

/// One edge of the button line.
typedef struct {
    /// True for inactive → active. The button is requested active-low, so this is a press.
    bool rising;
    /// When the kernel saw it, CLOCK_MONOTONIC in nanoseconds.
    uint64_t timestamp_ns;
} soundtrace_gpiod_edge;

/// The libgpiod major this was compiled against: 1 or 2.
int soundtrace_gpiod_major(void);
/// The version string of the library linked in, e.g. "1.6.3" or "2.3".
const char *soundtrace_gpiod_version(void);
/// True when soundtrace_gpiod_request_button can ask the kernel to debounce (libgpiod 2; 1.6
/// speaks the kernel's first GPIO interface, which has no debounce).
bool soundtrace_gpiod_offers_debounce(void);

/// Opens the chip at `path`. errno ENOTTY or ENODEV: the file is not a GPIO chip.
soundtrace_gpiod_chip *soundtrace_gpiod_chip_open(const char *path);
/// Closes the chip. Requests made on it must be released first.
void soundtrace_gpiod_chip_close(soundtrace_gpiod_chip *chip);
/// The chip's label ("pinctrl-bcm2711"), valid while the chip is open.
const char *soundtrace_gpiod_chip_label(soundtrace_gpiod_chip *chip);
/// The number of lines of the chip.
unsigned int soundtrace_gpiod_chip_line_count(soundtrace_gpiod_chip *chip);
/// The offset of the first line called `name`, or -1 (errno ENOENT when the chip has no such line).
int soundtrace_gpiod_find_line(soundtrace_gpiod_chip *chip, const char *name);
/// Reads the name, consumer and use of line `offset` into `info`; 0 or -1.
int soundtrace_gpiod_read_line_info(soundtrace_gpiod_chip *chip, unsigned int offset, soundtrace_gpiod_line_info *info);

/// Requests line `offset` as the button: input, active-low, pull-up, edge events on both edges,
/// on the monotonic clock; with `debounce_us` > 0 the kernel debounces it (ENOTSUP on libgpiod 1.6).
soundtrace_gpiod_request *soundtrace_gpiod_request_button(soundtrace_gpiod_chip *chip, unsigned int offset,
                                                          const char *consumer, unsigned int debounce_us);
/// Requests line `offset` as an output that starts inactive (LED dark, buzzer silent).
soundtrace_gpiod_request *soundtrace_gpiod_request_output(soundtrace_gpiod_chip *chip, unsigned int offset,
                                                          const char *consumer);
/// The descriptor that becomes readable when edge events wait (for poll); owned by the request.
int soundtrace_gpiod_request_fd(soundtrace_gpiod_request *request);
/// The line's logical value: 1 active, 0 inactive, -1 on error.
int soundtrace_gpiod_get_value(soundtrace_gpiod_request *request);
/// Drives the line's logical value (0 or 1); 0 or -1.
int soundtrace_gpiod_set_value(soundtrace_gpiod_request *request, int value);
/// Reads up to `capacity` pending edges (at most 16) into `edges`, oldest first; the count, or -1.
/// With the descriptor non-blocking and nothing pending: -1 with errno EAGAIN.
int soundtrace_gpiod_read_edges(soundtrace_gpiod_request *request, soundtrace_gpiod_edge *edges, unsigned int capacity);
/// Releases the line and frees the request.
void soundtrace_gpiod_release(soundtrace_gpiod_request *request);

#endif
