// libgpiod's own header, whichever major is installed (1.6 on Debian 12 and Raspberry Pi OS
// bookworm, 2.x on Debian 13 and trixie). Nothing imports this module from Swift: it exists for
// its pkg-config flags, which reach the C shim in Sources/CGPIOD (see its header). The library is
// linked by pkg-config's `Libs` alone, not by a `link` line here, so that a .pc file can choose
// the static archive instead (scripts/swift-build-static.sh --static-libgpiod, build-libgpiod2.sh).
#ifndef SOUNDTRACE_CLIBGPIOD_SHIM_H
#define SOUNDTRACE_CLIBGPIOD_SHIM_H

#include <gpiod.h>

#endif
