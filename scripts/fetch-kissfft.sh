#!/usr/bin/env bash
# Fetches KissFFT's C sources from Debian's own `kissfft` source package into
# Sources/CKissFFT/vendor (git-ignored, never committed). Debian's libkissfft-dev ships only the
# floating-point build; Soundtrace compiles the fixed-point variant itself (see CKissFFT/include).
# The system's apt sources are not touched (scripts/debian-source.sh).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/Sources/CKissFFT/vendor"
needed=(kiss_fft.c kiss_fft.h kiss_fftr.c kiss_fftr.h _kiss_fft_guts.h kiss_fft_log.h COPYING)

have_all() { for f in "${needed[@]}"; do [ -f "$dest/$f" ] || return 1; done; }
if have_all; then exit 0; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$root/scripts/debian-source.sh"
debian_source kissfft "$work"
orig=$(ls "$work"/kissfft_*.orig.tar.* | head -n 1)
mkdir -p "$work/x"
tar -xf "$orig" -C "$work/x"
src=$(ls -d "$work"/x/kissfft-* | head -n 1)
mkdir -p "$dest"
for f in "${needed[@]}"; do cp "$src/$f" "$dest/$f"; done
basename "$orig" >"$dest/SOURCE"
echo "KissFFT sources in $dest (from $(cat "$dest/SOURCE"))" >&2
