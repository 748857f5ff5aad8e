// soundtrace_gpiod.h on libgpiod 1.6 (Debian 12, Raspberry Pi OS bookworm). Lines belong to their
// chip here: a request keeps a pointer to its line, and the chip must stay open until it is released.
#include "gpiod_major.h"

#if SOUNDTRACE_GPIOD_MAJOR == 1

#include "soundtrace_gpiod.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct soundtrace_gpiod_chip {
    struct gpiod_chip *chip;
};

struct soundtrace_gpiod_request {
    struct gpiod_line *line;
};

int soundtrace_gpiod_major(void) { return 1; }

const char *soundtrace_gpiod_version(void) { return gpiod_version_string(); }

bool soundtrace_gpiod_offers_debounce(void) { return false; }

soundtrace_gpiod_chip *soundtrace_gpiod_chip_open(const char *path) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return NULL;
    soundtrace_gpiod_chip *wrapper = calloc(1, sizeof(*wrapper));
    if (!wrapper) {
        gpiod_chip_close(chip);
        errno = ENOMEM;
        return NULL;
    }
    wrapper->chip = chip;
    return wrapper;
}

void soundtrace_gpiod_chip_close(soundtrace_gpiod_chip *chip) {
    if (!chip) return;
    gpiod_chip_close(chip->chip);
    free(chip);
}

const char *soundtrace_gpiod_chip_label(soundtrace_gpiod_chip *chip) { return gpiod_chip_label(chip->chip); }

unsigned int soundtrace_gpiod_chip_line_count(soundtrace_gpiod_chip *chip) { return gpiod_chip_num_lines(chip->chip); }

int soundtrace_gpiod_find_line(soundtrace_gpiod_chip *chip, const char *name) {
    struct gpiod_line *line = gpiod_chip_find_line(chip->chip, name);
    return line ? (int)gpiod_line_offset(line) : -1;
}

static void copy_text(char *destination, size_t size, const char *text) {
    // strncpy would leave a 31-character name unterminated; names longer than the field are cut.
    size_t length = text ? strnlen(text, size - 1) : 0;
    memcpy(destination, text ? text : "", length);
    destination[length] = '\0';
}

int soundtrace_gpiod_read_line_info(soundtrace_gpiod_chip *chip, unsigned int offset, soundtrace_gpiod_line_info *info) {
    // gpiod_chip_get_line asks the kernel for the line's current information each time.
    struct gpiod_line *line = gpiod_chip_get_line(chip->chip, offset);
    if (!line) return -1;
    copy_text(info->name, sizeof(info->name), gpiod_line_name(line));
    copy_text(info->consumer, sizeof(info->consumer), gpiod_line_consumer(line));
    info->used = gpiod_line_is_used(line);
    return 0;
}

static soundtrace_gpiod_request *request_line(soundtrace_gpiod_chip *chip, unsigned int offset,
                                              const struct gpiod_line_request_config *config) {
    struct gpiod_line *line = gpiod_chip_get_line(chip->chip, offset);
    if (!line) return NULL;
    soundtrace_gpiod_request *request = calloc(1, sizeof(*request));
    if (!request) {
        errno = ENOMEM;
        return NULL;
    }
    // Outputs start at 0, the inactive level; the value is ignored for inputs.
    if (gpiod_line_request(line, config, 0) != 0) {
        int saved = errno;
        free(request);
        errno = saved;
        return NULL;
    }
    request->line = line;
    return request;
}

soundtrace_gpiod_request *soundtrace_gpiod_request_button(soundtrace_gpiod_chip *chip, unsigned int offset,
                                                          const char *consumer, unsigned int debounce_us) {
    if (debounce_us > 0) {
        errno = ENOTSUP;
        return NULL;
    }
    // The kernel stamps the first interface's events with CLOCK_MONOTONIC (Linux 5.7 and later).
    struct gpiod_line_request_config config = {
        .consumer = consumer,
        .request_type = GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES,
        .flags = GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW | GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP,
    };
    return request_line(chip, offset, &config);
}

soundtrace_gpiod_request *soundtrace_gpiod_request_output(soundtrace_gpiod_chip *chip, unsigned int offset,
                                                          const char *consumer) {
    struct gpiod_line_request_config config = {
        .consumer = consumer,
        .request_type = GPIOD_LINE_REQUEST_DIRECTION_OUTPUT,
        .flags = 0,
    };
    return request_line(chip, offset, &config);
}

int soundtrace_gpiod_request_fd(soundtrace_gpiod_request *request) {
    // Outputs have no event descriptor; -1 then, as for libgpiod 2's outputs' unreadable one.
    return gpiod_line_event_get_fd(request->line);
}

int soundtrace_gpiod_get_value(soundtrace_gpiod_request *request) { return gpiod_line_get_value(request->line); }

int soundtrace_gpiod_set_value(soundtrace_gpiod_request *request, int value) {
    return gpiod_line_set_value(request->line, value);
}

int soundtrace_gpiod_read_edges(soundtrace_gpiod_request *request, soundtrace_gpiod_edge *edges, unsigned int capacity) {
    struct gpiod_line_event events[SOUNDTRACE_GPIOD_MAX_EDGES];
    if (capacity > SOUNDTRACE_GPIOD_MAX_EDGES) capacity = SOUNDTRACE_GPIOD_MAX_EDGES;
    int fd = gpiod_line_event_get_fd(request->line);
    if (fd < 0) return -1;
    // One read() of the descriptor: EAGAIN when it is non-blocking and nothing is pending.
    int count = gpiod_line_event_read_fd_multiple(fd, events, capacity);
    for (int index = 0; index < count; index++) {
        edges[index].rising = events[index].event_type == GPIOD_LINE_EVENT_RISING_EDGE;
        edges[index].timestamp_ns = (uint64_t)events[index].ts.tv_sec * 1000000000u + (uint64_t)events[index].ts.tv_nsec;
    }
    return count;
}

void soundtrace_gpiod_release(soundtrace_gpiod_request *request) {
    if (!request) return;
    gpiod_line_release(request->line);
    free(request);
}

#endif
