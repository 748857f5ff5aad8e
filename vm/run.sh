#!/usr/bin/env bash
# Boots Debian's kernel with an initramfs from mkinitramfs.sh under qemu (TCG: no KVM here) and
# exits with the status the guest's command printed in its result marker.
#
#   vm/run.sh -i INITRD [-t TIMEOUT_SECONDS] [-l LOGFILE] [-q] [-a "EXTRA KERNEL ARGS"]
#
# The serial console is streamed to stderr (-q: only to the log) and saved in LOGFILE
# (default: $cache/logs/last.log). Exit status: the guest's; 124 on timeout; 125 when qemu ended
# without a result marker (kernel panic, missing module, broken /init).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

initrd='' timeout=300 log='' quiet=0 extra=''
while getopts "i:t:l:qa:" opt; do
  case $opt in
    i) initrd=$OPTARG ;; t) timeout=$OPTARG ;; l) log=$OPTARG ;; q) quiet=1 ;; a) extra=$OPTARG ;;
    *) die "usage: $0 -i INITRD [-t TIMEOUT] [-l LOG] [-q] [-a ARGS]" ;;
  esac
done
[ -f "$initrd" ] || die "usage: $0 -i INITRD [-t TIMEOUT] [-l LOG] [-q] [-a ARGS] (initrd '$initrd' not found)"
need_host qemu-system-x86_64 qemu-system-x86
abi=$(kernel_abi)
kernel=$kroot/boot/vmlinuz-$abi
[ -f "$kernel" ] || die "no kernel at $kernel; run vm/fetch.sh"
log=${log:-$cache/logs/last.log}
mkdir -p "$(dirname "$log")"

# panic=-1 with -no-reboot: a crash in /init ends qemu at once instead of hanging until the timeout.
append="console=ttyS0 panic=-1 loglevel=4 tsc=unstable $extra"
start=$(date +%s.%N)
set +e
timeout --foreground -k 5 "$timeout" qemu-system-x86_64 -accel tcg -nographic -no-reboot -m 512M -smp 1 \
  -kernel "$kernel" -initrd "$initrd" -append "$append" -nic none -monitor none -serial stdio \
  </dev/null 2>&1 | while IFS= read -r line; do
    line=${line//$'\r'/}
    printf '%s\n' "$line" >>"$log.tmp"
    [ "$quiet" = 1 ] || printf '%s\n' "$line" >&2
    case $line in
      *SOUNDTRACE-VM-INIT*|*SOUNDTRACE-VM-READY*|*SOUNDTRACE-VM-RESULT*)
        m=SOUNDTRACE-VM-${line#*SOUNDTRACE-VM-}
        printf 'host-elapsed=%.1f s at %s\n' "$(echo "$(date +%s.%N) - $start" | bc)" "$m" >>"$log.times" ;;
    esac
  done
codes=("${PIPESTATUS[@]}")
set -e
end=$(date +%s.%N)
mv "$log.tmp" "$log"
mv "$log.times" "$log.times.txt" 2>/dev/null || : >"$log.times.txt"
say "qemu ran $(printf '%.1f' "$(echo "$end - $start" | bc)") s; log: $log"
[ -s "$log.times.txt" ] && sed 's/^/[vm]   /' "$log.times.txt" >&2

if [ "${codes[0]}" = 124 ] || [ "${codes[0]}" = 137 ]; then
  say "timeout after ${timeout} s without a result (log: $log)"; exit 124
fi
result=$(sed -n 's/.*SOUNDTRACE-VM-RESULT exit=\([0-9]*\).*/\1/p' "$log" | tail -n 1)
if [ -z "$result" ]; then
  say "qemu exited (status ${codes[0]}) without a result marker; last lines of $log:"
  tail -n 15 "$log" >&2
  exit 125
fi
say "guest command exit status: $result"
exit "$result"
