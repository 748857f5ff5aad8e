// The kernel's GPIO character-device interface (uAPI v2, Linux 5.10 and later), reached from
// Swift. ioctl() is variadic, which Swift cannot call, so each request gets a typed wrapper here;
// everything else (filling the structures, reading events) is done in Swift. No library is linked.
#ifndef SOUNDTRACE_CGPIO_SHIM_H
#define SOUNDTRACE_CGPIO_SHIM_H

#include <linux/gpio.h>
#include <sys/ioctl.h>

static inline int soundtrace_gpio_chip_info(int chip, struct gpiochip_info *info) {
    return ioctl(chip, GPIO_GET_CHIPINFO_IOCTL, info);
}

static inline int soundtrace_gpio_line_info(int chip, struct gpio_v2_line_info *info) {
    return ioctl(chip, GPIO_V2_GET_LINEINFO_IOCTL, info);
}

static inline int soundtrace_gpio_request_lines(int chip, struct gpio_v2_line_request *request) {
    return ioctl(chip, GPIO_V2_GET_LINE_IOCTL, request);
}

static inline int soundtrace_gpio_set_values(int line, struct gpio_v2_line_values *values) {
    return ioctl(line, GPIO_V2_LINE_SET_VALUES_IOCTL, values);
}

static inline int soundtrace_gpio_get_values(int line, struct gpio_v2_line_values *values) {
    return ioctl(line, GPIO_V2_LINE_GET_VALUES_IOCTL, values);
}

#endif
