#!/usr/bin/env bash
# Builds libgpiod 2's C library as a static library, so that soundtraced's libgpiod 2 path can be
# built and tested on Debian 12, which ships only libgpiod 1.6. The sources come from PyPI's `gpiod`
# source distribution (the Python bindings), which bundles the C library (lib/*.c, include/gpiod.h);
# it is downloaded with pip at test time into a cache outside the repository, checked against the
# SHA-256 below, and never committed (PROVENANCE.md).
#
#   scripts/build-libgpiod2.sh
#
# Prints the pkg-config folder of the result on standard output; a build against it:
#
#   PKG_CONFIG_PATH=$(scripts/build-libgpiod2.sh) swift build --scratch-path .build/libgpiod2 ...
#
# SwiftPM then finds this libgpiod.pc before the system's (1.6): the C shim is compiled against
# its gpiod.h and links the library statically. The .pc names a file (-l:libgpiod.o), not -lgpiod:
# SwiftPM passes other libraries' -L/usr/lib/<triplet> first, where -lgpiod would find the
# system's libgpiod 1.6 shared library instead. And that file is the library's objects joined into
# one relocatable object rather than the archive libgpiod.a (also built): SwiftPM puts pkg-config's
# libraries before the program's objects, and a linker that reads archives in command-line order
# (gold, swift's default on Linux) would take nothing from an archive at that point.
# Cache: $SOUNDTRACE_LIBGPIOD2_CACHE, else /var/cache/soundtrace-libgpiod2 as root and
# ~/.cache/soundtrace-libgpiod2 otherwise. Idempotent: a finished build is reused.
set -euo pipefail

program=build-libgpiod2.sh
die() { echo "$program: error: $*" >&2; exit 1; }
say() { echo "$program: $*" >&2; }

sdist_version=2.5.0
sdist_sha256=53ae5a1f14d6388c155b591ca0fc0cfa73b44d4f6d8d117e8a9e68f5902d187a
sdist=gpiod-$sdist_version.tar.gz

if [ -n "${SOUNDTRACE_LIBGPIOD2_CACHE:-}" ]; then
    cache=$SOUNDTRACE_LIBGPIOD2_CACHE
elif [ "$(id -u)" = 0 ]; then
    cache=/var/cache/soundtrace-libgpiod2
else
    cache=${XDG_CACHE_HOME:-$HOME/.cache}/soundtrace-libgpiod2
fi
prefix=$cache/gpiod-$sdist_version/prefix
mkdir -p "$cache"
# One build at a time per cache (parallel test runs share it).
exec 9>"$cache/.lock"
flock 9

if [ -f "$prefix/.complete" ]; then
    echo "$prefix/lib/pkgconfig"
    exit 0
fi

# The system's compiler, or the Swift toolchain's clang where there is none.
if [ -z "${CC:-}" ]; then
    for CC in cc clang; do command -v "$CC" >/dev/null && break; done
fi
command -v "$CC" >/dev/null || die "no C compiler ('$CC'): apt-get install gcc, or put the Swift toolchain on PATH"
command -v ar >/dev/null || die "'ar' is missing: apt-get install binutils"

# 1. The source distribution, exactly the one recorded in PROVENANCE.md.
if [ ! -f "$cache/$sdist" ] || ! echo "$sdist_sha256  $cache/$sdist" | sha256sum -c --status; then
    python3 -m pip --version >/dev/null 2>&1 || die "pip is missing: apt-get install python3-pip"
    download=$(mktemp -d "$cache/download.XXXXXX")
    say "downloading PyPI's gpiod $sdist_version source distribution (libgpiod 2's C library inside)"
    # --no-binary: the source distribution, not a wheel (wheels hold only the compiled module).
    python3 -m pip download --quiet --no-binary :all: --no-deps --dest "$download" "gpiod==$sdist_version" >&2 \
        || { rm -rf "$download"; die "pip could not download gpiod==$sdist_version from PyPI (network? a proxy?)"; }
    [ -f "$download/$sdist" ] || { rm -rf "$download"; die "pip downloaded no $sdist"; }
    if ! echo "$sdist_sha256  $download/$sdist" | sha256sum -c --status; then
        actual=$(sha256sum "$download/$sdist" | cut -d' ' -f1)
        rm -rf "$download"
        die "$sdist has SHA-256 $actual, not the recorded $sdist_sha256: refusing to build it"
    fi
    mv "$download/$sdist" "$cache/$sdist"
    rm -rf "$download"
fi

# 2. Unpack only the C library and its licence.
work=$(mktemp -d "$cache/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
top=gpiod-$sdist_version
tar -xzf "$cache/$sdist" -C "$work" "$top/lib" "$top/include" "$top/libgpiod-version.txt" "$top/LICENSE" \
    || die "$sdist has no lib/, include/ or libgpiod-version.txt: not the layout this script knows"
src=$work/$top
libgpiod_version=$(tr -d '[:space:]' <"$src/libgpiod-version.txt")
[[ "$libgpiod_version" =~ ^2\.[0-9]+(\.[0-9]+)?$ ]] \
    || die "$sdist bundles libgpiod '$libgpiod_version', not a 2.x version"

# 3. Compile as the bindings' setup.py does (its sources, include folders and version define).
say "compiling libgpiod $libgpiod_version (from gpiod $sdist_version) into a static library"
objects=()
for source in "$src"/lib/*.c; do
    object=$work/$(basename "${source%.c}").o
    "$CC" -O2 -fPIC -std=gnu11 -D_GNU_SOURCE -Wall \
        -DGPIOD_API_VERSION_STR="\"$libgpiod_version\"" -I "$src/include" -I "$src/lib" \
        -c "$source" -o "$object" || die "compiling $(basename "$source") failed"
    objects+=("$object")
done
[ ${#objects[@]} -gt 0 ] || die "$sdist has no lib/*.c"

stage=$work/prefix
mkdir -p "$stage/include" "$stage/lib/pkgconfig" "$stage/share/doc"
ar rcs "$stage/lib/libgpiod.a" "${objects[@]}"
"$CC" -r -nostdlib -o "$stage/lib/libgpiod.o" "${objects[@]}" || die "joining the objects into libgpiod.o failed"
install -m 0644 "$src/include/gpiod.h" "$stage/include/gpiod.h"
install -m 0644 "$src/LICENSE" "$stage/share/doc/LICENSE"
cat >"$stage/lib/pkgconfig/libgpiod.pc" <<EOF
prefix=$prefix
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: libgpiod
Description: libgpiod $libgpiod_version C library from PyPI gpiod $sdist_version, static, for tests
Version: $libgpiod_version
Libs: -L\${libdir} -l:libgpiod.o
Cflags: -I\${includedir}
EOF
touch "$stage/.complete"
rm -rf "$prefix"
mkdir -p "$(dirname "$prefix")"
mv "$stage" "$prefix"
say "libgpiod $libgpiod_version: $prefix/lib/libgpiod.a (and libgpiod.o, the same objects joined)"
echo "$prefix/lib/pkgconfig"
