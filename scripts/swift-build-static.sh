#!/usr/bin/env bash
# The deployed build: `swift build -c release` with the Swift standard library linked in
# (-static-stdlib), GCC's C++ runtime (libstdc++) and unwinder (libgcc_eh) linked in as well, and
# linked by the toolchain's lld with packed relocations and without exported symbols. glibc (2.36
# or later), SQLite, ALSA (which loads its plugins with dlopen) and libgpiod stay shared libraries.
#
#   scripts/swift-build-static.sh [--static-libgpiod] [more swift build arguments: --product P, --scratch-path DIR, …]
#   scripts/swift-build-static.sh --swiftc-flags [--scratch-path DIR]   the same flags for swiftc,
#                                                                        one a line (benchmark baselines)
#
# libgpiod is a shared library too (the package depends on libgpiod2), unless --static-libgpiod:
# then the libgpiod.a next to the libgpiod that pkg-config finds is linked in (Debian's
# libgpiod-dev ships one; scripts/build-libgpiod2.sh makes one of libgpiod 2 and puts its .pc on
# PKG_CONFIG_PATH). The virtual board's daemon is linked that way (vm/daemon-board.sh), so that
# the libgpiod under test is the one in the binary, whatever the guest has installed for gpioinfo.
#
# Each flag is there for the daemon's 10 MB memory budget, measured in bench/daemon (see
# docs/BENCHMARKS.md); none changes what the code does:
# - libstdc++ and libgcc linked in: the Swift runtime needs a little of them, and loading
#   libstdc++.so.6 for that cost ~0.8 MiB of resident memory (mostly its dynamic symbol tables,
#   which the dynamic linker reads while it resolves symbols). The swift driver's -static-stdlib
#   always links -lstdc++ (its static-stdlib-args.lnk), so the way to make that the static archive
#   is a linker search folder, ahead of GCC's own, that holds only libstdc++.a: the linker takes the
#   first folder with a match.
# - -z pack-relative-relocs (DT_RELR, glibc 2.36): the Swift binary has ~20 000 relative
#   relocations; as RELA records they are a 0.5 MB table the dynamic linker reads at every start
#   (and which then stays resident); packed, 4 KB. gold, the swift driver's default linker on
#   Linux, cannot pack them; the toolchain's own lld can.
# - --no-export-dynamic: static-stdlib-args.lnk exports the program's own symbols (the libraries'
#   are hidden by --exclude-libs). Nothing looks them up — there are no plugins and the runtime
#   finds types through its metadata sections — but their 150 KB of symbol tables were resident.
# - --symbol-ordering-file scripts/soundtrace.symbol-order: the functions a day of kiosk use runs
#   (written by scripts/symbol-order.py from callgrind runs of the CLI and the daemon), placed side
#   by side, the CLI's short list first.
#   The kernel maps code around every page a program faults in (64 KiB fault-around), so the few
#   thousand functions the daemon uses, scattered over a 5 MB binary (the Swift runtime and standard
#   library are compiled with one section per function), kept ~1.3 MiB more code resident than
#   the same functions packed together. Names the list has but the binary lacks are ignored, so
#   a stale list costs memory, never the build (deploy/build-deb.sh warns when over 1 in 20 are gone).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "swift-build-static.sh: error: $*" >&2; exit 1; }
command -v swift >/dev/null || die "swift is not on PATH (export PATH=/opt/swift/usr/bin:\$PATH)"
command -v clang >/dev/null || die "the Swift toolchain's clang is not on PATH"

scratch="$repo/.build"
print_flags=no
static_gpiod=no
if [ "${1:-}" = --swiftc-flags ]; then print_flags=yes; shift; fi
previous=
passed=()
for argument in "$@"; do
    [ "$previous" = --scratch-path ] && scratch=$argument
    case "$argument" in
        --scratch-path=*) scratch=${argument#--scratch-path=} ;;
        --static-libgpiod) static_gpiod=yes; continue ;;
    esac
    passed+=("$argument")
    previous=$argument
done
set -- "${passed[@]+"${passed[@]}"}"

archive=$(clang -print-file-name=libstdc++.a)
[ "$archive" != libstdc++.a ] && [ -f "$archive" ] \
    || die "GCC's static libstdc++.a was not found: apt-get install libstdc++-12-dev (the version of the installed GCC)"
cxx_dir="$scratch/static-libstdc++"
mkdir -p "$cxx_dir"
ln -sfn "$archive" "$cxx_dir/libstdc++.a"

# libgpiod's archive: the search-folder trick cannot work for it, because SwiftPM puts the other
# libraries' -L/usr/lib/<triplet> (from their pkg-config files) ahead of any folder given here, and
# libgpiod is linked only through pkg-config. So the archive's objects are joined into one
# relocatable object (any linker takes all of an object, wherever it stands on the command line;
# SwiftPM puts pkg-config's libraries before the program's objects) and a copy of the libgpiod.pc
# that pkg-config finds, with Libs naming that file (-l:libgpiod.o), goes first on PKG_CONFIG_PATH.
if [ "$static_gpiod" = yes ]; then
    command -v pkg-config >/dev/null || die "pkg-config is missing: apt-get install pkg-config"
    command -v ld >/dev/null || die "ld is missing: apt-get install binutils"
    gpiod_libdir=$(pkg-config --variable=libdir libgpiod) \
        || die "pkg-config knows no libgpiod: apt-get install libgpiod-dev (or put scripts/build-libgpiod2.sh's folder on PKG_CONFIG_PATH)"
    gpiod_version=$(pkg-config --modversion libgpiod)
    [ -f "$gpiod_libdir/libgpiod.a" ] \
        || die "no static libgpiod.a in $gpiod_libdir (libgpiod $gpiod_version): apt-get install libgpiod-dev, which ships it"
    mkdir -p "$scratch/static-libgpiod"
    # Absolute: SwiftPM ignores relative PKG_CONFIG_PATH entries.
    gpiod_dir=$(cd "$scratch/static-libgpiod" && pwd)
    ld -r --whole-archive "$gpiod_libdir/libgpiod.a" -o "$gpiod_dir/libgpiod.o" \
        || die "could not join $gpiod_libdir/libgpiod.a into one object"
    cat >"$gpiod_dir/libgpiod.pc" <<EOF
Name: libgpiod
Description: libgpiod $gpiod_version from $gpiod_libdir, linked statically (swift-build-static.sh --static-libgpiod)
Version: $gpiod_version
Libs: -L$gpiod_dir -l:libgpiod.o
Cflags: $(pkg-config --cflags libgpiod)
EOF
    export PKG_CONFIG_PATH="$gpiod_dir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
fi
# SwiftPM keeps its build plan, pkg-config's answers included, until the package itself changes, so
# a scratch folder last built with another libgpiod (shared or static, 1.6 or 2) would still link
# that one. Remember the flags the plan was made with; when they differ, drop the plan (the
# llbuild manifest), and SwiftPM makes a new one.
mkdir -p "$scratch"
gpiod_key=$(pkg-config --cflags --libs libgpiod 2>&1 || true)
if [ "$print_flags" = no ] && [ "$(cat "$scratch/libgpiod.flags" 2>/dev/null)" != "$gpiod_key" ]; then
    rm -f "$scratch"/*.yaml
    printf '%s\n' "$gpiod_key" >"$scratch/libgpiod.flags"
fi

order="$repo/scripts/soundtrace.symbol-order"
[ -f "$order" ] || die "$order is missing (scripts/symbol-order.py writes it)"
# SwiftPM does not know the list is an input of the link, so a changed list would not be used until
# something else changed: when it differs from the one this scratch folder last linked with, remove
# the linked programs, and SwiftPM links them again.
order_key=$(cksum <"$order")
if [ "$print_flags" = no ] && [ "$(cat "$scratch/symbol-order.key" 2>/dev/null)" != "$order_key" ]; then
    [ -d "$scratch/release/" ] && find "$scratch/release/" -maxdepth 1 -type f -perm -u+x -delete
    printf '%s\n' "$order_key" >"$scratch/symbol-order.key"
fi
flags=(-static-stdlib -L "$cxx_dir" -Xclang-linker -static-libgcc
       -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic
       -Xlinker --symbol-ordering-file="$order" -Xlinker --no-warn-symbol-ordering)
if [ "$print_flags" = yes ]; then
    printf '%s\n' "${flags[@]}"
    exit 0
fi
build_flags=()
for flag in "${flags[@]}"; do build_flags+=(-Xswiftc "$flag"); done
stamp=$(mktemp)
trap 'rm -f "$stamp"' EXIT
swift build --package-path "$repo" -c release "${build_flags[@]}" "$@"
# The search-folder trick depends on the order of folders the toolchain passes to the linker; make
# sure it worked rather than ship a binary that loads libstdc++.so after all.
for binary in "$scratch/release/soundtraced" "$scratch/release/soundtrace"; do
    # Only what this build linked: an older binary left in the scratch folder is not its result.
    [ -x "$binary" ] && [ "$binary" -nt "$stamp" ] || continue
    # grep without -q reads to the end, so readelf never dies of SIGPIPE (pipefail would report it).
    if readelf -d "$binary" | grep -E 'NEEDED.*\[lib(stdc\+\+|gcc_s)\.so' >/dev/null; then
        die "$binary still loads libstdc++.so or libgcc_s.so: the linker did not take $cxx_dir/libstdc++.a"
    fi
    if [ "$static_gpiod" = yes ] && readelf -d "$binary" | grep -E 'NEEDED.*\[libgpiod\.so' >/dev/null; then
        die "$binary still loads libgpiod.so: the linker did not take $gpiod_libdir/libgpiod.a"
    fi
done
