#!/usr/bin/env python3
"""Would a comparison at the resolution of notes tell a kept-melody derivative from the recording
itself, when both are heard in noise?

The whole-mix checks compare band levels and band-difference signatures; in noise they cannot see
a new accompaniment played in the same registers as the old one (docs/BENCHMARKS.md, "How loud the
changes are"). This probe asks the same question one step finer, with the best information a
catalog could ever hold: the reference's whole spectrum, in floating point. For every query of a
results file of bench/accuracy/run.sh heard in pink noise (snr_p5, snr_0, snr_m5; 5 and 10 s), it
lines the query up with what the catalog recording plays at that moment (the clean twin of a
positive; the parent's 16 kHz source at the same time for a derivative, which is rendered on its
parent's time line) and measures, on a spectrogram with the engine's bins and hops (15.6 Hz, 16 ms):

- missing: of the reference's peaks (the strongest 14 per 32 frames, a share per octave band, as
  the catalog keeps them) that should stand at least 10 dB over the query's noise floor once
  scaled by the query's gain, the share the query lacks (6 dB or more below what was expected,
  anywhere within one bin and one frame). Additive noise cannot take a loud partial away; a piece
  that replaced the part that played it can.
- added: of the query's strong steady peaks (whitened contrast of 9 dB or more, level within 6 dB
  over three frames either side), the share where the reference has no peak at all (no whitened
  contrast above 0 dB within one bin and two frames). Noise makes no steady peaks; a new
  accompaniment does.

It prints both per group: positives per condition and length, and derivatives by verdict and by
kept part. Numbers only: nothing here decides anything. docs/BENCHMARKS.md ("At the resolution of
notes") records what it showed.

    bench/accuracy/note-peaks.py RESULTS.jsonl [--parents DIR] [--per-group N]

RESULTS is e.g. /tmp/soundtrace-bench/results-tuning-full.jsonl. --per-group keeps N queries of
each group (default 60, drawn in a fixed shuffled order, so every run measures the same ones)
besides every derivative the engine named, so a run takes seconds. Needs numpy and scipy.
"""
import argparse
import sys
from pathlib import Path

import numpy as np
from scipy.ndimage import maximum_filter, uniform_filter1d

from noisy_queries import NOISY, REPO, References, by_group, by_part, kept_part, pick, read

FFT, HOP = 1024, 256  # at 16 kHz: the engine's 512 and 128 at 8 kHz
BINS = 240  # up to 3.75 kHz
BAND_EDGES = (10, 20, 40, 80, 233)  # EngineParameters.peakBandEdges
BLOCK = 32


def spectrogram(x: np.ndarray) -> np.ndarray:
    """Log power in dB, frames by bins."""
    frames = (len(x) - FFT) // HOP + 1
    windowed = np.lib.stride_tricks.sliding_window_view(x, FFT)[::HOP][:frames] * np.hanning(FFT)
    return 10 * np.log10(np.abs(np.fft.rfft(windowed, axis=1))[:, :BINS] ** 2 + 1e-3)


def whiten(level: np.ndarray) -> np.ndarray:
    """Contrast against the mean of 12 bins either side, as the engine's whitening."""
    return level - uniform_filter1d(level, 25, axis=1, mode="nearest")


def peaks(level: np.ndarray, per_block: int, shares: tuple[int, ...]) -> list[tuple[int, int]]:
    """Local maxima over ±6 bins and ±5 frames with 3 dB of contrast, thinned per block: each
    octave band's share first, then the strongest of the rest (`PeakPicker.thin`)."""
    white = whiten(level)
    is_peak = (white == maximum_filter(white, size=(11, 13), mode="nearest")) & (white >= 3)
    is_peak[:, : BAND_EDGES[0]] = False
    is_peak[:, BAND_EDGES[-1] :] = False
    t, f = np.nonzero(is_peak)
    kept = []
    for start in range(0, level.shape[0], BLOCK):
        inside = np.nonzero((t >= start) & (t < start + BLOCK))[0]
        inside = inside[np.argsort(-white[t[inside], f[inside]], kind="stable")]
        chosen, rest = [], []
        for band, share in enumerate(shares):
            members = [i for i in inside if BAND_EDGES[band] <= f[i] < BAND_EDGES[band + 1]]
            chosen += members[:share]
            rest += members[share:]
        rest.sort(key=lambda i: -white[t[i], f[i]])
        chosen += rest[: max(0, per_block - len(chosen))]
        kept += [(int(t[i]), int(f[i])) for i in chosen]
    return kept


def measure(query: np.ndarray, reference: np.ndarray) -> dict:
    q, r = spectrogram(query), spectrogram(reference)
    n = min(len(q), len(r))
    q, r = q[:n], r[:n]
    # The query's gain: where the reference is loud the noise matters least, and noise only adds.
    gain = np.percentile((q - r)[r > r.max() - 25], 25)
    floor = np.percentile(q, 20, axis=0)
    heard = maximum_filter(q, size=(3, 3), mode="nearest")
    expected = [(t, f) for t, f in peaks(r, 14, (4, 4, 3, 3)) if r[t, f] + gain > floor[f] + 10]
    missing = sum(heard[t, f] < r[t, f] + gain - 6 for t, f in expected)
    white_q = whiten(q)
    reference_peaks = maximum_filter(whiten(r), size=(5, 3), mode="nearest")
    steady = [
        (t, f)
        for t, f in peaks(q, 20, (5, 5, 5, 5))
        if white_q[t, f] >= 9 and all(abs(q[min(max(t + k, 0), n - 1), f] - q[t, f]) < 6 for k in (-3, -2, -1, 1, 2, 3))
    ]
    added = sum(reference_peaks[t, f] < 0 for t, f in steady)
    return {
        "missing": missing / max(1, len(expected)),
        "expected": len(expected),
        "added": added / max(1, len(steady)),
        "steady": len(steady),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results")
    parser.add_argument("--parents", default=str(REPO / "catalog" / "audio"))
    parser.add_argument("--per-group", type=int, default=60)
    args = parser.parse_args()

    def wanted(row: dict) -> bool:
        if row["condition"] not in NOISY or row["length"] not in (5, 10):
            return False
        return row["kind"] == "positive" or row.get("negKind") == "derivative"

    references = References(Path(args.parents))
    measured = []
    for row, group in pick(args.results, args.per_group, wanted):
        query = read(Path(row["file"]))
        result = measure(query, references.of(row, len(query)))
        result.update(group=group, part=kept_part(row))
        measured.append(result)
    if not measured:
        sys.exit("no noisy 5 or 10 s queries in " + args.results)

    def spread(values: list[float]) -> str:
        return "%.2f / %.2f / %.2f" % (np.percentile(values, 5), np.median(values), max(values))

    print("| group | queries | missing: p5 / median / max | added: p5 / median / max |")
    print("|---|---:|---:|---:|")
    for name, ms in by_group(measured):
        print(f"| {name} | {len(ms)} | {spread([m['missing'] for m in ms])} | {spread([m['added'] for m in ms])} |")
    print()
    print("| derivative (parent, kept part) | queries | missing ≥ 0.04 | added ≥ 0.10 | named by the engine |")
    print("|---|---:|---:|---:|---:|")
    for part, ms in by_part(measured):
        print(
            f"| {part[0]}, {part[1]} | {len(ms)} | {sum(m['missing'] >= 0.04 for m in ms)} | "
            f"{sum(m['added'] >= 0.10 for m in ms)} | {sum(m['group'][3] == 'NAMED' for m in ms)} |"
        )


if __name__ == "__main__":
    main()
