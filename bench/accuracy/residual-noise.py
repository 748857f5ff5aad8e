#!/usr/bin/env python3
"""Once the catalog recording is taken away from what was heard, is the rest only noise?

The whole-mix checks ask whether the heard band levels fall short of the reference's, on average;
in noise a kept-melody derivative falls short by a few hundredths of a dB, as the recording itself
does (docs/BENCHMARKS.md, "How loud the changes are"). This probe asks a statistical question
instead, cell by cell. It models each query heard in pink noise (snr_p5, snr_0, snr_m5; 5 and 10 s)
as the reference's band energies times one gain, plus one steady noise energy per band, fitted by
weighted least squares, and measures how far each cell (a third of an octave, 128 ms) lies from
that model in units of the spread additive noise gives there: noise alone fluctuates by a known
share of its energy (calibrated here on generated pink noise), and a partial under noise adds the
cross term's spread. The reference is the clean twin for a positive and the parent's 16 kHz source
at the same time for a derivative (rendered on its parent's time line), as in note-peaks.py.

- chi2: the mean squared deviation; about 1 when the query is the reference plus steady noise.
- short: the share of cells 3 spreads or more below the model (energy the reference has and the
  query lacks: additive noise cannot take it away).
- over: the share 3 spreads or more above it (energy the reference lacks: a new part, or noise
  that is not steady, such as speech).

Numbers only: nothing here decides anything. Tuning set only while choosing anything from it.

    bench/accuracy/residual-noise.py RESULTS.jsonl [--parents DIR] [--per-group N] [--slack E]
        [--engine-bands] [--step-db D] [--shift-ms MS] [--per-band-gain] [--gate] [--conditions C,...]
        [--sample-sources]

--per-group keeps N queries of each group (default 60, in a fixed shuffled order) besides every
derivative the engine named. --slack is the model error allowed on the reference's own energy
(default 0.05 for exact references; 0.25 with the catalog's 3 dB steps). docs/BENCHMARKS.md ("The
rest must be steady noise") used `--engine-bands --step-db 3 --slack 0.25 --shift-ms 8
--per-group 100000`: the engine's level bands, the catalog's steps, half a frame of misalignment.
Needs numpy.
"""
import argparse
import sys
from pathlib import Path

import numpy as np

from noisy_queries import NOISY, RATE, REPO, References, by_group, by_part, kept_part, pick, read

FFT, HOP, FRAMES_PER_CELL = 1024, 256, 8  # cells of 128 ms at 16 kHz
EDGES_HZ = [150 * 2 ** (k / 3) for k in range(15)]  # 150 Hz to 3.8 kHz, thirds of an octave
EDGES = [int(round(f * FFT / RATE)) for f in EDGES_HZ]


def band_energies(x: np.ndarray, edges: list[int] = EDGES) -> np.ndarray:
    """Energy per band and 128 ms cell, bands by cells."""
    frames = (len(x) - FFT) // HOP + 1
    windowed = np.lib.stride_tricks.sliding_window_view(x, FFT)[::HOP][:frames] * np.hanning(FFT)
    power = np.abs(np.fft.rfft(windowed, axis=1)) ** 2
    bands = np.stack([power[:, lo:hi].sum(axis=1) for lo, hi in zip(edges[:-1], edges[1:])])
    cells = frames // FRAMES_PER_CELL
    return bands[:, : cells * FRAMES_PER_CELL].reshape(len(bands), cells, FRAMES_PER_CELL).sum(axis=2)


def pink_noise(seconds: float, seed: int) -> np.ndarray:
    n = int(seconds * RATE)
    spectrum = np.fft.rfft(np.random.default_rng(seed).standard_normal(n))
    spectrum[1:] /= np.sqrt(np.arange(1, len(spectrum)))
    return np.fft.irfft(spectrum, n) * 3000


def noise_spread(edges: list[int]) -> np.ndarray:
    """Variance over squared mean of steady pink noise's energy, per band."""
    e = band_energies(pink_noise(120, 1), edges)
    return e.var(axis=1) / e.mean(axis=1) ** 2


def measure(query: np.ndarray, reference: np.ndarray, spread: np.ndarray, slack: float, edges: list[int],
            step_db: float, per_band: bool = False) -> dict:
    q, r = band_energies(query, edges), band_energies(reference, edges)
    if step_db > 0:
        # As a catalog would keep it: steps of step_db below the band's loudest cell.
        loudest = r.max(axis=1, keepdims=True)
        steps = np.minimum(np.round(10 * np.log10(loudest / np.maximum(r, 1e-9)) / step_db), 15)
        r = loudest * 10 ** (-steps * step_db / 10)
    n = min(q.shape[1], r.shape[1])
    q, r = q[:, :n], r[:, :n]
    # The gain is searched on a fine grid; for each gain a band's noise is what the reference
    # leaves unexplained on average (never less than 2 % of the band, so that one cell cannot decide).
    # The gain that explains the query best is the one measured.
    least_noise = 0.02 * q.mean(axis=1)
    guess = q.sum() / max(r.sum(), 1e-9)
    best = None
    for gain in guess * np.geomspace(0.02, 1.0, 400):
        noise = np.maximum((q - gain * r).mean(axis=1), least_noise)
        model = gain * r + noise[:, None]
        variance = spread[:, None] * (noise[:, None] ** 2 + 2 * gain * r * noise[:, None]) + (slack * gain * r) ** 2
        z = (q - model) / np.sqrt(variance)
        if best is None or np.mean(z**2) < np.mean(best**2):
            best = z
    if per_band:
        # Each band its own gain too (a room and a microphone colour the bands differently).
        for b in range(q.shape[0]):
            guess_b = q[b].sum() / max(r[b].sum(), 1e-9)
            for gain in guess_b * np.geomspace(0.01, 1.0, 200):
                noise = max((q[b] - gain * r[b]).mean(), least_noise[b])
                variance = spread[b] * (noise**2 + 2 * gain * r[b] * noise) + (slack * gain * r[b]) ** 2
                zb = (q[b] - gain * r[b] - noise) / np.sqrt(variance)
                if np.mean(zb**2) < np.mean(best[b] ** 2):
                    best[b] = zb
    z = best.ravel()
    return {"chi2": float(np.mean(z**2)), "short": float(np.mean(z < -3)), "over": float(np.mean(z > 3))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results")
    parser.add_argument("--parents", default=str(REPO / "catalog" / "audio"))
    parser.add_argument("--per-group", type=int, default=60)
    parser.add_argument("--slack", type=float, default=0.05)
    parser.add_argument("--engine-bands", action="store_true",
                        help="the engine's level bands (3 low and 8 from 300 to 2600 Hz) instead of thirds of an octave")
    parser.add_argument("--gate", action="store_true",
                        help="only queries the engine heard through noise (ContainmentCheck.heardThroughNoise: the "
                             "reference's loud end under 16 dB over the floor, signatures 0.20 or more apart)")
    parser.add_argument("--per-band-gain", action="store_true", help="fit a gain per band, not one for all")
    parser.add_argument("--step-db", type=float, default=0.0, help="keep the reference's energies in steps of this many dB")
    parser.add_argument("--conditions", default=",".join(NOISY), help="comma-separated conditions (default: the noisy ones)")
    parser.add_argument("--shift-ms", type=int, default=0, help="start the reference this much later (alignment error)")
    parser.add_argument("--sample-sources", action="store_true",
                        help="positives of the sample pieces only, lined up with the piece's source as derivatives are")
    args = parser.parse_args()

    edges = [3, 6, 10, 19, 25, 33, 43, 57, 74, 98, 128, 168] if args.engine_bands else EDGES
    spread = noise_spread(edges)
    conditions = args.conditions.split(",")
    parents = Path(args.parents)

    def wanted(row: dict) -> bool:
        if row["condition"] not in conditions or row["length"] not in (5, 10):
            return False
        if args.sample_sources and (row["kind"] != "positive" or not (parents / f"{row['expectedId']}.wav").is_file()):
            return False
        if row["kind"] != "positive" and row.get("negKind") != "derivative":
            return False
        raw = row.get("raw") or {}
        return not args.gate or ((raw.get("containmentClearance") or 99) < 16 and (raw.get("alignmentErrorRate") or 0) >= 0.20)

    references = References(parents)
    measured = []
    for row, group in pick(args.results, args.per_group, wanted):
        query = read(Path(row["file"]))
        reference = references.of(row, len(query), shift=args.shift_ms * RATE // 1000, from_source=args.sample_sources)
        result = measure(query, reference, spread, args.slack, edges, args.step_db, args.per_band_gain)
        result.update(group=group, part=kept_part(row))
        measured.append(result)
    if not measured:
        sys.exit("no noisy 5 or 10 s queries in " + args.results)

    def spread_of(values: list[float]) -> str:
        return "%.2f / %.2f / %.2f / %.2f" % (np.percentile(values, 5), np.median(values), np.percentile(values, 95), max(values))

    print("| group | queries | chi2: p5 / median / p95 / max | short: p5 / median / p95 / max | over: p5 / median / p95 / max |")
    print("|---|---:|---:|---:|---:|")
    for name, ms in by_group(measured):
        print(f"| {name} | {len(ms)} | {spread_of([m['chi2'] for m in ms])} | {spread_of([m['short'] for m in ms])} | "
              f"{spread_of([m['over'] for m in ms])} |")
    print()
    print("| derivative (parent, kept part) | queries | chi2 ≥ 2 | short ≥ 0.02 | named by the engine | their chi2 / short |")
    print("|---|---:|---:|---:|---:|---|")
    for part, ms in by_part(measured):
        named = [m for m in ms if m["group"][3] == "NAMED"]
        print(f"| {part[0]}, {part[1]} | {len(ms)} | {sum(m['chi2'] >= 2 for m in ms)} | {sum(m['short'] >= 0.02 for m in ms)} | "
              f"{len(named)} | {', '.join('%.2f / %.3f' % (m['chi2'], m['short']) for m in named)} |")


if __name__ == "__main__":
    main()
