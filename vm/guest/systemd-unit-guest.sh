#!/bin/bash
# Runs inside a Debian 12 guest booted with systemd as PID 1 (vm/systemd-unit.sh), as a oneshot
# unit: installs the soundtrace package with dpkg, so its postinst creates the user, reloads udev and
# starts soundtraced.service under the unit's whole sandbox; then drives it as a kiosk would — the
# protocol, a session heard through the ALSA loopback at 48 kHz stereo via plughw:, the gpio-sim
# button and LEDs, a reload, a restart that keeps the history, a clean stop — and reads from /proc
# that the sandbox holds (no capabilities, seccomp, no new privileges, the service user and its
# groups). Every check prints "CHECK <name>: PASS|FAIL <evidence>"; then one summary line, and the
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
DEBIAN_FRONTEND=noninteractive dpkg -i --force-confold /payload/soundtrace.deb >/tmp/dpkg.log 2>&1
check dpkg-install $? "$(tail -n 3 /tmp/dpkg.log | one_line)"
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
finish
