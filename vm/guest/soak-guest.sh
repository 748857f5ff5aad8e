#!/bin/sh
# Runs inside the virtual board (busybox sh) for vm/soak.sh: the real soundtraced on gpio-sim lines
# and the ALSA loopback with a 3 s window, driven by /payload/soak.py for CYCLES session cycles (8
# protocol clients, the bouncing button, clips played into the loopback; it checks the invariants
# and prints the SOAK-SUMMARY line); then one start of the daemon in the whole run, a clean stop on
# SIGTERM, and the history database's integrity.
#
#   sh /payload/soak-guest.sh CYCLES SEED
# Exit status: the number of failed checks.
. /payload/checks.sh
cycles=${1:-50} seed=${2:-14}
finish() {
  echo "SOAK-GUEST failures=$fails guest-seconds=$(since $t0)"
  exit $fails
}

. /payload/board.sh
board_setup || { check board-setup 1 "gpio-sim chip could not be created"; finish; }
ip link set lo up
# Released before the daemon starts: the daemon's button is active-low with the pull-up (to
# ground, docs/HARDWARE.md), so released is the simulated pull up.
echo pull-up >"$(board_sim_dir GPIO17)/pull"

mkdir -p /tmp/soak-state
d=$(now)
board_daemon_start /payload/soak.conf /tmp/daemon.log
check daemon-ready $? "after $(since $d) s: $BOARD_READY"
[ -n "$BOARD_READY" ] || { echo "OBSERVE daemon-log: $(tail -n 20 /tmp/daemon.log | one_line)"; finish; }
daemon=$BOARD_DAEMON

python3 -S -E -X utf8 /payload/soak.py --cycles "$cycles" --pid "$daemon" --window 3 --port 6680 --seed "$seed" \
  --button "$(board_sim_dir GPIO17)" --led-listen "$(board_sim_dir GPIO23)" \
  --led-result "$(board_sim_dir GPIO24)" --buzzer "$(board_sim_dir GPIO25)"
prc=$?
# soak.py's status is the number of its failed checks (each printed as a CHECK line).
fails=$((fails + prc))

# The daemon started once: still the same process, and its log says so once.
starts=$(grep -c 'serving protocol' /tmp/daemon.log)
kill -0 "$daemon" 2>/dev/null && [ "$starts" = 1 ]
check daemon-no-restarts $? "pid $daemon running=$(kill -0 "$daemon" 2>/dev/null && echo yes || echo no), 'serving protocol' logged $starts times"
echo "OBSERVE daemon-log-warnings: $(grep -E 'warning|error' /tmp/daemon.log | sort | uniq -c | sort -rn | head -n 8 | one_line)"

t_term=$(now)
kill -TERM "$daemon"
i=0; while kill -0 "$daemon" 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 "$daemon" 2>/dev/null; then stopped=no; kill -9 "$daemon"; else stopped=yes; fi
wait "$daemon"; drc=$?
[ $stopped = yes ] && [ $drc = 0 ]
check daemon-stops-on-term $? "stopped=$stopped after $(since $t_term) s, exit status $drc; log tail: $(tail -n 2 /tmp/daemon.log | one_line)"

python3 -S -E -X utf8 /payload/soak.py --integrity /tmp/soak-state/history.db
[ $? = 0 ] || fails=$((fails + 1))
finish
