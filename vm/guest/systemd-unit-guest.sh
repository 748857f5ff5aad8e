#!/bin/bash
# Runs inside a Debian 12 guest booted with systemd as PID 1 (vm/systemd-unit.sh), as a oneshot
# unit: installs the soundtrace package with dpkg, so its postinst creates the user, reloads udev and
# starts soundtraced.service under the unit's whole sandbox; then drives it as a kiosk would — the
# protocol, a session heard through the ALSA loopback at 48 kHz stereo via plughw:, the gpio-sim
# button and LEDs, a reload, a restart that keeps the history, a clean stop — and reads from /proc
# that the sandbox holds (no capabilities, seccomp, no new privileges, the service user and its
# groups); then the package's life: a reinstall keeps an admin's disable, an upgrade keeps the
# edited configuration and restarts with it, the watchdog stays quiet while idle and restarts a
# frozen daemon, remove keeps the configuration and history, purge removes them. Every check prints "CHECK <name>: PASS|FAIL <evidence>"; then one summary line, and the
# guest powers off.
shopt -s execfail
. /payload/checks.sh
# The console is the serial line the host reads.
exec >/dev/ttyS0 2>&1
finish() {
    echo "OBSERVE journal: $(journalctl -u soundtraced --no-pager -o cat 2>&1 | tail -n 40 | one_line)"
    echo "UNIT-SUMMARY failures=$fails guest-seconds=$(since "$t0")"
    systemctl --no-block poweroff 2>/dev/null
    exit 0
}
field() { sed -n "s/^$1: //p" | head -n 1; }
# ask COMMAND: the daemon's raw reply over the line protocol (bash's /dev/tcp), without the final OK.
ask() {
    exec 3<>/dev/tcp/127.0.0.1/6680 || return 1
    local line
    read -r -t 5 line <&3
    printf '%s\n' "$1" >&3
    while read -r -t 5 line <&3; do
        case $line in OK | ACK*) break ;; esac
        echo "$line"
    done
    exec 3<&- 3>&-
}

# ---------------------------------------------------------------- the board: loopback card, gpio-sim chip
modprobe snd-aloop && modprobe gpio-sim && { mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config; }
check modules $? "$(lsmod | grep -E '^(snd_aloop|gpio_sim) ' | cut -d' ' -f1 | one_line)"
. /payload/board.sh
# board.sh's gpiofind comes from the gpiod tools; the line offsets are the ones board_setup names.
board_sim_dir() { case $1 in GPIO17) echo "$BOARD_SYSFS/sim_gpio17" ;; GPIO23) echo "$BOARD_SYSFS/sim_gpio23" ;; GPIO24) echo "$BOARD_SYSFS/sim_gpio24" ;; esac; }
board_setup
check gpio-sim $? "chip ${BOARD_CHIP:-none}"
# A button to ground with the pull-up (docs/HARDWARE.md): released is the pull going up.
echo pull-up >"$(board_sim_dir GPIO17)/pull"
udevadm settle

# ---------------------------------------------------------------- install: postinst starts the daemon
mkdir -p /etc/soundtrace
cat >/etc/soundtrace/soundtraced.conf <<'EOF'
device = plughw:CARD=Loopback,DEV=1
EOF
# `dpkg -i` in its two steps, with a device event between them: udevd parses a rules file at the
# first event after it lands (checking at most every 3 s), here before postinst has made the gpio
# group its rule names, as any event in that window does on a real box. The package must still
# give the chip to gpio (found on 2026-12-07: it did not, 1 run in 3).
DEBIAN_FRONTEND=noninteractive dpkg --unpack /payload/soundtrace.deb >/tmp/dpkg.log 2>&1
unpacked=$?
sleep 3.5
udevadm trigger --subsystem-match=gpio --action=change && udevadm settle
grouped_early=$(stat -c %G "/dev/$BOARD_CHIP")
DEBIAN_FRONTEND=noninteractive dpkg --configure --force-confold soundtrace >>/tmp/dpkg.log 2>&1
configured=$?
[ $unpacked = 0 ] && [ $configured = 0 ]
check dpkg-install $? "unpack $unpacked, configure $configured; chip's group between them: $grouped_early; $(tail -n 3 /tmp/dpkg.log | one_line)"
i=0
until systemctl is-active --quiet soundtraced || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
systemctl is-active --quiet soundtraced
check started-by-postinst $? "$(systemctl show -p ActiveState,SubState,Result,NRestarts soundtraced | one_line)"
[ "$(systemctl is-enabled soundtraced)" = enabled ]
check enabled $? "$(systemctl is-enabled soundtraced 2>&1)"
# Debian's udev rules give the sound devices to audio; the package's rule gives the GPIO chips to gpio.
udevadm settle
[ "$(stat -c %G "/dev/$BOARD_CHIP")" = gpio ] && [ "$(stat -c %G /dev/snd/pcmC0D1c)" = audio ]
check device-groups $? "$(stat -c '%n %G %a' "/dev/$BOARD_CHIP" /dev/snd/pcmC0D1c | one_line)"
status=$(ask status)
[ "$(echo "$status" | field catalog)" = ok ] && [ "$(echo "$status" | field panel)" = gpio ] && soundtrace status >/tmp/status.txt
check status-over-protocol $? "$(echo "$status" | one_line); soundtrace status: $(one_line </tmp/status.txt)"

# ---------------------------------------------------------------- the sandbox, read from /proc
pid=$(systemctl show -p MainPID --value soundtraced)
proc=/proc/$pid/status
user=$(stat -c %U "/proc/$pid")
groups=$(id -nG soundtrace)
grep -q '^CapEff:[[:space:]]*0000000000000000$' "$proc" && grep -q '^CapBnd:[[:space:]]*0000000000000000$' "$proc" \
    && grep -q '^NoNewPrivs:[[:space:]]*1$' "$proc" && grep -q '^Seccomp:[[:space:]]*2$' "$proc" && [ "$user" = soundtrace ]
check sandbox-in-force $? "user $user; $(grep -E '^(CapEff|CapBnd|NoNewPrivs|Seccomp):' "$proc" | one_line)"
echo "$groups" | grep -qw audio && echo "$groups" | grep -qw gpio
check service-user-groups $? "soundtrace: $groups"
# The state directory is the only writable place, owned by the service user.
[ "$(stat -c '%U %a' /var/lib/soundtrace)" = "soundtrace 750" ]
check state-directory $? "$(stat -c '%n %U %a' /var/lib/soundtrace)"

# ---------------------------------------------------------------- a session through the loopback at 48 kHz stereo
soundtrace listen --json >/tmp/listen.json 2>/tmp/listen.err &
listener=$!
# Play once the session has the capture side open (what is played before goes nowhere).
i=0
until { [ -r /proc/asound/Loopback/pcm1c/sub0/hw_params ] && ! grep -q closed /proc/asound/Loopback/pcm1c/sub0/hw_params; } || [ $i -ge 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
aplay -q -D plughw:CARD=Loopback,DEV=0 /payload/excerpt48.wav &
player=$!
wait $listener
listened=$?
kill $player 2>/dev/null
wait $player 2>/dev/null
outcome=$(cat /tmp/listen.json)
[ $listened = 0 ] && echo "$outcome" | grep -q '"outcome": *"match"' && echo "$outcome" | grep -q "\"referenceId\": *\"$(cat /payload/excerpt.id)\""
check session-matches $? "$(echo "$outcome" | one_line) $(one_line </tmp/listen.err)"

# ---------------------------------------------------------------- the button and the listening LED
echo pull-down >"$(board_sim_dir GPIO17)/pull"
sleep 0.3
echo pull-up >"$(board_sim_dir GPIO17)/pull"
i=0
until [ "$(ask status | field state)" = listening ] || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
state=$(ask status | field state)
# Listening, the L LED blinks once a second (docs/HARDWARE.md): sampled every 0.1 s for 1.5 s, it is seen on and off.
led=''
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do led=$led$(cat "$(board_sim_dir GPIO23)/value"); sleep 0.1; done
[ "$state" = listening ] && case $led in *1*) case $led in *0*) true ;; *) false ;; esac ;; *) false ;; esac
check button-starts-listening $? "state $state, listening LED sampled $led"
# `cancel` is answered once the daemon has ended the session.
soundtrace cancel >/dev/null 2>&1
after_cancel=$(ask status)
[ "$(echo "$after_cancel" | field state)" = idle ] && [ "$(echo "$after_cancel" | field last_outcome)" = canceled ]
check cancel $? "$(echo "$after_cancel" | grep -E '^(state|last_outcome):' | one_line)"

# ---------------------------------------------------------------- reload, restart, stop
systemctl reload soundtraced
i=0
until journalctl -u soundtraced --no-pager -o cat | grep -q 'catalog reloaded' || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
systemctl is-active --quiet soundtraced && journalctl -u soundtraced --no-pager -o cat | grep -q 'catalog reloaded'
check reload $? "$(journalctl -u soundtraced --no-pager -o cat | grep -i reload | tail -n 2 | one_line)"
before=$(soundtrace history 2>&1 | grep -c "$(cat /payload/excerpt.id)")
systemctl restart soundtraced
i=0
until ask ping >/dev/null 2>&1 || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
after=$(soundtrace history 2>&1 | grep -c "$(cat /payload/excerpt.id)")
[ "$before" -ge 1 ] && [ "$after" = "$before" ]
check history-survives-restart $? "matches in history: $before before, $after after"
systemctl stop soundtraced
result=$(systemctl show -p Result --value soundtraced)
status=$(systemctl show -p ExecMainStatus --value soundtraced)
[ "$result" = success ] && [ "$status" = 0 ]
check clean-stop $? "Result=$result ExecMainStatus=$status"
denied=$(journalctl -u soundtraced --no-pager -o cat | grep -ciE 'operation not permitted|permission denied|EPERM' || true)
[ "$denied" = 0 ]
check nothing-refused-by-the-sandbox $? "$denied log lines with EPERM or permission denied"

# ---------------------------------------------------------------- the package's life: upgrade, disable, remove, purge
# wait_for_daemon: until the unit is active and answers ping (at most 20 s).
wait_for_daemon() {
    local i=0
    until { systemctl is-active --quiet soundtraced && ask ping >/dev/null 2>&1; } || [ $i -ge 200 ]; do sleep 0.1; i=$((i + 1)); done
}
main_pid() { systemctl show -p MainPID --value soundtraced; }
systemctl start soundtraced
wait_for_daemon
# An admin's `disable` survives a reinstall of the package (postinst asks deb-systemd-helper).
systemctl disable --quiet soundtraced
DEBIAN_FRONTEND=noninteractive dpkg -i --force-confold /payload/soundtrace.deb >/tmp/dpkg-disabled.log 2>&1
installed=$?
[ $installed = 0 ] && ! systemctl is-enabled --quiet soundtraced
check reinstall-keeps-disable $? "dpkg $installed; is-enabled $(systemctl is-enabled soundtraced 2>&1); $(tail -n 2 /tmp/dpkg-disabled.log | one_line)"
systemctl enable --quiet soundtraced
systemctl start soundtraced
wait_for_daemon
# The upgrade path (reinstalling the same version runs the same scripts): an edited configuration
# is kept (--force-confold, as an admin answering "keep"), and the daemon is restarted with it.
before_upgrade=$(main_pid)
echo 'window_seconds = 4' >>/etc/soundtrace/soundtraced.conf
DEBIAN_FRONTEND=noninteractive dpkg -i --force-confold /payload/soundtrace.deb >/tmp/dpkg-upgrade.log 2>&1
upgraded=$?
wait_for_daemon
after_upgrade=$(main_pid)
window=$(ask status | field window)
[ $upgraded = 0 ] && [ "$after_upgrade" != "$before_upgrade" ] && [ "$window" = 4 ] && systemctl is-enabled --quiet soundtraced
check upgrade-restarts-with-the-kept-configuration $? "dpkg $upgraded; daemon $before_upgrade -> $after_upgrade; status window $window; $(tail -n 2 /tmp/dpkg-upgrade.log | one_line)"

# ---------------------------------------------------------------- the watchdog (WatchdogSec=30s)
# Idle for longer than the watchdog's period, the daemon keeps it fed: no restart.
idle_from=$(now)
while awk -v a="$idle_from" -v b="$(now)" 'BEGIN{exit !(b - a < 35)}'; do sleep 1; done
restarts=$(systemctl show -p NRestarts --value soundtraced)
[ "$restarts" = 0 ] && [ "$(main_pid)" = "$after_upgrade" ] && systemctl is-active --quiet soundtraced
check watchdog-quiet-while-idle $? "after $(since "$idle_from") s idle: NRestarts=$restarts, daemon $(main_pid) (was $after_upgrade)"
# A daemon that stops answering (frozen) is killed by systemd once the watchdog's period passes
# without a ping, and started again (Restart=on-failure): SIGABRT, then SIGKILL after TimeoutStopSec.
frozen=$(main_pid)
frozen_from=$(now)
kill -STOP "$frozen"
i=0
until { [ "$(main_pid)" != "$frozen" ] && [ "$(main_pid)" != 0 ]; } || [ $i -ge 900 ]; do sleep 0.1; i=$((i + 1)); done
wait_for_daemon
restarts=$(systemctl show -p NRestarts --value soundtraced)
timeouts=$(journalctl -u soundtraced --no-pager -o cat | grep -c 'Watchdog timeout' || true)
[ "$restarts" = 1 ] && [ "$timeouts" -ge 1 ] && ask ping >/dev/null 2>&1
check watchdog-restarts-a-frozen-daemon $? "frozen $frozen; after $(since "$frozen_from") s daemon $(main_pid), NRestarts=$restarts, $timeouts 'Watchdog timeout' lines"

# ---------------------------------------------------------------- remove keeps the configuration and history, purge does not
DEBIAN_FRONTEND=noninteractive dpkg -r soundtrace >/tmp/dpkg-remove.log 2>&1
removed=$?
[ $removed = 0 ] && ! systemctl is-active --quiet soundtraced && [ ! -e /usr/bin/soundtraced ] && [ ! -e /usr/bin/soundtrace ] \
    && [ -f /etc/soundtrace/soundtraced.conf ] && [ -f /var/lib/soundtrace/history.db ]
check remove-stops-and-keeps-data $? "dpkg $removed; $(systemctl show -p ActiveState soundtraced | one_line); $(ls /usr/bin/soundtrace* /etc/soundtrace /var/lib/soundtrace 2>&1 | one_line)"
DEBIAN_FRONTEND=noninteractive dpkg -P soundtrace >/tmp/dpkg-purge.log 2>&1
purged=$?
[ $purged = 0 ] && [ ! -e /etc/soundtrace/soundtraced.conf ] && [ ! -e /etc/soundtrace/token ] && [ ! -e /var/lib/soundtrace ]
check purge-removes-configuration-and-history $? "dpkg $purged; $(ls -d /etc/soundtrace /var/lib/soundtrace 2>&1 | one_line)"
finish
