#!/usr/bin/env bash
# Protocol stress (issue 14, part 4; docs/RELIABILITY.md): random, mutated and valid lines against
# the real soundtraced over loopback, each checked against the answer docs/PROTOCOL.md gives it,
# then connection churn; exits 1 on a crash, a hang, an unexpected answer, fd growth or RSS growth.
#
#   bench/protocol-stress/run.sh                          # 1,000,000 lines, 10,000 churn operations
#   bench/protocol-stress/run.sh --lines 20000 --churn 500   # what `make test` runs
#   bench/protocol-stress/run.sh --seed 7 --binary PATH   # another sequence, another build
#
# Without --binary it uses .build/release/soundtraced, built first when missing or older than a
# source (bench/release-soundtraced.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [[ " $* " != *" --binary "* ]]; then
    binary=$("$here/../release-soundtraced.sh")  # an assignment, so that a failed build stops here
    set -- --binary "$binary" "$@"
fi
exec python3 "$here/stress.py" "$@"
