"""Decision latency of live sessions: see run.sh."""
import json, os, statistics, subprocess, sys, tempfile

binary, work, half = sys.argv[1], sys.argv[2], sys.argv[3]
rows = [json.loads(l) for l in open(os.path.join(work, "results-full.jsonl"))]
catalog = os.path.join(work, "catalog-full.catalog")
clips = {"mic": [], "snr_0": []}
for r in rows:
    if r["kind"] == "positive" and r["half"] == half and r["length"] == 10:
        cond = os.path.basename(r["file"]).split("__")[-1][:-4]
        if cond in clips:
            clips[cond].append(r)

tmp = tempfile.mkdtemp(prefix="soundtrace-sessions-")
def session(r):
    raw = os.path.join(tmp, "clip.raw")
    # One extra second of silence: the file plugin repeats stale data after the end.
    subprocess.run(["sox", "-V1", "-D", r["file"], "-t", "raw", "-e", "signed", "-b", "16", "-c", "1", "-r", "8000",
                    raw, "pad", "0", "1"], check=True)
    conf = os.path.join(tmp, "asound.conf")
    with open(conf, "w") as f:
        f.write('</usr/share/alsa/alsa.conf>\npcm.benchmic { type file; slave.pcm "null"; file "/dev/null"; infile "%s"; format "raw" }\n' % raw)
    env = dict(os.environ, ALSA_CONFIG_PATH=conf)
    out = subprocess.run([binary, "match", "--device", "benchmic", "--seconds", "10", "--catalog", catalog, "--json"],
                         env=env, capture_output=True, text=True).stdout
    return json.loads(out)

def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]

print(f"## Seconds heard before a decision ({half} half, 10 s clips, window 10 s)\n")
print("| clips | N | matched right | median heard (s) | p95 heard (s) | no match | wrong | median heard, every session (s) |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for cond, label in [("mic", "speaker→room→mic (band-pass, reverb, pink +10 dB)"), ("snr_0", "pink noise 0 dB SNR")]:
    heard, every, right, wrong, nomatch = [], [], 0, 0, 0
    for r in clips[cond]:
        result = session(r)
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
