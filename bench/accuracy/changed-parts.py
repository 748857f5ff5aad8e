#!/usr/bin/env python3
"""How loud a derivative's changes are against the noise it was heard in.

A benchmark derivative (catalog/compose.py --derivatives) keeps one part of a sample piece verbatim
and replaces the rest, rendered on the same time line, so `derivative - parent` (both 16 kHz
sources, sample-aligned) is exactly what it changed: the new parts minus the old ones. For every
derivative query heard in pink noise (conditions snr_p5 and snr_0) of a results file of
bench/accuracy/run.sh, this measures, inside the band the whole-mix checks listen to
(300-2600 Hz) and over the query's excerpt:

- diff/noise: the changes' power against the noise's (the noisy query minus its clean twin), the
  changes scaled to the query's level;
- diff/parent: the changes' power against the parent's over the same excerpt;

and reports them for the queries the engine named as the parent and for those it did not, and per
kept part. Numbers only: nothing here decides anything. docs/BENCHMARKS.md ("How loud the changes
are") records what it showed.

    bench/accuracy/changed-parts.py RESULTS.jsonl [--work DIR] [--parents DIR] [--json OUT]

RESULTS is e.g. /tmp/soundtrace-bench/results-tuning-full.jsonl; the derivatives are read from
WORK/derivatives-*/ (the benchmark's cache), the parents from catalog/audio. Needs numpy.
"""
import argparse
import collections
import json
import re
import sys
import wave
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
BAND = (300, 2600)


def read(path: Path) -> tuple[np.ndarray, int]:
    with wave.open(str(path)) as w:
        if w.getsampwidth() != 2:
            sys.exit(f"{path}: not 16-bit PCM")
        x = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64)
        if w.getnchannels() > 1:
            x = x.reshape(-1, w.getnchannels()).mean(axis=1)
        return x, w.getframerate()


def band_power(x: np.ndarray, rate: int) -> float:
    """Mean power per sample inside BAND."""
    if len(x) == 0:
        return 0.0
    spectrum = np.fft.rfft(x)
    f = np.fft.rfftfreq(len(x), 1 / rate)
    return float(np.sum(np.abs(spectrum[(f >= BAND[0]) & (f < BAND[1])]) ** 2)) / len(x)


def db(a: float, b: float) -> float:
    return float(10 * np.log10(max(a, 1e-12) / max(b, 1e-12)))


def measure(rows: list[dict], derivatives: Path, parents: Path) -> list[dict]:
    sources: dict[Path, tuple[np.ndarray, int]] = {}

    def source(path: Path):
        if path not in sources:
            sources[path] = read(path)
        return sources[path]

    out = []
    for r in rows:
        if r.get("negKind") != "derivative" or r.get("condition") not in ("snr_0", "snr_p5"):
            continue
        noisy = Path(r["file"])
        clean = noisy.with_name(noisy.name.replace(f"__{r['condition']}.wav", "__clean.wav"))
        at = re.search(r"__at(\d+)ms__", noisy.name)
        if not clean.exists() or at is None:
            continue
        heard, rate = read(noisy)
        twin, _ = read(clean)
        n = min(len(heard), len(twin))
        noise = heard[:n] - twin[:n]
        derivative, drate = source(derivatives / f"{r['sourceId']}.wav")
        parent, prate = source(parents / f"{r['derivativeOf']}.wav")
        if drate != prate:
            sys.exit(f"{r['sourceId']}: {drate} Hz against its parent's {prate} Hz")
        start = round(int(at.group(1)) / 1000 * drate)
        length = int(r["length"] * drate)
        d = derivative[start:start + length]
        p = parent[start:start + length]
        k = min(len(d), len(p))
        d, p = d[:k], p[:k]
        changes = band_power(d - p, drate)
        # The benchmark sets each excerpt's level: scale the sources to the clean query's.
        scale = band_power(twin[:n], rate) / max(band_power(d, drate), 1e-12)
        part = r["sourceId"].split("--keep-")[1].split("--")[0]
        out.append({"name": r["name"], "condition": r["condition"], "length": r["length"],
                    "parent": r["derivativeOf"], "part": part, "named": r["verdict"] == "falsePositive",
                    "diffOverNoise": db(changes * scale, band_power(noise, rate)),
                    "diffOverParent": db(changes, band_power(p, drate))})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    parser.add_argument("--work", default="/tmp/soundtrace-bench")
    parser.add_argument("--parents", default=str(REPO / "catalog" / "audio"))
    parser.add_argument("--json")
    args = parser.parse_args()
    caches = sorted(Path(args.work).glob("derivatives-*"))
    if not caches:
        sys.exit(f"no derivatives under {args.work} (bench/accuracy/run.sh renders them)")
    rows = [json.loads(line) for line in open(args.results)]
    out = measure(rows, caches[-1], Path(args.parents))
    if args.json:
        Path(args.json).write_text(json.dumps(out))
    named = [o for o in out if o["named"]]
    print(f"{len(out)} noisy derivative queries, {len(named)} named as their parent")
    print()
    print("| condition | named: diff/noise min / median / max | not named: diff/noise p5 / median / p95 |")
    print("|---|---:|---:|")
    for condition in ("snr_p5", "snr_0"):
        a = [o["diffOverNoise"] for o in named if o["condition"] == condition]
        b = [o["diffOverNoise"] for o in out if not o["named"] and o["condition"] == condition]
        left = f"{min(a):.1f} / {np.median(a):.1f} / {max(a):.1f} dB ({len(a)})" if a else "– (0)"
        right = f"{np.percentile(b, 5):.1f} / {np.median(b):.1f} / {np.percentile(b, 95):.1f} dB ({len(b)})" if b else "–"
        print(f"| {condition} | {left} | {right} |")
    print()
    print("| parent | kept part | diff/parent, median | diff/noise at 0 dB, median | named |")
    print("|---|---|---:|---:|---:|")
    groups = collections.defaultdict(list)
    for o in out:
        groups[(o["parent"], o["part"])].append(o)
    for (parent, part), items in sorted(groups.items()):
        at0 = [o["diffOverNoise"] for o in items if o["condition"] == "snr_0"]
        print(f"| {parent} | {part} | {np.median([o['diffOverParent'] for o in items]):.1f} dB | "
              f"{np.median(at0):.1f} dB | {sum(o['named'] for o in items)} of {len(items)} |")


if __name__ == "__main__":
    main()
