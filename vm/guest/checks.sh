# Sourced by guest tests (busybox sh): "CHECK <name>: PASS|FAIL [t+S] <evidence>" lines counted in
# $fails, times from /proc/uptime, and evidence squeezed onto one line.
fails=0
t0=$(cut -d' ' -f1 /proc/uptime)
now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}'; }
check() { # check NAME CONDITION-STATUS EVIDENCE
  if [ "$2" = 0 ]; then r=PASS; else r=FAIL; fails=$((fails + 1)); fi
  echo "CHECK $1: $r [t+$(since $t0)s] $3"
}
one_line() { tr '\n' ' ' | sed 's/  */ /g; s/ $//'; }
