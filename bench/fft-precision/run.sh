#!/usr/bin/env bash
# Builds fftprec.c against the vendored KissFFT as Q15 (FIXED_POINT=16) and Q31 (FIXED_POINT=32),
# measures spectral precision against a double-precision reference and the instruction cost of
# kiss_fftr under callgrind, and prints the results as Markdown on stdout (progress on stderr).
#
#   bench/fft-precision/run.sh > /tmp/fftprec.md
#
# Environment: CC (default gcc), K (callgrind repetitions, default 500; K and 2K are run),
#   CROSS = auto (default: also count instructions for armv7 / aarch64 builds under qemu-user if
#           arm-linux-gnueabihf-gcc, aarch64-linux-gnu-gcc and qemu-{arm,aarch64}-static exist),
#           install (apt-get install those first), 0 (skip).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
vendor="$root/Sources/CKissFFT/vendor"
CC=${CC:-gcc}
K=${K:-500}
K2=$((2 * K))
CROSS=${CROSS:-auto}

if [ ! -f "$vendor/kiss_fft.c" ] || [ ! -f "$vendor/kiss_fftr.c" ]; then
  "$root/scripts/fetch-kissfft.sh"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

log() { echo "[fft-precision] $*" >&2; }

# ---------------------------------------------------------------- build
for bits in 16 32; do
  log "building FIXED_POINT=$bits"
  "$CC" -O2 -DFIXED_POINT="$bits" -I"$vendor" -o "$tmp/fftprec$bits" \
    "$here/fftprec.c" "$vendor/kiss_fft.c" "$vendor/kiss_fftr.c" -lm
done

log "self test of the double reference FFT"
"$tmp/fftprec16" selftest >&2

# Undefined-behaviour check (signed overflow in KissFFT's int32 arithmetic etc.) on the same
# signals and on full-scale worst cases; skipped if the compiler cannot build with UBSan.
ubsan="not run (compiler without UBSan)"
if "$CC" -O1 -fsanitize=undefined -fno-sanitize-recover=all -x c -o "$tmp/ubsan-probe" - <<<'int main(void){return 0;}' 2>/dev/null; then
  ubsan="clean (no undefined behaviour on any test signal nor on 8 full-scale worst-case frames per size, and no wrap-around on the latter, both variants)"
  for bits in 16 32; do
    "$CC" -O1 -fsanitize=undefined -fno-sanitize-recover=all -DFIXED_POINT="$bits" -I"$vendor" \
      -o "$tmp/ubsan$bits" "$here/fftprec.c" "$vendor/kiss_fft.c" "$vendor/kiss_fftr.c" -lm
    if ! { "$tmp/ubsan$bits" prec >/dev/null && "$tmp/ubsan$bits" stress >&2; } 2>"$tmp/ubsan$bits.err"; then
      ubsan="FAILED for FIXED_POINT=$bits: $(head -n 1 "$tmp/ubsan$bits.err")"
    fi
  done
fi
cat "$tmp"/ubsan*.err >&2 2>/dev/null || true
log "UBSan: $ubsan"

# ---------------------------------------------------------------- precision
log "precision runs"
"$tmp/fftprec16" prec >"$tmp/prec.tsv"
"$tmp/fftprec32" prec >>"$tmp/prec.tsv"

# ---------------------------------------------------------------- cost
if ! command -v valgrind >/dev/null 2>&1; then
  log "installing valgrind"
  apt-get -o DPkg::Lock::Timeout=600 install -y valgrind >&2
fi

total_ir() { # callgrind output file -> total instructions executed
  awk '/^totals:/ {print $2; found=1} END {if (!found) exit 1}' "$1"
}
inclusive_ir() { # callgrind output file, function -> inclusive Ir of that function
  callgrind_annotate --inclusive=yes "$1" 2>/dev/null |
    awk -v fn="$2" '{ for (i = 1; i <= NF; i++) if ($i ~ ("(^|:)" fn "$")) { gsub(",", "", $1); print $1; exit } }'
}
callgrind() { # output file, program args...
  local out=$1; shift
  valgrind --tool=callgrind --callgrind-out-file="$out" "$@" 2>/dev/null >/dev/null
}

: >"$tmp/cost.tsv"    # target variant N Ir/FFT Ir/frame
: >"$tmp/x86.tsv"     # variant N inclusive-Ir/FFT state-bytes
for bits in 16 32; do
  variant=$([ "$bits" = 16 ] && echo Q15 || echo Q31)
  for n in 512 1024; do
    log "callgrind $variant N=$n (K=$K and $K2)"
    callgrind "$tmp/fft1.out" "$tmp/fftprec$bits" bench "$n" "$K" fft
    callgrind "$tmp/fft2.out" "$tmp/fftprec$bits" bench "$n" "$K2" fft
    callgrind "$tmp/frm1.out" "$tmp/fftprec$bits" bench "$n" "$K" frame
    callgrind "$tmp/frm2.out" "$tmp/fftprec$bits" bench "$n" "$K2" frame
    a=$(total_ir "$tmp/fft1.out"); b=$(total_ir "$tmp/fft2.out")
    c=$(total_ir "$tmp/frm1.out"); d=$(total_ir "$tmp/frm2.out")
    incl=$(inclusive_ir "$tmp/fft2.out" kiss_fftr)
    bytes=$("$tmp/fftprec$bits" info "$n")
    printf 'x86_64 (callgrind)\t%s\t%s\t%s\t%s\n' "$variant" "$n" "$(( (b - a) / K ))" "$(( (d - c) / K ))" >>"$tmp/cost.tsv"
    printf '%s\t%s\t%s\t%s\n' "$variant" "$n" "$(( incl / K2 ))" "$bytes" >>"$tmp/x86.tsv"
  done
done

# ---------------------------------------------------------------- optional ARM cross-check
# Counts guest instructions of cross-compiled static builds under qemu-user, one instruction per
# translation block, every executed block logged: (count(2k runs) - count(k runs)) / k.
cross_tools=(arm-linux-gnueabihf-gcc aarch64-linux-gnu-gcc qemu-arm-static qemu-aarch64-static)
have_cross() { for t in "${cross_tools[@]}"; do command -v "$t" >/dev/null 2>&1 || return 1; done; }
if [ "$CROSS" = install ] && ! have_cross; then
  log "installing cross compilers and qemu-user-static"
  apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends gcc-arm-linux-gnueabihf \
    gcc-aarch64-linux-gnu libc6-dev-armhf-cross libc6-dev-arm64-cross qemu-user-static >&2
fi
cross_note="not run (CROSS=$CROSS or cross tools missing)"
if [ "$CROSS" != 0 ] && have_cross; then
  qemu_count() { # qemu, program args... -> guest instructions executed
    local q=$1; shift
    local step=-singlestep
    "$q" -help 2>&1 | grep -q -- -one-insn-per-tb && step=-one-insn-per-tb
    "$q" "$step" -d nochain,exec -D "$tmp/qemu.log" "$@" >/dev/null
    grep -c '^Trace' "$tmp/qemu.log"
    rm -f "$tmp/qemu.log"
  }
  kq=10
  for arch in armv7 aarch64; do
    if [ "$arch" = armv7 ]; then cc=arm-linux-gnueabihf-gcc; cpu=cortex-a7; q=qemu-arm-static
    else cc=aarch64-linux-gnu-gcc; cpu=cortex-a53; q=qemu-aarch64-static; fi
    for bits in 16 32; do
      variant=$([ "$bits" = 16 ] && echo Q15 || echo Q31)
      "$cc" -O2 -mcpu="$cpu" -static -DFIXED_POINT="$bits" -I"$vendor" -o "$tmp/$arch$bits" \
        "$here/fftprec.c" "$vendor/kiss_fft.c" "$vendor/kiss_fftr.c" -lm
      for n in 512 1024; do
        log "qemu $arch $variant N=$n (k=$kq and $((2 * kq)))"
        a=$(qemu_count "$q" "$tmp/$arch$bits" bench "$n" "$kq" fft)
        b=$(qemu_count "$q" "$tmp/$arch$bits" bench "$n" "$((2 * kq))" fft)
        c=$(qemu_count "$q" "$tmp/$arch$bits" bench "$n" "$kq" frame)
        d=$(qemu_count "$q" "$tmp/$arch$bits" bench "$n" "$((2 * kq))" frame)
        printf '%s\t%s\t%s\t%s\t%s\n' "$arch -mcpu=$cpu (qemu)" "$variant" "$n" \
          "$(( (b - a) / kq ))" "$(( (d - c) / kq ))" >>"$tmp/cost.tsv"
      done
    done
  done
  cross_note="$(arm-linux-gnueabihf-gcc --version | head -n 1), $(aarch64-linux-gnu-gcc --version | head -n 1), $(qemu-arm-static --version | head -n 1); k = $kq"
fi

# ---------------------------------------------------------------- report
echo "## KissFFT fixed-point precision and cost (Soundtrace front end)"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- machine: $(uname -m), $(uname -sr); CPU: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || echo unknown)"
echo "- compiler: $("$CC" --version | head -n 1), flags -O2; $(valgrind --version)"
echo "- KissFFT: $(cat "$vendor/SOURCE" 2>/dev/null || echo 'unknown source') (vendor/kiss_fft.c, kiss_fftr.c)"
echo "- front end: 8000 Hz int16, periodic Hann window in Q15 (integer, rounded to int16), hop 128, kiss_fftr, power = re²+im² (uint32 for Q15, uint64 for Q31), 200 frames per signal"
echo "- UBSan run: $ubsan"
echo
echo "### Precision (200 frames per row)"
echo
echo "SNR columns: mean over frames of 10·log10(Σ P_ref² / Σ (P_fixed − P_ref)²) over all N/2+1 bins."
echo "*FFT ref* = double FFT of the same integer-windowed int16 frame (error of the FFT alone);"
echo "*ideal ref* = double FFT of the raw samples times the exact Hann window (adds window rounding)."
echo "*Zeroed*: bins with P_fixed = 0 while P_ref > 0, as % of bins with P_ref > 0."
echo "*MAE*: mean |10·log10 P_fixed − 10·log10 P_ref| over bins with P_ref within 40 dB of the frame maximum (P_fixed = 0 counted as 1 LSB², as the integer log2 does)."
echo "*Peaks kept*: reference local maxima (> ±3 neighbours, within 30 dB of the frame max, 250–3800 Hz) that are also strict local maxima at the same bin in fixed point."
echo "*Gain*: 10·log10(Σ P_fixed / Σ P_ref). *Q31-fullwin* (extra, not the specified front end): Q31 with the Q30 product sample×window doubled to Q31 instead of rounded to int16 and shifted by 16."
echo
echo "| Signal | N | Variant | SNR vs FFT ref (dB) | SNR vs ideal ref (dB) | Zeroed (%) | MAE (dB) | Peaks kept (%) | Ref peaks | Gain (dB) |"
echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"
awk -F'\t' '
  { key = $3 SUBSEP $2 SUBSEP $1; row[key] = $0
    if (!($3 in seen)) { seen[$3] = 1; sigs[++ns] = $3 }
    if (!($1 in vseen)) { vseen[$1] = 1; vars[++nv] = $1 } }
  END {
    for (s = 1; s <= ns; s++) for (n = 512; n <= 1024; n *= 2) for (v = 1; v <= nv; v++) {
      key = sigs[s] SUBSEP n SUBSEP vars[v]
      if (!(key in row)) continue
      split(row[key], f, "\t")
      printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", f[3], f[2], f[1], f[5], f[6], f[7], f[8], f[10], f[11], f[12]
    }
  }' "$tmp/prec.tsv"
echo
echo "Rows shown as n/a have a reference that is exactly 0 in every bin; there the fixed-point output was nonzero in: $(awk -F'\t' '$5 == "n/a" { printf "%s%s N=%s %s %s of %s bins", sep, $3, $2, $1, $13, $14; sep = "; " }' "$tmp/prec.tsv")."
echo
echo "### Cost per kiss_fftr call and per front-end frame (instructions executed)"
echo
echo "*Ir/FFT*: (count for 2k runs − count for k runs) / k, one kiss_fftr per run, so set-up cancels."
echo "*Ir/frame*: the same for a whole front-end frame (Q15 window, kiss_fftr, power and integer log2 of all N/2+1 bins)."
echo "*Δ … per audio s*: (Q31 − Q15) instructions × 62.5 (FFTs or frames per second at 8000 Hz, hop 128), in millions."
echo "x86_64: valgrind callgrind, k = $K. ARM rows: static gcc -O2 builds for the named CPU, guest instructions counted under qemu-user (one instruction per translation block, every block logged): $cross_note."
echo
echo "| Target | N | Q15 Ir/FFT | Q31 Ir/FFT | Q31/Q15 | Δ M Ir per audio s (FFT) | Q15 Ir/frame | Q31 Ir/frame | Δ M Ir per audio s (frame) | Q31 M Ir per audio s (frame) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
awk -F'\t' '
  { if (!($1 in seen)) { seen[$1] = 1; tg[++nt] = $1 }; fft[$1, $2, $3] = $4; frm[$1, $2, $3] = $5 }
  END {
    for (t = 1; t <= nt; t++) for (n = 512; n <= 1024; n *= 2) {
      a = fft[tg[t], "Q15", n]; b = fft[tg[t], "Q31", n]; c = frm[tg[t], "Q15", n]; d = frm[tg[t], "Q31", n]
      printf "| %s | %d | %d | %d | %.2f | %+.2f | %d | %d | %+.2f | %.2f |\n", tg[t], n,
        a, b, b / a, (b - a) * 62.5 / 1e6, c, d, (d - c) * 62.5 / 1e6, d * 62.5 / 1e6
    }
  }' "$tmp/cost.tsv"
echo
echo "x86_64 cross-check and memory: callgrind's inclusive Ir of kiss_fftr divided by its $K2 calls, and the kiss_fftr state size (kiss_fftr_alloc lenmem)."
echo
echo "| N | Variant | Ir/FFT (inclusive) | kiss_fftr state (bytes) |"
echo "|---:|---|---:|---:|"
sort -t$'\t' -k2,2n -k1,1 "$tmp/x86.tsv" | awk -F'\t' '{ printf "| %s | %s | %d | %s |\n", $2, $1, $3, $4 }'
