#!/usr/bin/env python3
"""A probe of the whole-mix checks on pieces that keep MOST of a tuning-set piece's mix.

The benchmark's derivatives keep one part of a sample piece and replace the rest. This probe renders
`catalog/compose.py --kept-most` pieces instead (each keeps most of a tuning-set piece verbatim and
replaces one or two parts, six takes), cuts them like the benchmark's hard negatives (3/5/10 s,
clean, through the microphone chain, talked over) at OFFSETS places each, and asks `soundtrace match`
against the tuning catalog of `bench/accuracy/run.sh` what they are. None of them is the catalog
recording, so every match is one the whole-mix checks could not refuse. With numpy installed it also
measures how far each family stands from its source, per third of an octave, inside the band the
whole-mix checks listen to (300-2600 Hz) and below it: where the replaced parts lie decides what
the checks can see. Not part of the benchmark's targets: docs/BENCHMARKS.md ("Pieces that keep
most of the mix") says why and what it showed.

With --low-bands (numpy) it also prototypes a containment check below 300 Hz, which the catalog
does not store: from the audio itself, per reference level frame (128 ms) and third of an octave
(47-297 Hz), how far the heard level falls short of gain x reference + floor (the rule of
ContainmentCheck, with exact reference levels), and how clearly the band was heard (clearance:
the reference's loudest times the gain over the heard floor), for the right answers of the tuning
and dev benchmarks (results-{tuning,dev}-full.jsonl, dev where it has run) and for this probe's
matches, side by side.

    bench/accuracy/kept-most.py [--soundtrace PATH] [--work DIR] [--offsets N] [--jobs N] [--low-bands]
"""
import argparse
import collections
import hashlib
import json
import shutil
import subprocess
import sys
import wave
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import accuracy as A  # noqa: E402  (the benchmark's own cutting, noise and talk recipes)

CHAINS = ("clean", "mic", "speech")
# The whole-mix checks' bands (EngineParameters.levelBandEdges at 8 kHz, 512-point FFT).
CHECKED_HZ = (297, 2625)


def render(work: Path) -> Path:
    """The probe pieces, rendered once per version of render.sh and compose.py."""
    key = hashlib.sha256(A.RENDER_SCRIPT.read_bytes() + A.COMPOSE_SCRIPT.read_bytes()).hexdigest()[:12]
    out = work / f"kept-most-{key}"
    if not (out / ".complete").exists():
        tmp = work / f".tmp-kept-most-{key}"
        shutil.rmtree(tmp, ignore_errors=True)
        A.log(f"rendering the kept-most pieces: {A.RENDER_SCRIPT} --kept-most {tmp}")
        r = subprocess.run(["bash", str(A.RENDER_SCRIPT), "--kept-most", str(tmp)], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"kept-most: render.sh --kept-most failed ({r.returncode}): {r.stderr.strip()[-500:]}")
        (tmp / ".complete").write_text("")
        shutil.rmtree(out, ignore_errors=True)
        tmp.rename(out)
    return out


def family(path: str) -> str:
    """<id>--keep-<parts> of a query or piece file name (takes folded together)."""
    return Path(path).name.split("__")[0].split("--take")[0].removesuffix(".wav")


def plan(work: Path, pieces: Path, offsets: int) -> list[dict]:
    queries = []
    for wav in sorted(pieces.glob("*--keep-*.wav")):
        # The benchmark's format for hard-negative sources: 44.1 kHz stereo 16-bit.
        track = {"key": f"kept-most-{wav.stem}", "src": str(wav)}
        A.convert_track(work, track)
        for k, start in enumerate(A.offsets_for({**track, "id": wav.stem}, offsets)):
            for length in A.LENGTHS:
                for chain in CHAINS:
                    name = f"{wav.stem}__o{k}__{length}s__{chain}"
                    queries.append({"file": str(work / "kept-most-queries" / f"{name}.wav"), "negKind": "derivative",
                                    "condition": chain, "length": length, "wav": track["wav"], "start": start,
                                    "name": name, "family": family(wav.name)})
    return queries


def read_16k_mono(path: Path):
    """The samples of a 16 kHz mono 16-bit WAV as floats (numpy)."""
    import numpy as np
    with wave.open(str(path)) as w:
        if w.getframerate() != 16000 or w.getnchannels() != 1 or w.getsampwidth() != 2:
            sys.exit(f"kept-most: {path} is not 16 kHz mono 16-bit")
        return np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float64)


def power_spectra(x, n: int, hop: int):
    """Hann-windowed power spectra of x, one row per hop (numpy)."""
    import numpy as np
    return np.abs(np.fft.rfft(np.hanning(n) * np.lib.stride_tricks.sliding_window_view(x, n)[::hop])) ** 2


def band_levels(path: Path):
    """Third-octave band levels (dB) of a 16 kHz mono WAV, 64 ms hops; None without numpy."""
    try:
        import numpy as np
    except ImportError:
        return None
    n = 2048
    spectra = power_spectra(read_16k_mono(path), n, 1024)
    freqs = np.fft.rfftfreq(n, 1 / 16000)
    edges = 50 * 2 ** (np.arange(0, 22) / 3)
    levels = np.stack([spectra[:, (freqs >= lo) & (freqs < hi)].sum(1) for lo, hi in zip(edges[:-1], edges[1:])], 1)
    return 10 * np.log10(levels + 1e3), edges


def distances(pieces: Path) -> dict[str, tuple[float, float]]:
    """Per family: the median over 5 s windows (and takes) of the mean |level difference| to the
    source in the checked band and below it, in dB, over cells within 40 dB of the source's loudest."""
    import numpy as np  # only called when band_levels found it
    per_family = collections.defaultdict(lambda: ([], []))
    for wav in sorted(pieces.glob("*--keep-*.wav")):
        source = A.REPO_ROOT / "catalog" / "audio" / f"{wav.name.split('--')[0]}.wav"
        (a, edges), (b, _) = band_levels(source), band_levels(wav)
        m = min(len(a), len(b))
        inside = (edges[:-1] >= CHECKED_HZ[0] * 0.9) & (edges[1:] <= CHECKED_HZ[1] * 1.1)
        below = edges[1:] <= CHECKED_HZ[0] * 1.1
        window = int(5 * 16000 / 1024)
        for s in range(0, m - window, window // 5):
            sa, sb = a[s:s + window], b[s:s + window]
            loud = sa > sa.max() - 40
            diff = np.abs(sa - sb)
            for mask, out in ((inside, per_family[family(wav.name)][0]), (below, per_family[family(wav.name)][1])):
                cells = diff[:, mask][loud[:, mask]]
                if cells.size:
                    out.append(float(cells.mean()))
    return {f: (float(np.median(i)), float(np.median(b))) for f, (i, b) in per_family.items()}


LOW_BANDS = ((3, 6), (6, 10), (10, 19))  # FFT bins of 15.625 Hz at 16 kHz / 1024 points: 47-297 Hz
LEVEL_STEP_FRAMES = 8  # as EngineParameters.levelStepFrames: one reference cell per 128 ms
MARGIN_LOG2 = 171 / 256  # as containmentMarginQ8 (2 dB)


def low_levels(path: Path):
    """Per 16 ms frame, each low band's power summed over 8 frames (the engine's smoothing)."""
    import numpy as np
    x = read_16k_mono(path)
    n, hop = 1024, 256
    if len(x) < n + 8 * hop:
        return np.zeros((0, len(LOW_BANDS)))
    power = power_spectra(x, n, hop)
    bands = np.stack([power[:, a:b].sum(1) for a, b in LOW_BANDS], 1)
    running = np.cumsum(np.vstack([np.zeros((1, len(LOW_BANDS))), bands]), 0)
    return running[8:] - running[:-8]


def low_band_check(query: Path, reference, offset_seconds: float):
    """(shortfall dB, clearance dB), means over the low bands, of `query` heard at `offset_seconds`
    of the reference whose `low_levels` are `reference`; None when too little lines up."""
    import numpy as np
    heard_frames = low_levels(query)
    start = int(round(offset_seconds * 16000 / 256))
    cells = [(heard_frames[max(0, f - 1):f + 2].max(0), reference[start + f]) for f in range(len(heard_frames))
             if 0 <= start + f < len(reference) and (start + f) % LEVEL_STEP_FRAMES == 0]
    if len(cells) < 8:
        return None
    heard = np.array([c[0] for c in cells])
    ref = np.array([c[1] for c in cells])
    shortfalls, clearances = [], []
    for b in range(len(LOW_BANDS)):
        h, r = heard[:, b], ref[:, b]
        top = r.max()
        if top <= 0:
            continue
        floor = np.sort(h)[len(h) * 26 // 256]  # containmentNoiseFloorShareQ8
        steps = np.minimum(15, np.round(np.log2(top / np.maximum(r, 1e-9))))
        loud = (steps <= np.sort(steps)[min(len(steps) - 1, len(steps) * 102 // 256)]) & (steps < 15)
        relative = top * 2.0 ** -steps
        gain = np.median((np.maximum(h - floor, 0) / relative)[loud])
        expected = gain * relative + floor
        short = np.maximum(0, np.log2(expected[loud]) - np.log2(np.maximum(h[loud], 1)) - MARGIN_LOG2)
        shortfalls.append(short.mean() * 3.0103)
        clearances.append(3.0103 * (np.log2(max(gain * top, 1e-9)) - np.log2(max(floor, 1))))
    if not shortfalls:
        return None
    return float(np.mean(shortfalls)), float(np.mean(clearances))


def low_bands_report(work: Path, queries: list[dict], results: dict) -> None:
    """The prototype's separation: the tuning benchmark's right answers against this probe's matches."""
    ref_dir = work / "kept-most-ref16"
    ref_dir.mkdir(exist_ok=True)
    levels = {}
    positives = []
    # The tuning set's right answers, and the dev set's where run.sh --set dev has run.
    for set_name in ("tuning", "dev"):
        manifest, answers = work / f"manifest-{set_name}-full.json", work / f"results-{set_name}-full.jsonl"
        if not (manifest.exists() and answers.exists()):
            continue
        for r in json.loads(manifest.read_text())["references"]:
            out = ref_dir / f"{r['id']}.wav"
            if not out.exists():
                A.sox(str(work / r["sourceFile"]), "-r", "16000", "-c", "1", "-b", "16", str(out))
            levels[r["id"]] = low_levels(out)
        for line in answers.read_text().splitlines():
            j = json.loads(line)
            if j["kind"] == "positive" and j["verdict"] == "correct" and not j["condition"].startswith("speed"):
                m = low_band_check(Path(j["file"]), levels[j["expectedId"]], j["expectedOffset"])
                if m:
                    positives.append((f"{set_name} {j['condition']}", j["length"], *m))
    matches = []
    for q in queries:
        if (results.get(q["file"]) or {}).get("outcome") == "match":
            m = low_band_check(Path(q["file"]), levels[q["family"].split("--")[0]], q["start"] / A.CATALOG_RATE)
            if m:
                matches.append((q["condition"], q["length"], *m))
    print(f"\nBelow 300 Hz (prototype): {len(positives)} right answers of the tuning and dev benchmarks, {len(matches)} probe matches")
    print("| low bands heard at least | right answers | their largest shortfall (condition, length) | probe matches | of them further short |")
    print("|---:|---:|---|---:|---:|")
    for clearance in (0, 10, 15, 20, 25, 30):
        heard = [p for p in positives if p[3] >= clearance]
        worst = max(heard, key=lambda p: p[2], default=None)
        bar = worst[2] if worst else 0.0
        caught = [m for m in matches if m[3] >= clearance]
        beyond = sum(1 for m in caught if m[2] > bar + 0.05)
        where = f"{bar:.2f} dB ({worst[0]}, {worst[1]} s)" if worst else "–"
        print(f"| {clearance} dB | {len(heard)} | {where} | {len(caught)} | {beyond} (over {bar + 0.05:.2f} dB) |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--soundtrace", type=Path, default=A.REPO_ROOT / ".build" / "release" / "soundtrace")
    ap.add_argument("--work", type=Path, default=Path("/tmp/soundtrace-bench"))
    ap.add_argument("--offsets", type=int, default=10, help="places cut per piece (default 10)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--low-bands", action="store_true", help="prototype a containment check below 300 Hz (numpy)")
    args = ap.parse_args()
    catalog = args.work / "catalog-tuning-full.catalog"
    if not catalog.exists():
        sys.exit(f"kept-most: no tuning catalog at {catalog}: run bench/accuracy/run.sh (--work {args.work}) first")
    if not args.soundtrace.exists():
        sys.exit(f"kept-most: no binary at {args.soundtrace}: swift build -c release, or pass --soundtrace PATH")
    if args.offsets < 1:
        sys.exit("kept-most: --offsets must be at least 1")
    if args.low_bands:
        try:
            import numpy  # noqa: F401
        except ImportError:
            sys.exit("kept-most: --low-bands needs numpy (pip install numpy)")
        if not (args.work / "results-tuning-full.jsonl").exists():
            sys.exit(f"kept-most: --low-bands needs {args.work}/results-tuning-full.jsonl: run bench/accuracy/run.sh first")
    pieces = render(args.work)
    queries = plan(args.work, pieces, args.offsets)
    (args.work / "kept-most-queries").mkdir(exist_ok=True)
    A.run_parallel(A.make_negative, [(args.work, q) for q in queries], args.jobs, "kept-most queries")
    ran = A.run_match(args.soundtrace, catalog, queries, 60, args.jobs)
    if ran["problems"]:
        sys.exit("kept-most: " + "; ".join(ran["problems"][:5]))
    counts = collections.Counter()
    matched = collections.defaultdict(list)
    for q in queries:
        r = ran["results"].get(q["file"]) or {}
        counts[(q["family"], q["condition"], q["length"], "all")] += 1
        if r.get("outcome") == "match":
            counts[(q["family"], q["condition"], q["length"], "match")] += 1
            matched[q["family"]].append(r)
    near = distances(pieces) if band_levels(next(pieces.glob("*.wav"))) is not None else {}
    print("| probe piece (6 takes) | " + " | ".join(f"{c} {n} s" for c in CHAINS for n in A.LENGTHS)
          + " | level difference to the source, 300-2600 Hz / below 300 Hz |")
    print("|---|" + "---:|" * (len(CHAINS) * len(A.LENGTHS)) + "---:|")
    for fam in sorted({q["family"] for q in queries}):
        cells = [f"{counts[(fam, c, n, 'match')]}/{counts[(fam, c, n, 'all')]}" for c in CHAINS for n in A.LENGTHS]
        dist = f"{near[fam][0]:.1f} / {near[fam][1]:.1f} dB" if fam in near else "(needs numpy)"
        print(f"| `{fam}` | " + " | ".join(cells) + f" | {dist} |")
    total = sum(v for (_, _, _, k), v in counts.items() if k == "match")
    print(f"\n{total} of {len(queries)} probe queries matched their source (each is another recording).")
    for fam, rs in sorted(matched.items()):
        shortfalls = sorted(r.get("containmentShortfall") or 0 for r in rs)
        errors = sorted(r.get("alignmentErrorRate") or 0 for r in rs)
        print(f"- `{fam}`: matched with shortfall {shortfalls[0]:.3f}-{shortfalls[-1]:.3f} dB, "
              f"signatures disagreeing at {errors[0]:.3f}-{errors[-1]:.3f}")
    if args.low_bands:
        low_bands_report(args.work, queries, ran["results"])
    (args.work / "kept-most-results.jsonl").write_text(
        "".join(json.dumps({**q, "raw": ran["results"].get(q["file"])}) + "\n" for q in queries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
