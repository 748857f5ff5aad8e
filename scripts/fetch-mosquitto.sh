#!/usr/bin/env bash
# Fetches the MQTT client library's C sources from Debian's own `mosquitto` source package, with
# Debian's patches applied (its security fixes included), into Sources/CMosquittoBuiltin/vendor
# (git-ignored, never committed). soundtraced compiles them without TLS into its binary for
# plain-TCP brokers: Debian's libmosquitto1 is always linked against OpenSSL, which adds about
# 1.8 MiB of resident memory to a daemon that never uses it (docs/BENCHMARKS.md, "The MQTT link").
# With mqtt_tls_ca_file set, the daemon loads Debian's libmosquitto1 instead (Sources/CMosquitto).
# The system's apt sources are not touched (scripts/debian-source.sh).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/Sources/CMosquittoBuiltin/vendor"
if [ -f "$dest/SOURCE" ] && [ -f "$dest/lib/mosquitto.c" ] && [ -f "$dest/include/mosquitto.h" ]; then exit 0; fi

for tool in apt-get dpkg-source; do
  command -v "$tool" >/dev/null || { echo "fetch-mosquitto.sh: $tool is missing (scripts/setup.sh installs dpkg-dev)" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$root/scripts/debian-source.sh"
debian_source mosquitto "$work"
dsc=$(ls "$work"/mosquitto_*.dsc | head -n 1)
# apt checked the .dsc against the archive's signed index, and dpkg-source checks the files against
# the .dsc and applies debian/patches. (It cannot check the uploader's own signature without the
# Debian keyrings, and says so: that note is shown only if the extraction fails.)
dpkg-source --no-copy -x "$dsc" "$work/x" >"$work/dpkg-source.log" 2>&1 \
  || { cat "$work/dpkg-source.log" >&2; echo "fetch-mosquitto.sh: dpkg-source could not unpack $(basename "$dsc")" >&2; exit 1; }
src="$work/x"
rm -rf "$dest"
mkdir -p "$dest/lib" "$dest/include" "$dest/deps"
cp "$src"/lib/*.c "$src"/lib/*.h "$dest/lib/"
# OCSP stapling is TLS only (empty without WITH_TLS) and carries a licence of its own (curl's): left out.
rm "$dest/lib/net_mosq_ocsp.c"
cp "$src"/include/*.h "$dest/include/"
cp "$src"/deps/*.h "$dest/deps/"
cp "$src/config.h" "$src/LICENSE.txt" "$src/edl-v10" "$src/epl-v20" "$dest/"
basename "$dsc" >"$dest/SOURCE"
echo "mosquitto sources in $dest (from $(cat "$dest/SOURCE"))" >&2
