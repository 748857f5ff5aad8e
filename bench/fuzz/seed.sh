#!/usr/bin/env bash
# Rewrites the seed corpora in bench/fuzz/corpus from the repository's own material: the shipped
# configuration, the manifest, the bundled catalog's header, the exchanges of docs/PROTOCOL.md,
# and (written by the harnesses themselves) small catalogs and WAV files in every accepted form.
# Run it when a format changes; the seeds are committed, what the fuzzer adds to them is not.
# Seeds named regression-* (inputs that once crashed a harness, kept by hand) survive the rewrite.
#
#   bench/fuzz/seed.sh [BUILD_DIR]
#     BUILD_DIR: the harnesses' build (default run.sh's, /tmp/soundtrace-fuzz/CHECKOUT/build)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${1:-/tmp/soundtrace-fuzz/$(printf '%s' "$here" | cksum | cut -d ' ' -f 1)/build}
"$here/build.sh" "$build" catalog wav >/dev/null
corpus="$here/corpus"
kept=$(mktemp -d)
trap 'rm -rf "$kept"' EXIT
(cd "$corpus" && find . -type f -name 'regression-*' -exec cp --parents {} "$kept" \;)
rm -rf "$corpus"
mkdir -p "$corpus"/{catalog,wav,manifest,config,request,reply,faults}
cp -R "$kept"/. "$corpus"/

SOUNDTRACE_FUZZ_SEEDS="$corpus/catalog" SWIFT_BACKTRACE=enable=no "$build/fuzz-catalog"
SOUNDTRACE_FUZZ_SEEDS="$corpus/wav" SWIFT_BACKTRACE=enable=no "$build/fuzz-wav"
# The real catalog's header, parameters and first references (the rest would be 500 KB).
head -c 2048 "$repo/catalog/soundtrace.catalog" > "$corpus/catalog/bundled-head"

cp "$repo/catalog/manifest.json" "$corpus/manifest/bundled.json"
printf '{"version": 1, "references": [{"id": "abc", "title": "T", "creator": "C", "license": "CC0-1.0", "sourceFile": "a/b.wav"}]}' \
  > "$corpus/manifest/minimal.json"
printf '{"version": 2.0, "references": [{"id": "x-1", "title": "\\u00e9 \\t", "creator": "C", "license": "L", "sourceFile": "../x.wav", "metadata": {"k": 1}}], "extra": true}' \
  > "$corpus/manifest/refused.json"

cp "$repo/deploy/soundtraced.conf" "$corpus/config/shipped.conf"
printf 'bind = 0.0.0.0\r\ntoken_file = /etc/soundtrace/token\r\nmax_clients = 2\r\nport=6680\r\n' > "$corpus/config/lan-crlf.conf"
printf 'gpio = no\nmuted = yes\nbutton_line = GPIO5\nlistening_led_line = GPIO6\nresult_led_line = GPIO5\nwindow_seconds = 31\n' \
  > "$corpus/config/lines.conf"
printf 'catalog = relative/path\nbogus\nstate_dirr = /x\n' > "$corpus/config/errors.conf"

# Request streams: the first byte sets the read size (see harness/request.swift).
printf '\x07ping\ncommands\ntoken s3cret\nstatus\nidle state history\nnoidle\nlisten\nsession s-4\ncancel s-4\n' > "$corpus/request/session"
printf '\x01history 0:2\r\nshow 12\nshare 12\ndelete 12\nfavorite harbor-lights\nunfavorite "a \\"b\\" c"\nfavorites\ncatalog 10:\nreference x\nguide\n' \
  > "$corpus/request/records"
printf '\x10GET / HTTP/1.1\nlisten \xcc\x81\n"quoted" x\ncancel "open\nidle a b c d e f g h i\n' > "$corpus/request/refused"

# Conversations as a daemon sends them (docs/PROTOCOL.md), after the greeting.
greeting='OK SOUNDTRACE 1\n'
printf "${greeting}"'OK\ncommand: ping\ncommand: commands\nOK\npermission: control\nOK\nACK [3@0] {token} wrong token (2 tries left before the connection closes)\n' \
  > "$corpus/reply/ping-commands-token"
printf "${greeting}"'session: s-4\nstate: listening\nstarted_at: 2026-11-29T15:40:00.500Z\ndevice: default\nOK\nsession: s-4\nstate: matched\nstarted_at: 2026-11-29T15:40:00.500Z\ndevice: default\nreference: harbor-lights\ntitle: Harbor Lights\ncreator: Soundtrace Project\nlicense: CC0-1.0\noffset: 12.345\nscore: 57\nrunner_up: 3\nheard: 1.875\nevent: 12\nsaved: no\nsave_error: disk full\nOK\n' \
  > "$corpus/reply/sessions"
printf "${greeting}"'state: listening\nsession: s-4\nsession_state: listening\nlast_session: s-3\nlast_outcome: noMatch\nlast_message: heard audio that is not in the catalog\ncalm: no\ncatalog: ok\ncatalog_version: 1\ncatalog_hash: 075693fc\ncatalog_references: 7\ndevice: default\ndevice_health: ok\nwindow: 10\npanel: gpio\nOK\n' \
  > "$corpus/reply/status"
printf "${greeting}"'id: 12\nsession: s-4\nreference: harbor-lights\ntitle: Harbor Lights\ncreator: Soundtrace Project\nmatched_at: 2026-11-29T15:40:02.375Z\noffset: -0.250\nscore: 57\nfavorite: yes\nmeta: tempoBpm=80\nmeta: novalue\nid: 11\nduration: 103.400\nOK\ntext: Heard "Harbor Lights"\nOK\ndeleted: 12\nOK\nchanged: state\nOK\n' \
  > "$corpus/reply/history"
printf 'ACK [56@0] {} too many clients (7 for the network, 1 kept for this machine); try again later\n' > "$corpus/reply/refused-greeting"
printf 'OK SOUNDTRACE 2\r\n' > "$corpus/reply/other-version"

# Fault inputs: error code (little-endian), options byte, NUL-separated names.
printf '\xfe\xff\xff\xff\x41default\0plughw:CARD=Mic,DEV=0\0null\0default\0lavrate' > "$corpus/faults/not-found"
printf '\xf0\xff\xff\xff\x10plughw:1,0\0GPIO17\0GPIO23' > "$corpus/faults/busy"
printf '\x96\xff\xff\xff\x00pulse\0' > "$corpus/faults/server"
du -sh "$corpus"/* | sed 's|'"$here"'/||'
