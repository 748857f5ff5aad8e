// soundtrace_gpiod.h on libgpiod 2.x (Debian 13, Raspberry Pi OS trixie; built and tested here
// against the C library bundled in PyPI's `gpiod` sources, scripts/build-libgpiod2.sh). A request
// here is independent of its chip; settings, line and request configurations are built, used
// once and freed for every request.
#include "gpiod_major.h"

#if SOUNDTRACE_GPIOD_MAJOR == 2

#include "soundtrace_gpiod.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct soundtrace_gpiod_chip {
    struct gpiod_chip *chip;
    char label[32];
    unsigned int line_count;
};

struct soundtrace_gpiod_request {
    struct gpiod_line_request *request;
    unsigned int offset;
    // For the button only: libgpiod 2 reads events into a buffer object, made once per request.
    struct gpiod_edge_event_buffer *events;
};

int soundtrace_gpiod_major(void) { return 2; }

const char *soundtrace_gpiod_version(void) { return gpiod_api_version(); }

bool soundtrace_gpiod_offers_debounce(void) { return true; }

static void copy_text(char *destination, size_t size, const char *text) {
    size_t length = text ? strnlen(text, size - 1) : 0;
    memcpy(destination, text ? text : "", length);
    destination[length] = '\0';
}

soundtrace_gpiod_chip *soundtrace_gpiod_chip_open(const char *path) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return NULL;
    // The label and line count are read once, as libgpiod 1.6 does when it opens a chip.
    struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
    soundtrace_gpiod_chip *wrapper = info ? calloc(1, sizeof(*wrapper)) : NULL;
    if (!wrapper) {
        int saved = info ? ENOMEM : errno;
        gpiod_chip_info_free(info);
        gpiod_chip_close(chip);
        errno = saved;
        return NULL;
    }
    wrapper->chip = chip;
    copy_text(wrapper->label, sizeof(wrapper->label), gpiod_chip_info_get_label(info));
    wrapper->line_count = (unsigned int)gpiod_chip_info_get_num_lines(info);
    gpiod_chip_info_free(info);
    return wrapper;
}

void soundtrace_gpiod_chip_close(soundtrace_gpiod_chip *chip) {
    if (!chip) return;
    gpiod_chip_close(chip->chip);
    free(chip);
}

const char *soundtrace_gpiod_chip_label(soundtrace_gpiod_chip *chip) { return chip->label; }

unsigned int soundtrace_gpiod_chip_line_count(soundtrace_gpiod_chip *chip) { return chip->line_count; }

int soundtrace_gpiod_find_line(soundtrace_gpiod_chip *chip, const char *name) {
    return gpiod_chip_get_line_offset_from_name(chip->chip, name);
}

int soundtrace_gpiod_read_line_info(soundtrace_gpiod_chip *chip, unsigned int offset, soundtrace_gpiod_line_info *info) {
    struct gpiod_line_info *line = gpiod_chip_get_line_info(chip->chip, offset);
    if (!line) return -1;
    copy_text(info->name, sizeof(info->name), gpiod_line_info_get_name(line));
    copy_text(info->consumer, sizeof(info->consumer), gpiod_line_info_get_consumer(line));
    info->used = gpiod_line_info_is_used(line);
    gpiod_line_info_free(line);
    return 0;
}

// Requests the one line `offset` with `settings`; NULL (errno set) on failure.
static struct gpiod_line_request *request_line(soundtrace_gpiod_chip *chip, unsigned int offset, const char *consumer,
                                               struct gpiod_line_settings *settings) {
    struct gpiod_line_request *request = NULL;
    struct gpiod_line_config *lines = gpiod_line_config_new();
    struct gpiod_request_config *config = gpiod_request_config_new();
    if (lines && config && gpiod_line_config_add_line_settings(lines, &offset, 1, settings) == 0) {
        gpiod_request_config_set_consumer(config, consumer);
        request = gpiod_chip_request_lines(chip->chip, config, lines);
    } else if (!lines || !config) {
        errno = ENOMEM;
    }
    int saved = errno;
    gpiod_request_config_free(config);
    gpiod_line_config_free(lines);
    errno = saved;
    return request;
}

static soundtrace_gpiod_request *wrap(struct gpiod_line_request *line_request, unsigned int offset,
                                      struct gpiod_edge_event_buffer *events) {
    soundtrace_gpiod_request *request = line_request ? calloc(1, sizeof(*request)) : NULL;
    if (!request) {
        int saved = line_request ? ENOMEM : errno;
        if (line_request) gpiod_line_request_release(line_request);
        gpiod_edge_event_buffer_free(events);
        errno = saved;
        return NULL;
    }
    request->request = line_request;
    request->offset = offset;
    request->events = events;
    return request;
}

soundtrace_gpiod_request *soundtrace_gpiod_request_button(soundtrace_gpiod_chip *chip, unsigned int offset,
                                                          const char *consumer, unsigned int debounce_us) {
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    struct gpiod_edge_event_buffer *events = gpiod_edge_event_buffer_new(SOUNDTRACE_GPIOD_MAX_EDGES);
    if (!settings || !events) {
        gpiod_line_settings_free(settings);
        gpiod_edge_event_buffer_free(events);
        errno = ENOMEM;
        return NULL;
    }
    gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_INPUT);
    gpiod_line_settings_set_active_low(settings, true);
    gpiod_line_settings_set_bias(settings, GPIOD_LINE_BIAS_PULL_UP);
    gpiod_line_settings_set_edge_detection(settings, GPIOD_LINE_EDGE_BOTH);
    // The daemon compares edge times with its own monotonic clock (presses before it was ready).
    gpiod_line_settings_set_event_clock(settings, GPIOD_LINE_CLOCK_MONOTONIC);
    gpiod_line_settings_set_debounce_period_us(settings, debounce_us);
    struct gpiod_line_request *request = request_line(chip, offset, consumer, settings);
    int saved = errno;
    gpiod_line_settings_free(settings);
    errno = saved;
    return wrap(request, offset, events);
}

soundtrace_gpiod_request *soundtrace_gpiod_request_output(soundtrace_gpiod_chip *chip, unsigned int offset,
                                                          const char *consumer) {
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    if (!settings) {
        errno = ENOMEM;
        return NULL;
    }
    gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_OUTPUT);
    gpiod_line_settings_set_output_value(settings, GPIOD_LINE_VALUE_INACTIVE);
    struct gpiod_line_request *request = request_line(chip, offset, consumer, settings);
    int saved = errno;
    gpiod_line_settings_free(settings);
    errno = saved;
    return wrap(request, offset, NULL);
}

int soundtrace_gpiod_request_fd(soundtrace_gpiod_request *request) {
    // Only the button's descriptor is polled; an output's never becomes readable. Say so as 1.6 does.
    return request->events ? gpiod_line_request_get_fd(request->request) : -1;
}

int soundtrace_gpiod_get_value(soundtrace_gpiod_request *request) {
    return (int)gpiod_line_request_get_value(request->request, request->offset);
}

int soundtrace_gpiod_set_value(soundtrace_gpiod_request *request, int value) {
    return gpiod_line_request_set_value(request->request, request->offset,
                                        value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
}

int soundtrace_gpiod_read_edges(soundtrace_gpiod_request *request, soundtrace_gpiod_edge *edges, unsigned int capacity) {
    if (!request->events) {
        errno = EINVAL;
        return -1;
    }
    if (capacity > SOUNDTRACE_GPIOD_MAX_EDGES) capacity = SOUNDTRACE_GPIOD_MAX_EDGES;
    // One read() of the descriptor: EAGAIN when it is non-blocking and nothing is pending.
    int count = gpiod_line_request_read_edge_events(request->request, request->events, capacity);
    for (int index = 0; index < count; index++) {
        struct gpiod_edge_event *event = gpiod_edge_event_buffer_get_event(request->events, (unsigned long)index);
        edges[index].rising = gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_RISING_EDGE;
        edges[index].timestamp_ns = gpiod_edge_event_get_timestamp_ns(event);
    }
    return count;
}

void soundtrace_gpiod_release(soundtrace_gpiod_request *request) {
    if (!request) return;
    gpiod_line_request_release(request->request);
    gpiod_edge_event_buffer_free(request->events);
    free(request);
}

#endif
