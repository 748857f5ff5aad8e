"""Live sessions on the accuracy benchmark's clips: see run.sh."""
import collections, json, os, statistics, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

binary, work, set_name, with_negatives = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
rows = [json.loads(l) for l in open(os.path.join(work, f"results-{set_name}-full.jsonl"))]
catalog = os.path.join(work, f"catalog-{set_name}-full.catalog")
clips = {"mic": [], "snr_0": [], "speech": []}
for r in rows:
    if r["kind"] == "positive" and r["length"] == 10 and r["condition"] in clips:
        clips[r["condition"]].append(r)
negatives = [r for r in rows if r["kind"] == "negative"] if with_negatives else []

tmp = tempfile.mkdtemp(prefix="soundtrace-sessions-")

def session(job):
    index, r = job
    raw = os.path.join(tmp, f"clip{index}.raw")
    # One extra second of silence: the file plugin repeats stale data after the end.
    subprocess.run(["sox", "-V1", "-D", r["file"], "-t", "raw", "-e", "signed", "-b", "16", "-c", "1", "-r", "8000",
                    raw, "pad", "0", "1"], check=True)
    conf = os.path.join(tmp, f"asound{index}.conf")
    with open(conf, "w") as f:
        f.write('</usr/share/alsa/alsa.conf>\npcm.benchmic { type file; slave.pcm "null"; file "/dev/null"; infile "%s"; format "raw" }\n' % raw)
    env = dict(os.environ, ALSA_CONFIG_PATH=conf)
    out = subprocess.run([binary, "match", "--device", "benchmic", "--seconds", "10", "--catalog", catalog, "--json"],
                         env=env, capture_output=True, text=True).stdout
    os.remove(raw)
    os.remove(conf)
    return json.loads(out)

def run_all(items):
    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(session, enumerate(items)))

def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]

print(f"## Live sessions, {set_name} set (10 s clips, window 10 s)\n")
print("| clips | N | matched right | median heard (s) | p95 heard (s) | no match | wrong | median heard, every session (s) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for cond, label in [("mic", "speaker→room→mic (band-pass, reverb, pink +10 dB)"), ("snr_0", "pink noise 0 dB SNR"),
                    ("speech", "people talking 10 dB under the music")]:
    heard, every, right, wrong, nomatch = [], [], 0, 0, 0
    for r, result in zip(clips[cond], run_all(clips[cond])):
        if "heardSeconds" in result:
            every.append(result["heardSeconds"])
        if result.get("outcome") == "match":
            if result.get("referenceId") == r["expectedId"]:
                right += 1
                heard.append(result["heardSeconds"])
            else:
                wrong += 1
        else:
            nomatch += 1
    n = len(clips[cond])
    med = f"{statistics.median(heard):.2f}" if heard else "–"
    p95 = f"{pct(heard, 95):.2f}" if heard else "–"
    med_every = f"{statistics.median(every):.2f}" if every else "–"
    print(f"| {label} | {n} | {right} | {med} | {p95} | {nomatch} | {wrong} | {med_every} |")

if negatives:
    print("\n| negatives run as sessions | N | matched (false positives) | failed |")
    print("|---|---:|---:|---:|")
    counts = collections.Counter()
    matched = collections.Counter()
    failed = collections.Counter()
    examples = []
    for r, result in zip(negatives, run_all(negatives)):
        kind = r.get("negKind", "other")
        counts[kind] += 1
        if result.get("outcome") == "match":
            matched[kind] += 1
            examples.append(f"{os.path.basename(r['file'])} → {result.get('referenceId')}")
        elif result.get("outcome") not in ("noMatch",):
            failed[kind] += 1
    for kind in sorted(counts):
        print(f"| {kind} | {counts[kind]} | {matched[kind]} | {failed[kind]} |")
    print(f"| **all** | {sum(counts.values())} | **{sum(matched.values())}** | {sum(failed.values())} |")
    for e in examples:
        print(f"- false positive: {e}")
