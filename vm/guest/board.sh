# The virtual board's wiring, for guest test scripts (busybox sh): `. /payload/board.sh`.
# A gpio-sim chip with the appliance's named lines, the button driven through the simulator's pull,
# LEDs and buzzer read back from the simulator, recorders of line values over time, the sound
# card's unplug/replug, and the daemon's start. All functions return non-zero on failure.

BOARD_CONFIG=/sys/kernel/config/gpio-sim/soundtrace
BOARD_BUTTON=GPIO17 BOARD_LED_LISTEN=GPIO23 BOARD_LED_RESULT=GPIO24 BOARD_BUZZER=GPIO25

# board_setup: creates and enables the chip; sets BOARD_CHIP (gpiochipN) and BOARD_SYSFS.
board_setup() {
  mkdir "$BOARD_CONFIG" "$BOARD_CONFIG/bank0" || return 1
  echo 32 >"$BOARD_CONFIG/bank0/num_lines" && echo soundtrace-sim >"$BOARD_CONFIG/bank0/label" || return 1
  for l in 17:$BOARD_BUTTON 23:$BOARD_LED_LISTEN 24:$BOARD_LED_RESULT 25:$BOARD_BUZZER; do
    mkdir "$BOARD_CONFIG/bank0/line${l%%:*}" && echo "${l#*:}" >"$BOARD_CONFIG/bank0/line${l%%:*}/name" || return 1
  done
  echo 1 >"$BOARD_CONFIG/live" || return 1
  BOARD_CHIP=$(cat "$BOARD_CONFIG/bank0/chip_name")
  BOARD_SYSFS=/sys/devices/platform/$(cat "$BOARD_CONFIG/dev_name")/$BOARD_CHIP
  [ -d "$BOARD_SYSFS" ]
}

# board_sim_dir NAME: the simulator's sysfs directory of a named line.
board_sim_dir() {
  set -- $(gpiofind "$1") || return 1
  echo "$BOARD_SYSFS/sim_gpio$2"
}

# The button is wired active-high here: pressed = pulled up. (Which level a real board's button
# has is the daemon's configuration; press/release just set the level.)
board_press() { echo pull-up >"$(board_sim_dir "$BOARD_BUTTON")/pull"; }
board_release() { echo pull-down >"$(board_sim_dir "$BOARD_BUTTON")/pull"; }

# board_value NAME: the level the simulator sees on a line (what the daemon drives on an output).
board_value() { cat "$(board_sim_dir "$1")/value"; }

# board_record OUT SECONDS NAME...: writes "uptime NAME value" to OUT for the initial value of each
# line and for every change, polling about every 20 ms (builtins only, no fork per sample).
# Sees every level, releases included, but late by up to a poll and by however long the guest was
# not scheduled (tens to hundreds of ms on a loaded TCG host): for coarse checks; prefer the trace.
board_record() {
  out=$1 secs=$2; shift 2
  dirs='' last=''
  for n in "$@"; do dirs="$dirs $n=$(board_sim_dir "$n")"; done
  read -r start _ </proc/uptime
  end=$(awk -v s="$start" -v d="$secs" 'BEGIN{printf "%d", (s + d) * 100}')
  : >"$out"
  while :; do
    read -r up _ </proc/uptime
    now=${up%.*}${up#*.}
    [ "$now" -ge "$end" ] && break
    state=
    for nd in $dirs; do read -r v <"${nd#*=}/value"; state="$state${nd%%=*}=$v "; done
    if [ "$state" != "$last" ]; then
      for nd in $dirs; do
        n=${nd%%=*}; read -r v <"${nd#*=}/value"
        case " $last" in *" $n=$v "*) ;; *) echo "$up $n $v" >>"$out" ;; esac
      done
      last=$state
    fi
    sleep 0.02
  done
}

# board_trace_start / board_trace_stop OUT NAME...: every value a program sets on the chip, with
# the kernel's timestamp (the gpio:gpio_value trace event), written to OUT as "uptime NAME value".
# Exact, unlike polling; but a line released by its owner falls back to its pull without an event,
# so this sees what a program drives (an LED switched off is a "set 0"), not what a release does.
board_trace_start() {
  t=/sys/kernel/tracing
  [ -d $t/events ] || mount -t tracefs tracefs $t || return 1
  echo 0 >$t/tracing_on && : >$t/trace && echo 1 >$t/events/gpio/gpio_value/enable && echo 1 >$t/tracing_on
}
board_trace_stop() {
  out=$1; shift
  t=/sys/kernel/tracing
  echo 0 >$t/tracing_on && echo 0 >$t/events/gpio/gpio_value/enable || return 1
  base='' map=''
  for c in /sys/class/gpio/gpiochip*; do
    [ "$(cat "$c/label")" = soundtrace-sim ] && base=$(cat "$c/base")
  done
  [ -n "$base" ] || return 1
  for n in "$@"; do set -- $(gpiofind "$n"); map="$map $((base + $2))=$n"; done
  awk -v map="$map" 'BEGIN {k = split(map, m, " "); for (i = 1; i <= k; i++) {split(m[i], p, "="); name[p[1]] = p[2]}}
       / gpio_value: / && $(NF-1) == "set" {
         for (i = 1; i <= NF; i++) if ($i == "gpio_value:") {ts = $(i-1); num = $(i+1)}
         sub(":$", "", ts)
         if (num in name) print ts, name[num], $NF }' $t/trace >"$out"
}

# The sound card's unplug and replug: unbinding the platform device is what removing a USB
# microphone does to its card (snd_card_disconnect); open captures fail with ENODEV.
board_audio_unplug() { echo snd_aloop.0 >/sys/bus/platform/drivers/snd_aloop/unbind; }
board_audio_replug() { echo snd_aloop.0 >/sys/bus/platform/drivers/snd_aloop/bind; }

# board_daemon_start CONF LOG [ARGS...]: starts /usr/bin/soundtraced with CONF, stderr to LOG and
# stdout next to it (LOG with .out), and waits up to 120 s (ALSA and SQLite start slowly under TCG)
# for its "serving protocol" line. Sets BOARD_DAEMON (its pid) and BOARD_READY (that line).
board_daemon_start() {
  conf=$1 log=$2; shift 2
  /usr/bin/soundtraced --config "$conf" "$@" </dev/null >"${log%.log}.out" 2>"$log" &
  BOARD_DAEMON=$!
  i=0
  while ! grep -q 'serving protocol' "$log" && kill -0 $BOARD_DAEMON 2>/dev/null && [ $i -lt 1200 ]; do
    sleep 0.1; i=$((i + 1))
  done
  BOARD_READY=$(grep -m 1 'serving protocol' "$log")
  [ -n "$BOARD_READY" ]
}
