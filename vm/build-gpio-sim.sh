#!/usr/bin/env bash
# Builds gpio-sim.ko out of tree against the Debian headers in the cache (run fetch.sh first).
# Debian's kernel does not enable CONFIG_GPIO_SIM nor CONFIG_IRQ_SIM, so kernel/irq/irq_sim.c is
# compiled into the same module. irq_sim.c calls irq_to_desc(), which 6.1 does not export to
# modules; generic_handle_irq(irq) does the same thing (look up the descriptor, run its handler).
# Prints the path of the module; fails unless its vermagic equals the image's.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

abi=$(kernel_abi)
hdr=$kroot/usr/src/linux-headers-$abi
[ -f "$hdr/Makefile" ] && [ -f "$srcdir/drivers/gpio/gpio-sim.c" ] || die "kernel headers or sources missing; run vm/fetch.sh"
out=$build/gpio-sim-$abi
ko=$out/gpio-sim.ko
ref=$kroot/lib/modules/$abi/kernel/sound/drivers/snd-aloop.ko
want=$(modinfo -F vermagic "$ref")

exec 9>"$cache/.gpio-sim.lock"
flock 9
if [ ! -f "$ko" ] || [ "$ko" -ot "$0" ]; then
  say "building gpio-sim.ko for $abi"
  rm -rf "$out" && mkdir -p "$out"
  cp "$srcdir/drivers/gpio/gpio-sim.c" "$out/gpio-sim-main.c"
  cp "$srcdir/drivers/gpio/gpiolib.h" "$out/gpiolib.h"
  sed -e 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' \
      -e '/^EXPORT_SYMBOL_GPL(/d' "$srcdir/kernel/irq/irq_sim.c" >"$out/irq_sim.c"
  grep -q 'generic_handle_irq(irqnum)' "$out/irq_sim.c" || die "irq_sim.c changed upstream: the irq_to_desc patch no longer applies"
  cat >"$out/Kbuild" <<'KBUILD'
obj-m := gpio-sim.o
gpio-sim-y := gpio-sim-main.o irq_sim.o
KBUILD
  make -s -C "$hdr" M="$out" modules >"$out/build.log" 2>&1 || { cat "$out/build.log" >&2; die "gpio-sim build failed (log above)"; }
fi
got=$(modinfo -F vermagic "$ko")
[ "$got" = "$want" ] || die "gpio-sim.ko vermagic '$got' differs from the image's '$want'"
say "gpio-sim.ko vermagic matches the image: $got"
echo "$ko"
