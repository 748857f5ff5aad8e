#!/usr/bin/env bash
# Power loss of the real daemon (issue 14, part 5; docs/RELIABILITY.md): soundtraced on the bundled
# catalog, a capture device (ALSA's file plugin) playing a catalog recording, two protocol clients
# listening, deleting and (un)favoriting, and SIGKILL at a random moment of each cycle, with the
# WAL checkpoints that follow every write in flight. After every kill the history file is checked
# with Python's own SQLite: integrity_check, every acknowledged event present, every acknowledged
# delete and favorite as acknowledged; each restart checks it again itself. Session ids must never
# repeat across kills. Exit status 1 on the first failure.
#
#   bench/power-loss/run.sh                  # 200 cycles (about 5 minutes)
#   bench/power-loss/run.sh --cycles 20      # what `make test` runs
#   bench/power-loss/run.sh --seed 7 --binary PATH
#
# Without --binary it uses .build/release/soundtraced, built first when missing or older than a
# source (bench/release-soundtraced.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [[ " $* " != *" --binary "* ]]; then
    binary=$("$here/../release-soundtraced.sh")  # an assignment, so that a failed build stops here
    set -- --binary "$binary" "$@"
fi
exec python3 "$here/power_loss.py" "$@"
