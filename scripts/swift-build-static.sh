#!/usr/bin/env bash
# The deployed build: `swift build -c release` with the Swift standard library linked in
# (-static-stdlib) and GCC's C++ runtime (libstdc++) and unwinder (libgcc_eh) linked in as well.
# glibc, SQLite and ALSA stay shared libraries (ALSA loads its plugins with dlopen).
#
#   scripts/swift-build-static.sh [more swift build arguments: --product P, --scratch-path DIR, …]
#
# Why libstdc++ too: the Swift runtime needs a little of it, and loading libstdc++.so.6 for that
# costs the daemon about 0.8 MiB of resident memory (mostly the library's own dynamic symbol
# tables, which the dynamic linker reads for every symbol it resolves); linked in, only the parts
# the runtime uses are in the binary and nothing of it is exported (measured in bench/daemon; see
# docs/BENCHMARKS.md). The swift driver's -static-stdlib always links -lstdc++ (its
# static-stdlib-args.lnk), so the way to make that the static archive is a linker search folder,
# ahead of GCC's own, that holds only libstdc++.a: the linker takes the first folder with a match.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "swift-build-static.sh: error: $*" >&2; exit 1; }
command -v swift >/dev/null || die "swift is not on PATH (export PATH=/opt/swift/usr/bin:\$PATH)"
command -v clang >/dev/null || die "the Swift toolchain's clang is not on PATH"

scratch="$repo/.build"
previous=
for argument in "$@"; do
    [ "$previous" = --scratch-path ] && scratch=$argument
    case "$argument" in --scratch-path=*) scratch=${argument#--scratch-path=} ;; esac
    previous=$argument
done

archive=$(clang -print-file-name=libstdc++.a)
[ "$archive" != libstdc++.a ] && [ -f "$archive" ] \
    || die "GCC's static libstdc++.a was not found: apt-get install libstdc++-12-dev (the version of the installed GCC)"
cxx_dir="$scratch/static-libstdc++"
mkdir -p "$cxx_dir"
ln -sfn "$archive" "$cxx_dir/libstdc++.a"

exec swift build --package-path "$repo" -c release -Xswiftc -static-stdlib \
    -Xlinker -L"$cxx_dir" -Xswiftc -Xclang-linker -Xswiftc -static-libgcc "$@"
