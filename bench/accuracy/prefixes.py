#!/usr/bin/env python3
"""What does the one-shot verdict say on the first seconds of a clip heard in noise?

A live session looks at what it has heard so far, again and again; the benchmark's one-shot
queries are 3, 5 and 10 s excerpts at fixed places. This probe asks the one-shot question of the
first 3.5, 4, 4.5, 5 and 6 s of every 10 s clip in pink noise (snr_p5, snr_0, snr_m5) of a set's
results file: the positives and the derivative pieces (the hard negatives that keep one part of
a catalog recording). It prints, per condition and length, how many positives were named right
and how many derivatives were named at all, then every named derivative with the measures that
let it through (level frames, steady-noise misfit, signature disagreement, clearance).

    bench/accuracy/prefixes.py --set tuning --soundtrace BIN [--work DIR]

Needs a results file of bench/accuracy/run.sh for the set (WORK/results-SET-full.jsonl) and its
catalog; the cut clips go to WORK/prefixes-SET (16 kHz, cut with sox, not resampled). Numbers
only: docs/BENCHMARKS.md ("Deep in noise, a session waits for its window") records what it showed.
"""
import argparse, collections, json, os, subprocess
from concurrent.futures import ThreadPoolExecutor

LENGTHS = (3.5, 4, 4.5, 5, 6)
CONDITIONS = ("snr_p5", "snr_0", "snr_m5")

ap = argparse.ArgumentParser()
ap.add_argument("--set", required=True)
ap.add_argument("--soundtrace", required=True)
ap.add_argument("--work", default="/tmp/soundtrace-bench")
args = ap.parse_args()
results = os.path.join(args.work, f"results-{args.set}-full.jsonl")
catalog = os.path.join(args.work, f"catalog-{args.set}-full.catalog")
for needed in (results, catalog):
    if not os.path.exists(needed):
        raise SystemExit(f"run bench/accuracy/run.sh --set {args.set} first (no {needed})")
out = os.path.join(args.work, f"prefixes-{args.set}")
os.makedirs(out, exist_ok=True)

clips = []
for line in open(results):
    r = json.loads(line)
    if r["length"] != 10 or r["condition"] not in CONDITIONS:
        continue
    if r["kind"] == "positive" or r.get("derivativeOf"):
        clips.append(r)

queries = []
for i, r in enumerate(clips):
    for length in LENGTHS:
        queries.append({"file": os.path.join(out, f"q{i}_{length}.wav"), "source": r["file"], "length": length,
                        "kind": r["kind"], "condition": r["condition"],
                        "expected": r.get("expectedId") or r.get("derivativeOf")})

def cut(q):
    if not os.path.exists(q["file"]):
        subprocess.run(["sox", "-V1", q["source"], q["file"], "trim", "0", str(q["length"])], check=True)

def match(batch):
    run = subprocess.run([args.soundtrace, "match", "--catalog", catalog, "--json", "--explain"]
                         + [q["file"] for q in batch], capture_output=True, text=True)
    answers = [json.loads(l) for l in run.stdout.splitlines() if l.strip()]
    if len(answers) != len(batch):
        raise SystemExit(f"soundtrace answered {len(answers)} of {len(batch)} files: {run.stderr.strip()}")
    return list(zip(batch, answers))

with ThreadPoolExecutor(4) as pool:
    list(pool.map(cut, queries))
with ThreadPoolExecutor(2) as pool:
    answered = [pair for part in pool.map(match, [queries[i:i + 100] for i in range(0, len(queries), 100)]) for pair in part]

right, positives, named, derivatives = (collections.Counter() for _ in range(4))
lines = []
for q, a in answered:
    key = (q["condition"], q["length"])
    if q["kind"] == "positive":
        positives[key] += 1
        right[key] += a["outcome"] == "match" and a["referenceId"] == q["expected"]
    else:
        derivatives[key] += 1
        if a["outcome"] == "match":
            named[key] += 1
            lines.append(f"- {os.path.basename(q['source'])}, first {q['length']} s → {a['referenceId']}: "
                         f"{a.get('containmentCells')} level frames, misfit {a.get('containmentNoiseMisfit')}, "
                         f"signatures {a.get('signatureErrorRate')} apart, clearance {a.get('containmentClearance')} dB")

print(f"## The first seconds of noisy 10 s clips, {args.set} set, one-shot\n")
print("| condition | first | positives right | derivatives named |")
print("|---|---:|---:|---:|")
for key in sorted(positives, key=lambda k: (CONDITIONS.index(k[0]), k[1])):
    print(f"| {key[0]} | {key[1]} s | {right[key]} of {positives[key]} | {named[key]} of {derivatives[key]} |")
print()
print("\n".join(lines) if lines else "No derivative was named.")
