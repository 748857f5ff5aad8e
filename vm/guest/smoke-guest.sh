#!/bin/sh
# Runs inside the virtual board (busybox sh). Proves gpio-sim + libgpiod 1.6 tools, snd-aloop +
# alsa-utils, and documents what a capture sees when the sound card disappears.
# Every check prints "CHECK <name>: PASS|FAIL <evidence>"; the exit status is the number of failures.
# Observations that are facts to report, not pass/fail, print as "OBSERVE <name>: ...".
. /payload/checks.sh

# ---------------------------------------------------------------- GPIO (gpio-sim)
. /payload/board.sh
board_setup
cfg=$BOARD_CONFIG dev=$(cat $cfg/dev_name 2>/dev/null) chip=$BOARD_CHIP sim=$BOARD_SYSFS
[ "$(cat $cfg/live)" = 1 ] && [ -d "$sim/sim_gpio17" ]
check gpio-sim-chip $? "live=$(cat $cfg/live) dev=$dev chip=$chip; gpiodetect: $(gpiodetect | one_line)"

found=$(gpiofind GPIO17)
[ "$found" = "$chip 17" ]
check gpiofind-by-name $? "gpiofind GPIO17 -> '$found'; LEDs/buzzer: $(gpiofind GPIO23) / $(gpiofind GPIO24) / $(gpiofind GPIO25)"

# The button: its electrical level is the simulated pull; libgpiod reads it as an input.
set -- $found; bchip=$1 bline=$2
echo pull-up >$sim/sim_gpio17/pull;   up=$(gpioget $bchip $bline)
echo pull-down >$sim/sim_gpio17/pull; down=$(gpioget $bchip $bline)
[ "$up" = 1 ] && [ "$down" = 0 ]
check button-pull-read $? "pull-up -> gpioget=$up, pull-down -> gpioget=$down"

# Edge events (what the daemon will wait on): gpiomon must see the simulated press and release.
gpiomon --num-events=2 --format='%e %o' $bchip $bline >/tmp/mon.txt 2>&1 &
mon=$!
sleep 1
echo pull-up >$sim/sim_gpio17/pull; sleep 0.3; echo pull-down >$sim/sim_gpio17/pull
i=0; while kill -0 $mon 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
kill $mon 2>/dev/null
events=$(one_line </tmp/mon.txt)
[ "$events" = "1 17 0 17" ]
check button-edge-events $? "gpiomon (1=rising 0=falling, offset): '$events'"

# Outputs: LEDs and buzzer driven with gpioset, observed through the simulator's sysfs value.
gpioset --mode=signal $chip 23=1 24=0 25=1 &
setter=$!
sleep 1
v23=$(cat $sim/sim_gpio23/value) v24=$(cat $sim/sim_gpio24/value) v25=$(cat $sim/sim_gpio25/value)
consumer=$(gpioinfo $chip | grep -E '"GPIO2[345]"' | one_line)
kill $setter; wait $setter 2>/dev/null
sleep 0.3
r23=$(cat $sim/sim_gpio23/value)
[ "$v23$v24$v25" = 101 ] && [ "$r23" = 0 ]
check led-buzzer-outputs $? "gpioset 23=1 24=0 25=1 -> sim values $v23 $v24 $v25; after release GPIO23=$r23; gpioinfo: $consumer"

# Line values over time: a blink pattern (3 x 300 ms on, 300 ms off) driven by gpioset, recorded
# from the kernel's gpio_value trace events (exact) and, for comparison, by polling sysfs.
board_trace_start
(sleep 0.5; for i in 1 2 3; do gpioset --mode=time --usec=300000 $chip 23=1; gpioset $chip 23=0; sleep 0.3; done) &
blinker=$!
board_record /tmp/polled.txt 4 GPIO23 GPIO24
wait $blinker
board_trace_stop /tmp/traced.txt GPIO23 GPIO24
durations() { awk '$2 == "GPIO23" {if ($3 == 0 && on != "") {printf "%.3f ", $1 - on; on = ""} if ($3 == 1) on = $1}' "$1"; }
traced=$(durations /tmp/traced.txt) polled=$(durations /tmp/polled.txt)
# gpioset holds the line at least 300 ms; the next gpioset's start (a process under TCG) adds to it.
okdur=$(echo "$traced" | awk '{for (i = 1; i <= NF; i++) if ($i >= 0.3 && $i <= 1.2) k++} END {print k + 0}')
[ "$okdur" = 3 ] && ! grep -q 'GPIO24 1' /tmp/traced.txt /tmp/polled.txt
check led-timeline $? "GPIO23 on-times from trace events: $traced s; by polling: $polled s (GPIO24 stayed 0)"

# ---------------------------------------------------------------- ALSA (snd-aloop)
grep -q Loopback /proc/asound/cards
check aloop-card $? "$(one_line </proc/asound/cards)"

# Play the generated tone into the loopback's playback side and capture it from the other side.
rm -f /tmp/cap.wav
arecord -q -D hw:Loopback,1,0 -f S16_LE -r 48000 -c 2 -d 3 /tmp/cap.wav 2>/tmp/arec.err &
rec=$!
sleep 0.5
aplay -q -D hw:Loopback,0,0 /payload/tone.wav 2>/tmp/aplay.err; prc=$?
wait $rec; rrc=$?
# Peak and share of loud samples, on every 32nd sample (busybox awk is slow under TCG).
stats=$(od -An -v -j 44 -w64 -t d2 /tmp/cap.wav | awk '{v=$1<0?-$1:$1; if(v>p)p=v; if(v>1000)n++; t++} END{printf "sampled=%d peak=%d loud=%d", t, p, n}')
set -- $(echo "$stats" | tr '=' ' ')
total=$2 peak=$4 loud=$6
# The tone lasts 2 of the 3 captured seconds: at least a third of the samples must be loud.
[ $prc = 0 ] && [ $rrc = 0 ] && [ "$peak" -gt 8000 ] && [ $((loud * 3)) -gt "$total" ]
check aloop-play-capture $? "aplay rc=$prc arecord rc=$rrc capture $(stat -c %s /tmp/cap.wav) bytes, $stats $(one_line </tmp/aplay.err) $(one_line </tmp/arec.err)"

# The loopback is bit-exact: after the leading silence, the capture holds the tone's own frames.
# The tone's frame 0 is silent (sin 0), so the first non-zero captured frame is the tone's frame 1.
first=$(od -An -v -j 44 -w4 -t d4 /tmp/cap.wav | grep -n -m 1 -v '^ *0$' | cut -d: -f1)
first=${first:-1}
cmp -s -n 96000 /payload/tone.wav /tmp/cap.wav 48 $((44 + (first - 1) * 4))
check aloop-bit-exact $? "tone frames 1..24000 equal the captured frames from frame $((first - 1)) on (silence before: $(awk -v f=$first 'BEGIN{printf "%.2f", (f-1)/48000}') s)"

# Opening one capture subdevice twice.
arecord -q -D hw:Loopback,1,0 -f S16_LE -r 48000 -c 2 -d 5 /dev/null 2>/dev/null &
rec=$!
sleep 0.7
arecord -q -D hw:Loopback,1,0 -f S16_LE -r 48000 -c 2 -d 1 /dev/null 2>/tmp/busy.err; brc=$?
arecord -q -D hw:Loopback,1 -f S16_LE -r 48000 -c 2 -d 1 /dev/null 2>/tmp/busy2.err; brc2=$?
kill $rec; wait $rec 2>/dev/null
grep -q 'Device or resource busy' /tmp/busy.err
check capture-double-open-busy $? "second open of hw:Loopback,1,0 rc=$brc: $(one_line </tmp/busy.err)"
echo "OBSERVE double-open-any-subdevice: hw:Loopback,1 (no subdevice) while 1,0 is open -> rc=$brc2 $(one_line </tmp/busy2.err) (snd-aloop has $(ls -d /proc/asound/Loopback/pcm1c/sub* | wc -l) capture subdevices)"

# Unplug 1: plain rmmod while a capture runs.
arecord -D hw:Loopback,1,0 -f S16_LE -r 48000 -c 2 -d 30 /tmp/u1.wav 2>/tmp/u1.err &
rec=$!
sleep 1
rmmod snd_aloop 2>/tmp/rmmod.err; rrc=$?
echo "OBSERVE rmmod-while-capturing: rc=$rrc $(one_line </tmp/rmmod.err); refcnt=$(cat /sys/module/snd_aloop/refcnt 2>/dev/null)"
# Unplug 2: unbind the card (what a USB microphone's removal does: snd_card_disconnect).
d=$(now)
echo snd_aloop.0 >/sys/bus/platform/drivers/snd_aloop/unbind; urc=$?
i=0; while kill -0 $rec 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 $rec 2>/dev/null; then ended=no; kill -9 $rec; else ended=yes; fi
wait $rec; arc=$?
echo "OBSERVE unbind-while-capturing: unbind rc=$urc; arecord ended=$ended after $(since $d) s, exit status $arc, stderr: $(one_line </tmp/u1.err)"
[ $ended = yes ] && [ $arc != 0 ]
check capture-fails-on-unplug $? "arecord exit=$arc: $(tail -n 2 /tmp/u1.err | one_line)"
rmmod snd_aloop 2>/tmp/rmmod2.err
check rmmod-after-unplug $? "rmmod after the capture ended: $(one_line </tmp/rmmod2.err) $(grep -c snd_aloop /proc/modules) snd_aloop left in /proc/modules"

# Reload with one capture substream per device (like a single USB microphone) and retry double open.
insmod /lib/modules/$(uname -r)/kernel/sound/drivers/snd-aloop.ko pcm_substreams=1
check aloop-reload $? "$(one_line </proc/asound/cards)"
arecord -q -D hw:Loopback,1 -f S16_LE -r 48000 -c 2 -d 5 /dev/null 2>/dev/null &
rec=$!
sleep 0.7
arecord -q -D hw:Loopback,1 -f S16_LE -r 48000 -c 2 -d 1 /dev/null 2>/tmp/busy3.err; brc3=$?
kill $rec; wait $rec 2>/dev/null
grep -q 'Device or resource busy' /tmp/busy3.err
check capture-double-open-busy-single-substream $? "pcm_substreams=1: second open of hw:Loopback,1 rc=$brc3: $(one_line </tmp/busy3.err)"

# ---------------------------------------------------------------- the real Swift CLI (optional)
# soundtrace match --device: the project's own ALSA capture path against a kernel sound card.
# Whether the capture side of the loopback is streaming: a session's process that starts slowly
# (qemu without KVM on a busy host) may not have opened the device yet after a fixed sleep.
capture_running() { grep -qs 'state: RUNNING' /proc/asound/Loopback/pcm1c/sub0/status; }
wait_capture_running() { # up to $1 tenths of a second
  i=0; while ! capture_running && [ $i -lt "$1" ]; do sleep 0.1; i=$((i + 1)); done
  capture_running
}
if [ -s /payload/swift-bin ]; then
  bin=$(cat /payload/swift-bin)
  out=$("$bin" --help 2>&1); src=$?
  [ $src = 0 ]
  check swift-binary-runs $? "$bin --help rc=$src: $(echo "$out" | head -n 1)"
fi
if [ -s /payload/swift-bin ] && [ -f /payload/excerpt.wav ]; then
  cat_opt="--catalog /payload/soundtrace.catalog"
  want=$(cat /payload/excerpt.id)
  # 1. A catalog excerpt played into the loopback is recognized from the capture side.
  d=$(now)
  "$bin" match --device plughw:Loopback,1,0 --seconds 10 $cat_opt --json >/tmp/m1.json 2>/tmp/m1.err &
  m=$!
  # The loopback's first opener fixes the rate (the CLI asks for the catalog's 8 kHz): wait until
  # the capture side is open, then play through plughw so the player converts to that rate.
  # (Played through hw: at 16 kHz, aplay gets 8 kHz, the music is slowed down and not recognized.)
  i=0; while grep -q closed /proc/asound/Loopback/pcm1c/sub0/hw_params && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  cparams=$(grep -E '^(format|channels|rate|period_size|buffer_size):' /proc/asound/Loopback/pcm1c/sub0/hw_params | one_line)
  aplay -q -D plughw:Loopback,0,0 /payload/excerpt.wav 2>/tmp/m1.aplay &
  p=$!
  wait $m; mrc=$?
  kill $p 2>/dev/null; wait $p 2>/dev/null
  grep -qE '"outcome": ?"match"' /tmp/m1.json && grep -qE "\"referenceId\": ?\"$want\"" /tmp/m1.json
  check swift-match-from-loopback $? "rc=$mrc after $(since $d) s, expected $want; capture opened as: $cparams; $(one_line </tmp/m1.json) $(tail -n 3 /tmp/m1.err | one_line) $(one_line </tmp/m1.aplay)"

  # 2. The capture device held by another program: an immediate busy answer, not a hang.
  arecord -q -D hw:Loopback,1,0 -f S16_LE -r 16000 -c 1 -d 30 /dev/null 2>/dev/null &
  r=$!
  sleep 0.7
  d=$(now)
  "$bin" match --device hw:Loopback,1,0 --seconds 3 $cat_opt --json >/tmp/m2.json 2>/tmp/m2.err; brc=$?
  kill $r; wait $r 2>/dev/null
  [ $brc = 4 ] && grep -qE '"errorCode": ?"deviceBusy"' /tmp/m2.json
  check swift-capture-busy $? "rc=$brc after $(since $d) s: $(one_line </tmp/m2.json) $(tail -n 2 /tmp/m2.err | one_line)"

  # 3. Unplug mid-session (unbind the card), then plug it back (bind) and listen again.
  "$bin" match --device plughw:Loopback,1,0 --seconds 20 $cat_opt --json >/tmp/m3.json 2>/tmp/m3.err &
  m=$!
  wait_capture_running 100
  sleep 2
  d=$(now)
  board_audio_unplug
  i=0; while kill -0 $m 2>/dev/null && [ $i -lt 150 ]; do sleep 0.1; i=$((i + 1)); done
  if kill -0 $m 2>/dev/null; then ended=no; kill -9 $m; else ended=yes; fi
  wait $m; urc=$?
  [ $ended = yes ] && [ $urc = 4 ] && grep -qE '"errorCode": ?"deviceDisconnected"' /tmp/m3.json
  check swift-capture-unplug $? "ended=$ended rc=$urc $(since $d) s after unbind: $(one_line </tmp/m3.json) $(tail -n 2 /tmp/m3.err | one_line)"
  board_audio_replug
  "$bin" match --device plughw:Loopback,1,0 --seconds 3 $cat_opt --json >/tmp/m4.json 2>/tmp/m4.err; rrc=$?
  [ $rrc = 0 ] && grep -qE '"outcome": ?"noMatch"' /tmp/m4.json
  check swift-capture-after-replug $? "rc=$rrc (silence: noMatch expected): $(one_line </tmp/m4.json) $(tail -n 2 /tmp/m4.err | one_line)"

  # 4. An overrun: the session's process is stopped for 1.5 s, far longer than the device's
  # buffer, so the driver overruns (EPIPE). The session must recover, count the lost audio as a
  # gap, and fail as "audio gap" (too long to bridge) rather than splice the audio together.
  "$bin" match --device plughw:Loopback,1,0 --seconds 20 $cat_opt --json >/tmp/m5.json 2>/tmp/m5.err &
  m=$!
  # Stopped only once it streams: stopped before it opens the device, it would lose nothing.
  if wait_capture_running 100; then streaming=yes; else streaming=no; fi
  sleep 1
  kill -STOP $m; sleep 1.5; kill -CONT $m
  i=0; while kill -0 $m 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  if kill -0 $m 2>/dev/null; then ended=no; kill -9 $m; else ended=yes; fi
  wait $m; orc=$?
  [ $ended = yes ] && [ $orc = 4 ] && grep -qE '"errorCode": ?"audioGap"' /tmp/m5.json
  check swift-capture-overrun-is-a-gap $? "streaming=$streaming ended=$ended rc=$orc: $(one_line </tmp/m5.json) $(tail -n 2 /tmp/m5.err | one_line)"

  # 5. A system suspend mid-session, with the kernel's PM test mode ("devices": drivers suspend,
  # then resume after pm_test_delay seconds). The capture reads ESTRPIPE (arecord says
  # "Suspended. Trying resume."), the session resumes or re-prepares the device and counts the
  # suspended time as a gap: 5 s is too long to bridge (audioGap), a brief one is bridged and the
  # music playing around it is still recognized.
  if [ -w /sys/power/pm_test ] && [ -w /sys/module/suspend/parameters/pm_test_delay ]; then
    echo devices > /sys/power/pm_test
    arecord -D plughw:Loopback,1,0 -f S16_LE -r 8000 -c 1 -d 4 /tmp/s0.wav 2>/tmp/s0.err &
    r=$!
    sleep 1; echo 1 > /sys/module/suspend/parameters/pm_test_delay; echo freeze > /sys/power/state
    wait $r
    echo "OBSERVE arecord-across-suspend: $(one_line </tmp/s0.err)"

    echo 5 > /sys/module/suspend/parameters/pm_test_delay
    "$bin" match --device plughw:Loopback,1,0 --seconds 20 $cat_opt --json >/tmp/m6.json 2>/tmp/m6.err &
    m=$!
    wait_capture_running 100
    sleep 1
    echo freeze > /sys/power/state; src=$?
    i=0; while kill -0 $m 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 $m 2>/dev/null; then ended=no; kill -9 $m; else ended=yes; fi
    wait $m; grc=$?
    lost=$(sed -n 's/.*lost \([0-9]*\) ms.*/\1/p' /tmp/m6.json)
    [ $ended = yes ] && [ $grc = 4 ] && grep -qE '"errorCode": ?"audioGap"' /tmp/m6.json && [ "${lost:-0}" -ge 4000 ]
    check swift-capture-long-suspend-is-a-gap $? "freeze rc=$src ended=$ended rc=$grc lost=${lost:-?} ms: $(one_line </tmp/m6.json) $(tail -n 2 /tmp/m6.err | one_line)"

    echo 0 > /sys/module/suspend/parameters/pm_test_delay
    "$bin" match --device plughw:Loopback,1,0 --seconds 10 $cat_opt --json >/tmp/m7.json 2>/tmp/m7.err &
    m=$!
    i=0; while grep -q closed /proc/asound/Loopback/pcm1c/sub0/hw_params && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    aplay -q -D plughw:Loopback,0,0 /payload/excerpt.wav 2>/dev/null &
    p=$!
    sleep 0.5
    echo freeze > /sys/power/state; src=$?
    wait $m; brc=$?
    kill $p 2>/dev/null; wait $p 2>/dev/null
    echo none > /sys/power/pm_test
    [ $brc = 0 ] && grep -qE '"outcome": ?"match"' /tmp/m7.json && grep -qE "\"referenceId\": ?\"$want\"" /tmp/m7.json
    check swift-capture-brief-suspend-is-bridged $? "freeze rc=$src rc=$brc: $(one_line </tmp/m7.json) $(tail -n 2 /tmp/m7.err | one_line)"
  else
    echo "OBSERVE suspend: this kernel has no PM test mode (/sys/power/pm_test); suspend checks not run"
    fails=$((fails + 1))
  fi
fi

# Unplug 3: forced module removal mid-capture (rmmod -f; CONFIG_MODULE_FORCE_UNLOAD=y in Debian).
dmesg -c >/dev/null
arecord -D hw:Loopback,1,0 -f S16_LE -r 48000 -c 2 -d 30 /tmp/u3.wav 2>/tmp/u3.err &
rec=$!
sleep 1
d=$(now)
rmmod -f snd_aloop 2>/tmp/rmmodf.err; frc=$?
i=0; while kill -0 $rec 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 $rec 2>/dev/null; then ended=no; kill -9 $rec; else ended=yes; fi
wait $rec; arc=$?
echo "OBSERVE forced-rmmod-while-capturing: rmmod -f rc=$frc $(one_line </tmp/rmmodf.err); arecord ended=$ended after $(since $d) s, exit status $arc, stderr: $(one_line </tmp/u3.err)"
echo "OBSERVE forced-rmmod-dmesg: $(dmesg | tail -n 12 | one_line)"
echo "OBSERVE forced-rmmod-modules: $(cut -d' ' -f1,3,5 /proc/modules | grep snd | one_line)"

echo "SMOKE-SUMMARY failures=$fails guest-seconds=$(since $t0)"
exit $fails
