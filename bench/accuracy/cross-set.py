#!/usr/bin/env python3
"""Music that is not in the catalog, in every condition: one set's clips against another set's catalog.

The benchmark's negatives are mostly clean (held-out tracks, alternate versions, derivatives, noise,
silence, speech). This check takes every POSITIVE clip of one set (3/5/10 s; clean, pink noise,
the microphone chain, speed changes, people talking) and matches it against the catalog of another
set, which does not hold its recording: every match is a false positive, in conditions where the
whole-mix checks have the least to go on. It also shows how close chance came: the signature
rescue's strongest first-round, other-places and wider-net scores (`--explain`), against their bars
(3.0 for the recording with the most landmark hits, at its best place and its next strongest ones;
4.6 for any other and for the wider net), and, for each
clip that reached 3.0, the whole-mix figures the engine reports (those of the landmark winner's
alignment, which need not be the alignment the first round's score belongs to). docs/BENCHMARKS.md ("One look among several")
reports a run.

Needs bench/accuracy/run.sh to have run for both sets (the clips, and the manifest of the catalog
set); the catalog is built here with the binary under test, so its parameters always match.

    bench/accuracy/cross-set.py [--soundtrace PATH] [--work DIR] [--queries tuning|dev|dev2|dev3|dev4|dev5] [--catalog-set dev|tuning|dev2|dev3|dev4|dev5] [--jobs N]
"""
import argparse
import collections
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BATCH = 40
NEAR = 3.0  # the first round's lowest bar: a clip whose chance score reaches it is shown
WIDE = 4.6  # the wider net's bar: a clip whose chance score there reaches it is shown too


def clips(work: Path, query_set: str) -> list[dict]:
    results = work / f"results-{query_set}-full.jsonl"
    if not results.exists():
        sys.exit(f"cross-set: no {results}; run bench/accuracy/run.sh --set {query_set} first")
    rows = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    return [{"file": r["file"], "length": r["length"], "condition": r["condition"]} for r in rows if r["kind"] == "positive"]


def build_catalog(binary: Path, work: Path, catalog_set: str) -> Path:
    manifest = work / f"manifest-{catalog_set}-full.json"
    if not manifest.exists():
        sys.exit(f"cross-set: no {manifest}; run bench/accuracy/run.sh --set {catalog_set} first")
    out = work / f"cross-set-{catalog_set}.catalog"
    r = subprocess.run([str(binary), "catalog", "build", "--manifest", str(manifest), "--out", str(out)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"cross-set: catalog build failed ({r.returncode}): {r.stderr.strip()[-500:]}")
    return out


def match(binary: Path, catalog: Path, files: list[str]) -> list[dict]:
    r = subprocess.run([str(binary), "match", "--catalog", str(catalog), "--json", "--explain", *files],
                       capture_output=True, text=True)
    answers = {}
    for line in r.stdout.splitlines():
        try:
            j = json.loads(line)
        except json.JSONDecodeError:
            continue
        answers[j.get("file")] = j
    # A clip the binary gave no answer for counts as failed, never as a silent pass.
    return [answers.get(f, {"file": f, "outcome": "failed"}) for f in files]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--soundtrace", type=Path, default=REPO / ".build" / "release" / "soundtrace")
    ap.add_argument("--work", type=Path, default=Path("/tmp/soundtrace-bench"))
    ap.add_argument("--queries", default="tuning", choices=("tuning", "dev", "dev2", "dev3", "dev4", "dev5"))
    ap.add_argument("--catalog-set", default="dev", choices=("tuning", "dev", "dev2", "dev3", "dev4", "dev5"))
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    if a.queries == a.catalog_set:
        sys.exit("cross-set: --queries and --catalog-set must differ (the clips' recordings must not be in the catalog)")
    if not a.soundtrace.exists():
        sys.exit(f"cross-set: no soundtrace binary at {a.soundtrace} (swift build -c release, or --soundtrace)")
    queries = clips(a.work, a.queries)
    catalog = build_catalog(a.soundtrace, a.work, a.catalog_set)
    batches = [queries[i:i + BATCH] for i in range(0, len(queries), BATCH)]
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        answers = [j for batch in pool.map(lambda b: match(a.soundtrace, catalog, [q["file"] for q in b]), batches) for j in batch]

    cells = collections.defaultdict(list)
    for q, j in zip(queries, answers):
        cells[(q["length"], q["condition"])].append(j)
    print(f"# {a.queries} clips against the {a.catalog_set} catalog ({a.soundtrace})\n")
    print("| length | condition | clips | matched (false positives) | failed | first round ≥ 3.0 | strongest first round "
          "| leader's other places ≥ 3.0 | strongest there | strongest wider net |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (length, condition), js in sorted(cells.items()):
        first = [j["signatureScore"] for j in js if j.get("signatureScore") is not None]
        places = [j["placesSignatureScore"] for j in js if j.get("placesSignatureScore") is not None]
        wide = [j["wideSignatureScore"] for j in js if j.get("wideSignatureScore") is not None]
        print(f"| {length} s | {condition} | {len(js)} | {sum(j.get('outcome') == 'match' for j in js)} "
              f"| {sum(j.get('outcome') not in ('match', 'noMatch') for j in js)} | {sum(s >= NEAR for s in first)} "
              f"| {max(first, default=float('nan')):.2f} | {sum(s >= NEAR for s in places)} "
              f"| {max(places, default=float('nan')):.2f} | {max(wide, default=float('nan')):.2f} |")
    near = [j for j in answers
            if (j.get("signatureScore") or 0) >= NEAR or (j.get("placesSignatureScore") or 0) >= NEAR
            or (j.get("wideSignatureScore") or 0) >= WIDE or j.get("outcome") == "match"]
    if near:
        print("\nClips whose first-round or other-places score reached 3.0 or wider-net score 4.6, or that were matched:\n")
        print("| clip | outcome | named, or landmark winner | hits (best other) | first round | other places | wider net "
              "| winner's alignment: short dB | above dB | signatures disagree |")
        print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
        for j in sorted(near, key=lambda j: -(j.get("signatureScore") or 0)):
            print(f"| {Path(j['file']).name} | {j.get('outcome')} | {j.get('referenceId') or j.get('candidateId')} "
                  f"| {j.get('score')} ({j.get('runnerUpScore')}) | {j.get('signatureScore')} | {j.get('placesSignatureScore')} "
                  f"| {j.get('wideSignatureScore')} "
                  f"| {j.get('containmentShortfall')} | {j.get('containmentSurplus')} | {j.get('signatureErrorRate')} |")
    matched = sum(j.get("outcome") == "match" for j in answers)
    failed = sum(j.get("outcome") not in ("match", "noMatch") for j in answers)
    print(f"\n{len(answers)} clips: {matched} matched (false positives), {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
