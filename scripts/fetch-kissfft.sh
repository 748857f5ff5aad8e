#!/usr/bin/env bash
# Fetches KissFFT's C sources from Debian's own `kissfft` source package into
# Sources/CKissFFT/vendor (git-ignored, never committed). Debian's libkissfft-dev ships only the
# floating-point build; Soundtrace compiles the fixed-point variant itself (see CKissFFT/include).
# The system's apt sources are not touched: a private configuration adds deb-src for this call only.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/Sources/CKissFFT/vendor"
needed=(kiss_fft.c kiss_fft.h kiss_fftr.c kiss_fftr.h _kiss_fft_guts.h kiss_fft_log.h COPYING)

have_all() { for f in "${needed[@]}"; do [ -f "$dest/$f" ] || return 1; done; }
if have_all; then exit 0; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/sources" "$work/lists/partial" "$work/cache/archives/partial"

# Reuse the mirror the system already trusts, so this works wherever apt works.
uri=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n 1 || true)
if [ -z "$uri" ]; then
  uri=$(awk '$1 == "deb" && $0 !~ /security/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
fi
uri=${uri:-http://deb.debian.org/debian}
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")

cat >"$work/sources/kissfft-src.sources" <<SRC
Types: deb-src
URIs: $uri
Suites: $suite
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC

apt_private=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/sources"
             -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
             -o APT::Sandbox::User=root -q)
echo "fetching KissFFT sources from Debian ($uri $suite)…" >&2
apt-get "${apt_private[@]}" update >/dev/null
(cd "$work" && apt-get "${apt_private[@]}" source --download-only kissfft >/dev/null)
orig=$(ls "$work"/kissfft_*.orig.tar.* | head -n 1)
mkdir -p "$work/x"
tar -xf "$orig" -C "$work/x"
src=$(ls -d "$work"/x/kissfft-* | head -n 1)
mkdir -p "$dest"
for f in "${needed[@]}"; do cp "$src/$f" "$dest/$f"; done
basename "$orig" >"$dest/SOURCE"
echo "KissFFT sources in $dest (from $(cat "$dest/SOURCE"))" >&2
