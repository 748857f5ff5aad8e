#!/usr/bin/env python3
"""Soundtrace accuracy benchmark.

Three disjoint sets of music, each with its OWN catalog, queries and negatives:

  * TUNING — packages the engine may be tuned on: look at these numbers as often as you like;
  * DEV    — packages added later (2026-12-02) to study failures the tuning set does not show
             (it is 100 % through the microphone chain): its first run, with the engine as it
             was, was a fresh unseen measurement; from then on it may be tuned on like TUNING;
  * BLIND  — other packages (other composers, other styles), kept unseen while tuning, so that
             the final report shows whether the tuning generalises. `--set` defaults to tuning.

The package of each set is fixed in SOURCES below; the project's own sample catalog pieces
(catalog/audio) alternate between the sets. Each catalog is built with `soundtrace catalog build`
from 44.1 kHz stereo WAVs; queries are degraded excerpts (16 kHz mono 16-bit) matched with
`soundtrace match --json --explain`, and the result is a Markdown report per set.

Why it is shaped the way it is:
  * Everything is deterministic (sorted names, `sox -D -R`, hash-derived "random" choices),
    so two runs of the same binary give the same numbers and a change in the report means a
    change in the engine. The selection of tracks does not depend on --set or on what was run
    before.
  * Generated audio is cached in the work dir (default /tmp/soundtrace-bench) under a
    recipe-versioned folder, so reruns only pay for matching. Bump RECIPE when a change
    here alters the audio; old caches are then simply ignored. Decoded tracks are named after
    the hash of their source, so a re-rendered sample piece is never mistaken for the old one.
  * Hard negatives sit close to the catalog: music from the same packages (same composers and
    style), other versions of catalog tunes, and derivatives of the sample pieces that keep one
    part verbatim. They are matched clean and through the speaker→room→mic chain.
  * No audio ever lands in the repository: all of it lives in the work dir.

Python 3 standard library only; sox, espeak-ng and (through catalog/render.sh) fluidsynth do the
signal work.
"""

from __future__ import annotations

import argparse
import array
import concurrent.futures
import hashlib
import json
import operator
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import wave
import zipfile
from dataclasses import dataclass
from pathlib import Path

# Bump when anything below changes the generated audio, so stale caches are not reused.
RECIPE = "v2"

REPO_ROOT = Path(__file__).resolve().parents[2]

SETS = ("tuning", "dev", "dev2", "dev3", "dev4", "dev5", "blind")
# The sample pieces alternate between these two, as they always have (the dev sets have none).
SAMPLE_SETS = ("tuning", "blind")


@dataclass(frozen=True)
class Source:
    set: str  # "tuning", "dev", "dev2", "dev3", "dev4", "dev5" or "blind"
    prefix: str  # id prefix of its tracks
    package: str  # Debian package (run.sh installs it)
    location: str  # folder searched recursively for *.ogg, or a .pk3 or .zip whose .ogg members are used
    license: str  # as given in /usr/share/doc/<package>/copyright
    creator: str  # for files whose tags name nobody
    only: str = ""  # when set, a regular expression the file's path inside location must match
    # More held-out "same-package" negatives, taken from the tracks the selection left unused, so
    # that a set's catalog and its other negatives stay as they were chosen (full runs only).
    extra_held: int = 0


# THE SPLIT. Tuning packages may be looked at while tuning; blind packages only in a final report.
# Nobody on the project wrote any of this music.
SOURCES = [
    Source("tuning", "wesnoth", "wesnoth-1.16-music", "/usr/share/games/wesnoth/1.16/data/core/music",
           "GPL-2+", "Battle for Wesnoth composers"),
    Source("tuning", "hyperrogue", "hyperrogue-music", "/usr/share/hyperrogue/music", "CC-BY-SA-3.0",
           "HyperRogue composers"),
    Source("tuning", "supertux", "supertux-data", "/usr/share/games/supertux2/music", "GPL-2+",
           "SuperTux composers"),
    Source("dev", "freedroid", "freedroidrpg-data", "/usr/share/freedroidrpg/data/sound/music", "GPL-2+",
           "FreedroidRPG composers"),
    Source("dev", "fillets", "fillets-ng-data", "/usr/share/games/fillets-ng/music", "GPL-2",
           "Fish Fillets NG authors"),
    # dev2 (2026-12-04): the five packages bench/scale had used beside these sets, as a second set
    # that is fresh on its first run (only bench/scale's 1- and 10-hour figures had touched them).
    Source("dev2", "ufoai", "ufoai-music", "/usr/share/games/ufoai/base/0music.pk3", "GPL-2+",
           "UFO: Alien Invasion composers"),
    # The menu and faction music only: the tilesets' long ambient loops (birds, wind) are not music.
    Source("dev2", "megaglest", "megaglest-data", "/usr/share/games/megaglest", "CC-BY-SA-3.0",
           "MegaGlest composers", only=r"(^|/)music/"),
    Source("dev2", "flare", "flare-game", "/usr/share/games/flare/mods/fantasycore/music", "CC-BY-SA-3.0+",
           "Flare composers"),
    Source("dev2", "hedgewars", "hedgewars-data", "/usr/share/games/hedgewars/Data/Music", "GPL-2",
           "Hedgewars composers"),
    Source("dev2", "widelands", "widelands-data", "/usr/share/games/widelands/data/music", "GPL-2+",
           "Widelands composers"),
    # dev3 (2026-12-05): orchestral game music like the blind set's weakest package, which no study
    # set had enough of, and a second package of mixed styles whose "_fast" tracks are other renders
    # of the same tunes. Fresh on their first run.
    Source("dev3", "zeroad", "0ad-data", "/usr/share/games/0ad/mods/public/public.zip", "CC-BY-SA-3.0",
           "Wildfire Games", only=r"^audio/music/", extra_held=6),
    Source("dev3", "stk", "supertuxkart-data", "/usr/share/games/supertuxkart/data/music", "CC-BY-SA-3.0",
           "SuperTuxKart composers"),
    # dev4 (2026-12-05): two Debian game-music packages that no set used and that sox decodes (Ogg;
    # fb-music-high is a tracker module), in mixed styles. Fresh on their first run.
    Source("dev4", "warmux", "warmux-data", "/usr/share/games/warmux/music", "GPL-2+", "WarMUX composers"),
    Source("dev4", "etr", "extremetuxracer-data", "/usr/share/games/etr/music", "GPL-2+",
           "Extreme Tux Racer composers"),
    # dev5 (2026-12-05): the blind set's two weakest styles, which no study set reproduced: sparse
    # orchestral music (a strategy game's score, Grieg's "Morning" among it) and dense electronic
    # music by one composer. Fresh on their first run.
    Source("dev5", "uh", "unknown-horizons", "/usr/share/unknown-horizons/content/audio/music", "CC-BY-SA-3.0",
           "Unknown Horizons Team"),
    Source("dev5", "redeclipse", "redeclipse-data", "/usr/share/games/redeclipse/data/sounds/music", "CC-BY-SA-3.0",
           "Derek \"JoJo\" Stegall"),
    Source("blind", "singularity", "singularity-music", "/usr/share/games/singularity/music", "CC-BY-SA-3.0",
           "Max McCracken"),
    Source("blind", "blupi", "planetblupi-music-ogg", "/usr/share/planetblupi/music", "GPL-3+",
           "Planet Blupi authors"),
    Source("blind", "drascula", "drascula-music", "/usr/share/scummvm/drascula/audio", "Drascula-License",
           "Alcachofa Soft"),
    Source("blind", "lincity", "lincity-ng-data", "/usr/share/games/lincity-ng/music", "GPL-2+",
           "LinCity-NG composers"),
    Source("blind", "xmoto", "xmoto-data", "/usr/share/games/xmoto/Textures/Musics", "GPL-2+",
           "X-Moto composers"),
    Source("blind", "nexuiz", "nexuiz-music", "/usr/share/games/nexuiz/data/music.pk3", "GPL-2+",
           "Nexuiz composers"),
]
# Licences of files that differ from their package's main one (from its copyright file): most of
# supertuxkart-data's music is CC-BY-SA-3.0, these not (unlisted files fall under its "Files: *").
LICENSE_BY_ID = {"stk-klabauter-dance": "GPL-1.0-or-later", "stk-cocoa-river": "GPL-3.0-or-later",
                 "stk-cocoa-river-fast": "GPL-3.0-or-later", "stk-snowmountain": "GPL-3.0-or-later"}
# Creators for files whose Ogg tags name none (from the file names and the copyright files).
CREATOR_FALLBACK = {"hyperrogue-hr-domina-": "Lincoln Domina", "hyperrogue-hr-savino-": "Will Savino",
                    "hyperrogue-hr3-": "Shawn Parrotte", "lincity-default-01-pronobozo-": "pronobozo",
                    "lincity-default-03-robert-van-herk-": "Robert van Herk"}

# Two versions of the same tune in one package: the first goes into the catalog, the second is an
# "alt-version" hard negative. Found by name and tags in every package (see README.md); the
# ones marked * were also checked at waveform level (10 s stretches of the two correlate about
# 0.25–0.3, where unrelated tracks of the package reach about 0.1).
ALT_VERSIONS = [
    ("wesnoth-frantic", "wesnoth-frantic-old"),  # both titled "Frantic", by different composers
    ("supertux-misc-theme", "supertux-misc-christmas-theme"),  # * the theme re-orchestrated
    ("supertux-antarctic-cave", "supertux-retro-cave-old"),  # "The Cave (Milestone 2 Version)" / "The Cave"
    ("supertux-castle-fortress", "supertux-retro-fortress-old"),  # "The Fortress (Milestone 2 Version)" / "Fortress"
    ("supertux-antarctic-airship-2", "supertux-antarctic-airship-remix"),  # two arrangements of the Airship song
    ("supertux-forest-beneath-the-rabbit-hole", "supertux-forest-forest2"),  # "Beneath the Rabbit Holes" / "Rabbit Holes"
    ("nexuiz-sixtyfour", "nexuiz-sixtyfour-revisited"),  # * "sixtyfour" and "SixtyFour_Revisited"
    ("stk-celtic", "stk-celtic-fast"),  # the same tune rendered faster (the race's last lap)
    ("stk-cocoa-river", "stk-cocoa-river-fast"),
]
# Not versions but nearly the same recording (waveform correlation 0.5–0.9 at the same positions):
# a match would be right, so it can be neither a negative nor a second catalog entry. The second
# one is dropped like an exact duplicate.
NEAR_DUPLICATES = [("drascula-track1", "drascula-track30"),
                   # the same recording in two packages' encodes (bench/scale's SAME_MUSIC)
                   ("supertux-misc-battle-theme", "flare-battle-theme"),
                   # warmux ships "Apnee" twice: the same recording, mixed a little differently in places
                   ("warmux-ingame-olivier-militon-apnee", "warmux-ingame-olivier-militon-apnee2")]

# The project's own sample catalog: pieces sorted by id alternate tuning/blind. Their derivatives
# (`catalog/render.sh --derivatives OUTDIR` writes <id>--keep-<part>.wav: one part kept verbatim,
# the rest changed) are hard negatives of the same set.
SAMPLE_MANIFEST = REPO_ROOT / "catalog" / "manifest.json"
SAMPLE_PACKAGE = "sample-catalog"  # how the report names them
RENDER_SCRIPT = REPO_ROOT / "catalog" / "render.sh"
COMPOSE_SCRIPT = REPO_ROOT / "catalog" / "compose.py"

MIN_TRACK_SECONDS = 40.0  # shorter tracks (jingles, stingers) are not catalog material
CATALOG_PER_PACKAGE = 8  # at most, alt-version catalog members included
HELD_PER_PACKAGE = 3  # at most; "same-package" negatives
QUICK_CATALOG_PER_PACKAGE, QUICK_HELD_PER_PACKAGE = 2, 1
POS_OFFSETS, QUICK_POS_OFFSETS = 3, 2  # positive offsets per catalog track
# Offsets per hard-negative source. With 3 lengths and 6 chains that is 72 queries per source;
# each set has at least 15 sources, so at least 1080 hard negatives (HARD_NEG_MIN is checked).
HARD_NEG_OFFSETS, QUICK_HARD_NEG_OFFSETS = 4, 2
HARD_NEG_MIN = 300
# How each hard-negative excerpt is heard: as it is, through the mic chain, with people talking
# over it as in the positives' "speech" condition (own slices of the same talk), and in pink noise
# at +5, 0 and -5 dB as the positives' noise conditions (own slices of the same noise). A talker adds
# what the catalog recording lacks; so does a related recording, and the rule must still tell them
# apart. Noise hides what a related recording lacks, where the whole-mix checks look for it.
HARD_NEG_CHAINS = ("clean", "mic", "speech", "snr_p5", "snr_0", "snr_m5")
HARD_KINDS = ("same-package", "alt-version", "derivative")
NEG_KINDS = HARD_KINDS + ("silence", "pink-noise", "white-noise", "speech")

EDGE_SECONDS = 2.0  # queries avoid the first/last 2 s (fade-ins, silence, encoder padding)
CATALOG_RATE = 44100  # catalog WAVs: 44.1 kHz stereo 16-bit, like a typical CD rip
QUERY_RATE = 16000  # queries: 16 kHz mono 16-bit, like a phone/laptop microphone capture
LENGTHS = (3, 5, 10)
SPEED_MAX = 1.01  # the fastest playback we simulate; offsets leave room for it

# Query conditions: (key used in file names and results, label for the report, short label).
CONDITIONS = [
    ("clean", "clean", "clean"),
    ("snr_p5", "pink noise +5 dB SNR", "+5 dB"),
    ("snr_0", "pink noise 0 dB SNR", "0 dB"),
    ("snr_m5", "pink noise −5 dB SNR", "−5 dB"),
    ("mic", "speaker→room→mic (300–5000 Hz, reverb, pink +10 dB)", "mic"),
    ("speed_p1", "speed +1 % (tempo and pitch)", "speed +1 %"),
    ("speed_m1", "speed −1 % (tempo and pitch)", "speed −1 %"),
    ("speech", "people talking 10 dB under the music (espeak-ng voices)", "speech"),
]
SNR_OF = {"snr_p5": 5.0, "snr_0": 0.0, "snr_m5": -5.0}
# People talking in front of the kiosk: speech mixed in with its RMS this far below the music's.
SPEECH_UNDER_MUSIC_DB = 10.0
SPEED_OF = {"speed_p1": 1.01, "speed_m1": 0.99}
MIC_SNR_DB = 10.0
# The mic chain: a small speaker's pass band, then a moderate room (reverberance 40 %,
# HF damping 50 %, room scale 60 %); the mic's own noise is added afterwards.
MIC_EFFECTS = ["sinc", "300-5000", "reverb", "40", "50", "60"]
MIC_PREROLL_SECONDS = 1  # the room is already ringing when the query starts
SILENT_DB = -90.0  # an excerpt quieter than this counts as silent when setting an SNR

# Targets, as (query length, condition) -> minimum top-1 %. They are claimed on the blind set;
# the tuning report shows them too, for orientation. Every wrong reference and every false
# positive misses the target of 0.
TARGETS = {(5, "clean"): 99.5, (5, "mic"): 98.0, (5, "speed_p1"): 95.0,
           (5, "snr_p5"): 97.0, (5, "snr_0"): 88.0, (5, "snr_m5"): 55.0}
OFFSET_TOLERANCE = 1.0  # seconds
# Game music loops: a passage can recur almost unchanged elsewhere in the same track, and then
# an offset far from the expected one can be just as right. An offset error beyond the tolerance
# is called "at a repeat" when the track's audio at the reported offset correlates at least this
# well with the audio at the expected one (see repeat_similarity).
REPEAT_RATE = 2000  # Hz; low enough for a pure-Python correlation, enough to tell passages apart
REPEAT_SEARCH_SECONDS = 0.04  # the engine's offsets are quantised to its frame hop
REPEAT_MIN_CORRELATION = 0.5  # different music correlates near 0 at waveform level

# Our own sentences for the speech negatives (spoken by espeak-ng, several voices).
SPEECH = [
    ("en-us", [], "The weather station on the hill reported light rain in the morning and a dry, "
              "windy afternoon. Farmers in the valley were told to expect frost before the end of the week."),
    ("en-gb-x-rp", [], "Please remember that the library closes early on Fridays. Books that are returned "
                   "late will be charged a small fee, and the reading room is reserved for quiet study."),
    ("de", [], "Der Zug nach Hamburg hat heute ungefähr zwanzig Minuten Verspätung. Wir bitten alle "
           "Reisenden um Geduld und danken für ihr Verständnis während der Bauarbeiten."),
    ("en-gb-scotland+f3", ["-s", "150", "-p", "60"], "Counting from one to ten: one, two, three, four, five, "
                          "six, seven, eight, nine, ten. That is the end of the counting exercise for today."),
]

# Our own sentences for the talking over positives ("speech" condition), spoken one after another
# in turn by these voices into one long file that queries take slices of; none is one of the
# speech negatives above, so that condition and negatives stay independent.
TALK = [
    ("en-us", [], "Look, this is the one I told you about. I think it was playing in the film last year."),
    ("en-gb-x-rp+f2", [], "Could you hold my bag for a moment? I want to see what the little screen says."),
    ("fr", [], "On attend encore un peu, et puis on va chercher un café au rez-de-chaussée."),
    ("en-us+m3", ["-s", "190"], "No, the exhibition on the second floor closes at five, we still have time."),
    ("es", [], "Escucha, creo que esta canción la ponían siempre en la radio del coche de mi padre."),
    ("en-gb-scotland+f4", ["-p", "70"], "Is it finished already? Press the button again, it only listens for a bit."),
    ("de+m2", [], "Das klingt wie die Musik aus dem Spiel, das wir früher zusammen gespielt haben."),
    ("en-us+f3", ["-s", "140"], "Well, I still prefer the slower version, but this one has a better ending."),
]
TALK_GAP_SECONDS = 0.4  # between one speaker and the next


# ----------------------------------------------------------------------------------------------
# small helpers


def log(msg: str) -> None:
    # Progress goes to stderr so that stdout carries only the Markdown report.
    print(f"[accuracy] {msg}", file=sys.stderr, flush=True)


def stable_int(key: str) -> int:
    """A deterministic pseudo-random integer (Python's hash() is salted per process)."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:12], 16)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def sha256_decoded(path: Path) -> str:
    """SHA-256 of the decoded samples, so the same audio in two differently tagged or encoded
    files is recognised as a duplicate."""
    p = subprocess.Popen(["sox", "-V1", str(path), "-t", "raw", "-"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    h = hashlib.sha256()
    for chunk in iter(lambda: p.stdout.read(1 << 20), b""):
        h.update(chunk)
    err = p.stderr.read().decode(errors="replace")
    if p.wait() != 0:
        raise RuntimeError(f"sox could not decode {path}: {err}")
    return h.hexdigest()


def sox(*args: str) -> None:
    # -V1: errors only (sox warns e.g. about trim lengths after `speed`, which is expected);
    # -D: no dither, -R: fixed random seed, so every output is bit-identical across runs.
    cmd = ["sox", "-V1", "-D", "-R", *args]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"sox failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr}")


def soxi_seconds(path: Path) -> float:
    r = subprocess.run(["soxi", "-D", str(path)], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"soxi -D failed on {path}: {r.stderr}")
    return float(r.stdout.strip())


def sox_stats(path: Path) -> dict:
    """RMS and peak level (dBFS) of a mono file, via `sox FILE -n stats`."""
    r = subprocess.run(["sox", "-V1", str(path), "-n", "stats"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"sox stats failed on {path}: {r.stderr}")
    out = {}
    for line in r.stderr.splitlines():
        for key, name in (("RMS lev dB", "rms_db"), ("Pk lev dB", "peak_db")):
            if line.startswith(key):
                value = line[len(key):].split()[0]
                out[name] = float("-inf") if value in ("-inf", "-Inf") else float(value)
    if "rms_db" not in out or "peak_db" not in out:
        raise RuntimeError(f"could not parse sox stats for {path}:\n{r.stderr}")
    return out


def wav_frames(path: Path) -> int:
    with wave.open(str(path), "rb") as w:
        return w.getnframes()


def atomic_output(final: Path) -> Path:
    """A temp path next to `final`; rename it into place once complete, so an interrupted run
    never leaves a truncated file that a later run would take for a cached one."""
    final.parent.mkdir(parents=True, exist_ok=True)
    return final.with_name(f".tmp-{os.getpid()}-{threading.get_ident()}-{final.name}")


def run_parallel(fn, items, jobs: int, what: str) -> list:
    """Run fn over items in `jobs` threads, results in the order of `items`. The work happens in
    subprocesses (sox), so threads are enough to keep the cores busy."""
    done = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(fn, item) for item in items]
        for fut in concurrent.futures.as_completed(futures):
            fut.result()  # re-raises the first failure
            done += 1
            if done % 50 == 0 or done == len(items):
                log(f"{what}: {done}/{len(items)}")
        return [f.result() for f in futures]


def spread(items: list, k: int) -> list:
    """k items spread evenly over the list (all of them when k >= len)."""
    n = len(items)
    if k >= n:
        return list(items)
    return [items[int((i + 0.5) * n / k)] for i in range(k)]


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


# ----------------------------------------------------------------------------------------------
# source tracks: discovery, duplicates, the per-package selection


def source_files(src: Source, work: Path) -> list[tuple[str, Path]]:
    """(name relative to the source, path) of every Ogg file of a source, sorted."""
    loc = Path(src.location)
    if loc.suffix in (".pk3", ".zip"):
        # A .pk3 is a zip. Its Ogg members are copied once into the work dir (never the repo).
        if not loc.is_file():
            raise SystemExit(f"missing {loc}: install {src.package} (run.sh does this)")
        dest = work / "sources" / src.prefix
        out = []
        with zipfile.ZipFile(loc) as z:
            for info in sorted(z.infolist(), key=lambda i: i.filename):
                if info.is_dir() or not info.filename.lower().endswith(".ogg"):
                    continue
                if src.only and not re.search(src.only, info.filename):
                    continue
                target = dest / Path(info.filename).name
                if not (target.exists() and target.stat().st_size == info.file_size):
                    tmp = atomic_output(target)
                    with z.open(info) as fin, open(tmp, "wb") as fout:
                        shutil.copyfileobj(fin, fout)
                    tmp.rename(target)
                out.append((target.stem, target))
        return out
    if not loc.is_dir():
        raise SystemExit(f"missing {loc}: install {src.package} (run.sh does this)")
    files = [(p.relative_to(loc).with_suffix("").as_posix(), p) for p in sorted(loc.rglob("*.ogg"))]
    return [(rel, p) for rel, p in files if not src.only or re.search(src.only, rel + ".ogg")]


def read_tags(path: Path) -> dict:
    # Some files' tags are Latin-1, not the UTF-8 Vorbis comments must be (warmux's "Apnée").
    r = subprocess.run(["soxi", "-a", str(path)], capture_output=True, text=True, errors="replace")
    tags: dict[str, list[str]] = {}
    for line in r.stdout.splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            tags.setdefault(k.strip().upper(), []).append(v.strip())
    return tags


def discover(work: Path, jobs: int) -> tuple[list[dict], list[tuple[str, str]]]:
    """Every source track of at least MIN_TRACK_SECONDS, without duplicates, sorted by id; plus
    (set, note) on what was dropped. Durations come first (`soxi -D`); only the long-enough tracks
    are hashed. Both are cached in WORK/source-index.json by path, size and modification time.
    All packages are always scanned, so the selection never depends on --set."""
    entries = []
    for src in SOURCES:
        for rel, path in source_files(src, work):
            track_id = f"{src.prefix}-{slug(rel)}"[:64].rstrip("-")  # as bench/scale names them
            assert re.fullmatch(r"[a-z0-9][a-z0-9-]{2,63}", track_id), track_id
            entries.append({"id": track_id, "src": str(path), "package": src.package, "set": src.set,
                            "license": LICENSE_BY_ID.get(track_id, src.license), "defaultCreator": src.creator})
    ids = [e["id"] for e in entries]
    assert len(ids) == len(set(ids)), "two source files map to the same track id"

    index_path = work / "source-index.json"
    index = json.loads(index_path.read_text()) if index_path.exists() else {}

    def cached(e: dict) -> dict:
        st = os.stat(e["src"])
        key = f"{st.st_size}:{st.st_mtime_ns}"
        rec = index.get(e["src"])
        if rec is None or rec.get("stat") != key:
            rec = index[e["src"]] = {"stat": key}
        return rec

    recs = {e["id"]: cached(e) for e in entries}
    todo = [e for e in entries if "seconds" not in recs[e["id"]]]
    for e, seconds in zip(todo, run_parallel(lambda e: soxi_seconds(Path(e["src"])), todo, jobs, "durations")):
        recs[e["id"]]["seconds"] = seconds
    long_enough = [e for e in entries if recs[e["id"]]["seconds"] >= MIN_TRACK_SECONDS]
    todo = [e for e in long_enough if "audioSha" not in recs[e["id"]]]
    hashes = run_parallel(lambda e: (sha256_file(Path(e["src"])), sha256_decoded(Path(e["src"]))), todo, jobs,
                          "source hashes")
    for e, (file_sha, audio_sha) in zip(todo, hashes):
        recs[e["id"]].update(fileSha=file_sha, audioSha=audio_sha)
    tmp = atomic_output(index_path)
    tmp.write_text(json.dumps(index, indent=1, sort_keys=True) + "\n")
    tmp.rename(index_path)

    notes = []
    seen: dict[str, str] = {}
    near = {dropped: kept for kept, dropped in NEAR_DUPLICATES}
    tracks = []
    for e in sorted(long_enough, key=lambda e: e["id"]):
        rec = recs[e["id"]]
        twin = seen.get(rec["fileSha"]) or seen.get(rec["audioSha"])
        if twin is not None:
            what = "file" if seen.get(rec["fileSha"]) else "decoded audio"
            notes.append((e["set"], f"`{e['id']}` skipped: the same {what} as `{twin}`"))
            continue
        seen[rec["fileSha"]] = seen[rec["audioSha"]] = e["id"]
        if e["id"] in near:
            notes.append((e["set"], f"`{e['id']}` skipped: nearly the same recording as `{near[e['id']]}` "
                                    "(NEAR_DUPLICATES)"))
            continue
        e["key"] = f"{e['id']}-{rec['audioSha'][:10]}"
        tracks.append(e)
    return tracks, notes


def describe(track: dict) -> None:
    """Title and creator from the Ogg tags (only needed for catalog tracks)."""
    tags = read_tags(Path(track["src"]))
    titles = [t for t in tags.get("TITLE", []) if t.strip()]  # some files carry an empty TITLE
    stem = Path(track["src"]).stem
    # Some files carry several TITLE tags (an album's worth); then the name is better.
    track["title"] = titles[0] if len(titles) == 1 else stem.replace("_", " ").replace("-", " ").title()
    creator = next((a for a in tags.get("ARTIST", []) if a.strip()), "")
    if not creator:
        creator = next((c for p, c in CREATOR_FALLBACK.items() if track["id"].startswith(p)), track["defaultCreator"])
    track["creator"] = creator


def select_tracks(tracks: list[dict], quick: bool) -> dict[str, dict]:
    """Per package, deterministically: its alt-version pairs (first member into the catalog,
    second an "alt-version" negative), then from the other tracks, sorted by id, up to
    CATALOG_PER_PACKAGE catalog tracks in all and up to HELD_PER_PACKAGE held-out "same-package"
    negatives, spread evenly over the list. Returns {set: {"catalog": [...], "negatives": [...]}}."""
    chosen = {s: {"catalog": [], "negatives": [], "packages": [], "warnings": []} for s in SETS}
    cat_max = QUICK_CATALOG_PER_PACKAGE if quick else CATALOG_PER_PACKAGE
    held_max = QUICK_HELD_PER_PACKAGE if quick else HELD_PER_PACKAGE
    for src in SOURCES:
        pool = [t for t in tracks if t["package"] == src.package]
        by_id = {t["id"]: t for t in pool}
        pairs = [(a, b) for a, b in ALT_VERSIONS if a in by_id and b in by_id]
        if quick:
            pairs = pairs[:1]
        paired = {x for pair in pairs for x in pair}
        rest = [t for t in pool if t["id"] not in paired]
        # Small packages keep about a third of their tracks out (lincity: 2 + 1, xmoto: 5 + 2).
        n_held = min(held_max, len(rest) // 3)
        n_cat = max(0, min(cat_max - len(pairs), len(rest) - n_held))
        picked = spread(rest, n_cat + n_held)
        held = spread(picked, n_held) if n_held else []
        held_ids = {t["id"] for t in held}
        regular = [t for t in picked if t["id"] not in held_ids]
        if src.extra_held and not quick:
            picked_ids = {t["id"] for t in picked}
            held += spread([t for t in rest if t["id"] not in picked_ids], src.extra_held)
        for a, b in pairs:
            by_id[a]["role"] = "catalog"
            by_id[b].update(role="alt-version", altOf=a)
        for t in regular:
            t["role"] = "catalog"
        for t in held:
            t["role"] = "same-package"
        out = chosen[src.set]
        out["packages"].append(src.package)
        out["catalog"] += sorted([by_id[a] for a, _ in pairs] + regular, key=lambda t: t["id"])
        out["negatives"] += sorted([by_id[b] for _, b in pairs] + held, key=lambda t: t["id"])
    return chosen


def add_sample_pieces(chosen: dict[str, dict], work: Path, quick: bool) -> list[str]:
    """The sample catalog's pieces (sorted by id, alternating tuning/blind) join the catalogs;
    their derivatives become hard negatives of the same set. Returns warnings for the report."""
    manifest = json.loads(SAMPLE_MANIFEST.read_text())
    refs = sorted(manifest["references"], key=lambda r: r["id"])
    pieces = []
    for i, ref in enumerate(refs):
        path = SAMPLE_MANIFEST.parent / ref["sourceFile"]
        pieces.append({"id": ref["id"], "src": str(path), "package": SAMPLE_PACKAGE, "set": SAMPLE_SETS[i % 2],
                       "license": ref["license"], "title": ref["title"], "creator": ref["creator"],
                       "role": "catalog", "key": f"{ref['id']}-{sha256_file(path)[:10]}"})
    if quick:  # one piece per set
        pieces = [next(p for p in pieces if p["set"] == s) for s in SAMPLE_SETS]
    for s in SAMPLE_SETS:
        chosen[s]["packages"].append(SAMPLE_PACKAGE)
    for p in pieces:
        chosen[p["set"]]["catalog"].append(p)

    derivatives, warnings = render_derivatives(work)
    if derivatives is None:
        return warnings
    by_piece = {p["id"]: p for p in pieces}
    all_ids = {r["id"] for r in refs}
    for path in derivatives:
        piece_id, _, part = path.stem.partition("--keep-")
        if piece_id not in all_ids or not part:
            warnings.append(f"`{path.name}` from render.sh --derivatives ignored: not <catalog-id>--keep-<part>.wav")
            continue
        piece = by_piece.get(piece_id)
        if piece is None:  # a piece left out of a quick run
            continue
        chosen[piece["set"]]["negatives"].append({
            "id": path.stem, "src": str(path), "package": SAMPLE_PACKAGE, "set": piece["set"],
            "role": "derivative", "derivativeOf": piece_id, "key": f"{path.stem}-{sha256_file(path)[:10]}"})
    for s in SAMPLE_SETS:
        if not any(t["role"] == "derivative" for t in chosen[s]["negatives"]):
            chosen[s]["warnings"].append("no derivative piece of this set's sample pieces was rendered")
    return warnings


def catalog_fingerprint() -> dict[str, tuple]:
    """Size and mtime of every file under catalog/, to notice a render writing into the repo."""
    root = REPO_ROOT / "catalog"
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(root.rglob("*")) if p.is_file()}


def render_derivatives(work: Path) -> tuple[list[Path] | None, list[str]]:
    """Runs `catalog/render.sh --derivatives OUTDIR` once per version of render.sh and compose.py
    (OUTDIR is in the work dir) and returns the WAVs it wrote, or None and a warning when that
    option does not exist (yet) or fails."""
    if "--derivatives" not in RENDER_SCRIPT.read_text():
        # Never call render.sh without that option: plain render.sh rewrites catalog/audio.
        return None, ["catalog/render.sh has no `--derivatives` option: the derivative hard negatives are "
                      "MISSING from this run"]
    key = hashlib.sha256(RENDER_SCRIPT.read_bytes() + COMPOSE_SCRIPT.read_bytes()).hexdigest()[:12]
    out = work / f"derivatives-{key}"
    warnings = []
    if not (out / ".complete").exists():
        tmp = work / f".tmp-derivatives-{key}-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        log(f"rendering derivative pieces: {RENDER_SCRIPT} --derivatives {tmp}")
        before = catalog_fingerprint()
        t0 = time.perf_counter()
        r = subprocess.run(["bash", str(RENDER_SCRIPT), "--derivatives", str(tmp)], capture_output=True, text=True)
        if catalog_fingerprint() != before:
            warnings.append("files under catalog/ changed while `render.sh --derivatives` ran (it should write only "
                            "OUTDIR; or someone re-rendered the catalog meanwhile)")
        if r.returncode != 0:
            shutil.rmtree(tmp, ignore_errors=True)
            tail = (r.stderr.strip().splitlines() or ["(no output)"])[-1]
            return None, warnings + [f"`catalog/render.sh --derivatives` failed ({r.returncode}: {tail}): the derivative "
                                     "hard negatives are MISSING from this run"]
        log(f"derivative pieces rendered in {time.perf_counter() - t0:.0f} s")
        (tmp / ".complete").write_text("")
        shutil.rmtree(out, ignore_errors=True)
        tmp.rename(out)
    files = sorted(out.rglob("*--keep-*.wav"))
    if not files:
        return None, warnings + ["`catalog/render.sh --derivatives` wrote no <id>--keep-<part>.wav: the derivative "
                                 "hard negatives are MISSING from this run"]
    return files, warnings


def convert_track(work: Path, track: dict) -> None:
    """Decode to a 44.1 kHz stereo 16-bit WAV (the catalog's input format; negatives use the same
    format so that every excerpt is cut the same way)."""
    out = work / "tracks" / f"{track['key']}.wav"
    if not out.exists():
        tmp = atomic_output(out)
        sox(track["src"], "-r", str(CATALOG_RATE), "-c", "2", "-b", "16", str(tmp))
        tmp.rename(out)
    track["wav"] = str(out)
    track["frames"] = wav_frames(out)
    track["seconds"] = track["frames"] / CATALOG_RATE


def snapshot_binary(binary: Path, work: Path) -> Path:
    """A copy of the binary under test in the work dir, used for the whole run, so that a rebuild
    meanwhile cannot mix two engines in one report (a catalog built by one, matched by another).
    SwiftPM resource bundles next to the executable are linked along."""
    folder = work / "bin" / sha256_file(binary)[:16]
    copy = folder / binary.name
    if not copy.exists():
        tmp = atomic_output(copy)
        shutil.copy2(binary, tmp)
        tmp.rename(copy)
    for res in binary.parent.glob("*.resources"):
        link = folder / res.name
        # A link left dangling (its bundle moved, or a shell glob that matched nothing) is replaced.
        if link.is_symlink() and not link.exists():
            link.unlink()
        if not link.exists():
            link.symlink_to(res)
    return copy


def write_if_changed(path: Path, text: str) -> None:
    # Keeps the mtime (and so the catalog cache) stable when nothing changed.
    if path.exists() and path.read_text() == text:
        return
    path.write_text(text)


def build_catalog(work: Path, binary: Path, catalog_tracks: list[dict], name: str) -> dict:
    """Write the manifest and build the catalog, unless one built by this very binary from this
    very manifest is already there."""
    manifest = {
        "version": 1,
        "references": [
            {
                "id": t["id"], "title": t["title"], "creator": t["creator"], "license": t["license"],
                "sourceFile": f"tracks/{t['key']}.wav",
                "metadata": {"package": t["package"], "sourceName": Path(t["src"]).name, "benchSet": t["set"]},
            }
            for t in catalog_tracks
        ],
    }
    manifest_path = work / f"manifest-{name}.json"
    write_if_changed(manifest_path, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    catalog_path = work / f"catalog-{name}.catalog"
    stamp_path = work / f"catalog-{name}.stamp.json"
    stamp = {"binary": sha256_file(binary), "manifest": sha256_file(manifest_path)}
    info = {"path": catalog_path, "manifest": manifest_path, "build_seconds": None}
    if catalog_path.exists() and stamp_path.exists() and json.loads(stamp_path.read_text()) == stamp:
        log(f"catalog up to date: {catalog_path}")
        return info
    log(f"building catalog of {len(catalog_tracks)} tracks with {binary}")
    stamp_path.unlink(missing_ok=True)
    catalog_path.unlink(missing_ok=True)
    t0 = time.perf_counter()
    r = subprocess.run([str(binary), "catalog", "build", "--manifest", str(manifest_path), "--out", str(catalog_path)],
                       capture_output=True, text=True)
    info["build_seconds"] = time.perf_counter() - t0
    if r.returncode != 0 or not catalog_path.exists():
        raise SystemExit(f"catalog build failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    stamp_path.write_text(json.dumps(stamp) + "\n")
    return info


# ----------------------------------------------------------------------------------------------
# queries


def offsets_for(track: dict, count: int) -> list[int]:
    """`count` start positions (in catalog samples) spread evenly over the usable part of the
    track: clear of the edges, with room for the longest query at the slowest speed. The same
    positions serve every query length, so lengths are compared on the same music."""
    longest = max(LENGTHS) * SPEED_MAX
    lo = EDGE_SECONDS
    hi = track["seconds"] - EDGE_SECONDS - longest
    assert hi > lo, f"{track['id']} too short"
    return [round((lo + (k + 0.5) / count * (hi - lo)) * CATALOG_RATE) for k in range(count)]


# A positive excerpt whose source is digital silence throughout (peak below about -60 dBFS) cannot
# be recognised: the right answer there is "silence", not the recording. Such offsets are left out.
SILENT_PEAK = 33


def silent_in_source(wav: str, start: int, frames: int) -> bool:
    """Whether the catalog WAV (16-bit) stays below SILENT_PEAK from `start` for `frames` frames."""
    with wave.open(wav, "rb") as w:
        assert w.getsampwidth() == 2, wav
        w.setpos(start)
        samples = array.array("h")
        samples.frombytes(w.readframes(frames))
    if sys.byteorder != "little":
        samples.byteswap()
    return max(samples, default=0) < SILENT_PEAK and -min(samples, default=0) < SILENT_PEAK


def noise_bank(work: Path) -> dict:
    """Long pink and white noise files at the query format; queries take deterministic slices,
    so each excerpt gets its own noise while a rerun gets exactly the same noise."""
    bank = {}
    for kind in ("pinknoise", "whitenoise"):
        out = work / f"queries-{RECIPE}" / "noise" / f"{kind}-300s.wav"
        if not out.exists():
            tmp = atomic_output(out)
            sox("-n", "-r", str(QUERY_RATE), "-c", "1", "-b", "16", str(tmp), "synth", "300", kind)
            tmp.rename(out)
        bank[kind] = out
    return bank


def talk_bank(work: Path) -> Path:
    """The TALK sentences in turn, at the query format, as one file: each speech query takes its
    own deterministic slice, as with the noise bank."""
    out = work / f"queries-{RECIPE}" / "noise" / "talk.wav"
    if out.exists():
        return out
    with tempfile.TemporaryDirectory(dir=work) as tmpd:
        tmp = Path(tmpd)
        parts = []
        for i, (voice, extra, text) in enumerate(TALK):
            raw, part = tmp / f"raw{i}.wav", tmp / f"talk{i}.wav"
            subprocess.run(["espeak-ng", "-v", voice, *extra, "-w", str(raw), text], check=True, capture_output=True)
            sox(str(raw), "-b", "16", str(part), "channels", "1", "rate", str(QUERY_RATE), "pad", "0",
                str(TALK_GAP_SECONDS))
            parts.append(str(part))
        tmp_out = atomic_output(out)
        sox(*parts, str(tmp_out))
        tmp_out.rename(out)
    return out


def noise_slice(bank_file: Path, key: str, seconds: float, out: Path) -> None:
    total = wav_frames(bank_file)
    n = int(round(seconds * QUERY_RATE))
    start = stable_int(key) % (total - n)
    sox(str(bank_file), str(out), "trim", f"{start}s", f"{n}s")


def talk_over(work: Path, clean: Path, key: str, seconds: float, out: Path, scratch: Path) -> None:
    """`clean` with people talking over it: the talk bank's slice for `key`, SPEECH_UNDER_MUSIC_DB
    under it (the positives' "speech" condition and the talked-over hard negatives alike)."""
    talk = scratch / "talk.wav"
    noise_slice(talk_bank(work), key, seconds, talk)
    mix_at_snr(clean, talk, SPEECH_UNDER_MUSIC_DB, out)


def mix_at_snr(signal: Path, noise: Path, snr_db: float, out: Path) -> None:
    """signal + noise with the noise RMS set `snr_db` below the signal RMS (both measured with
    sox stats). Both inputs are scaled down together only when the sum could clip, so the
    music level stays as it was whenever possible. A digitally silent excerpt is treated as
    SILENT_DB, so the noise stays inaudible as it would for a microphone in a quiet room."""
    s, n = sox_stats(signal), sox_stats(noise)
    s_rms = max(s["rms_db"], SILENT_DB)
    s_peak = max(s["peak_db"], SILENT_DB)
    gain = 10 ** ((s_rms - n["rms_db"] - snr_db) / 20)
    worst_peak = 10 ** (s_peak / 20) + gain * 10 ** (n["peak_db"] / 20)
    scale = min(1.0, 0.98 / worst_peak)
    # With explicit -v on the inputs, `sox -m` does not rebalance them.
    sox("-m", "-v", f"{scale:.6f}", str(signal), "-v", f"{scale * gain:.6f}", str(noise), "-b", "16", str(out))


def excerpt(track_wav: str, start: int, seconds: float, out: Path, pre: list[str] = (), post: list[str] = ()) -> None:
    """Cut `seconds` of catalog-format audio from `start` (catalog samples), apply `pre` effects
    at the catalog rate, convert to 16 kHz mono, apply `post` effects."""
    n = int(round(seconds * CATALOG_RATE))
    sox(track_wav, "-b", "16", str(out), "trim", f"{start}s", f"{n}s", *pre,
        "channels", "1", "rate", str(QUERY_RATE), *post)


def mic_capture(track_wav: str, start: int, length: int, noise: Path, out: Path, tmp: Path) -> None:
    """The speaker→room→mic chain. It starts 1 s early so the filter and the reverb tail are
    settled at the query's first sample, as in a room where the music was already playing."""
    room = tmp / "room.wav"
    pre = MIC_PREROLL_SECONDS * CATALOG_RATE
    excerpt(track_wav, start - pre, length + MIC_PREROLL_SECONDS, room,
            post=[*MIC_EFFECTS, "trim", f"{MIC_PREROLL_SECONDS * QUERY_RATE}s", f"{length * QUERY_RATE}s"])
    mix_at_snr(room, noise, MIC_SNR_DB, out)


def positive_path(work: Path, track: dict, start: int, length: int, cond: str) -> Path:
    ms = round(start * 1000 / CATALOG_RATE)
    return work / f"queries-{RECIPE}" / "pos" / track["key"] / f"{track['id']}__at{ms}ms__{length}s__{cond}.wav"


def make_positive_set(job: tuple) -> None:
    """All conditions for one (track, offset, length): the clean excerpt is made once and the
    noisy variants derive from it; the noise slice is shared so SNR levels are comparable."""
    work, track, start, length = job
    outs = {c: positive_path(work, track, start, length, c) for c, _, _ in CONDITIONS}
    if all(p.exists() for p in outs.values()):
        return
    n_out = length * QUERY_RATE
    bank = noise_bank(work)
    with tempfile.TemporaryDirectory(dir=work) as tmpd:
        tmp = Path(tmpd)
        clean = tmp / "clean.wav"
        excerpt(track["wav"], start, length, clean)
        noise = tmp / "noise.wav"
        noise_slice(bank["pinknoise"], f"{track['id']}/{start}/{length}", length, noise)
        for cond, path in outs.items():
            if path.exists():
                continue
            part = atomic_output(path)
            if cond == "clean":
                shutil.copyfile(clean, part)
            elif cond in SNR_OF:
                mix_at_snr(clean, noise, SNR_OF[cond], part)
            elif cond == "mic":
                mic_capture(track["wav"], start, length, noise, part, tmp)
            elif cond == "speech":
                talk_over(work, clean, f"talk/{track['id']}/{start}/{length}", length, part, tmp)
            elif cond in SPEED_OF:
                # `speed` resamples like a turntable running fast/slow: to get `length` seconds
                # out we read length*factor seconds, starting where the query is expected.
                factor = SPEED_OF[cond]
                excerpt(track["wav"], start, length * factor + 0.05, part,
                        pre=["speed", f"{factor}"], post=["trim", "0s", f"{n_out}s"])
            else:
                raise AssertionError(cond)
            if wav_frames(part) != n_out:
                raise RuntimeError(f"{path.name}: {wav_frames(part)} frames, expected {n_out}")
            part.rename(path)


def make_negative(job: tuple) -> None:
    """One negative query file; the recipe is carried in the job."""
    work, spec = job
    path = Path(spec["file"])
    if path.exists():
        return
    part = atomic_output(path)
    n_out = spec["length"] * QUERY_RATE
    kind = spec["negKind"]
    with tempfile.TemporaryDirectory(dir=work) as tmpd:
        tmp = Path(tmpd)
        if kind in HARD_KINDS:
            if spec["condition"] == "clean":
                excerpt(spec["wav"], spec["start"], spec["length"], part)
            elif spec["condition"] == "speech":
                clean = tmp / "clean.wav"
                excerpt(spec["wav"], spec["start"], spec["length"], clean)
                talk_over(work, clean, f"talk/{spec['name']}", spec["length"], part, tmp)
            elif spec["condition"] in SNR_OF:
                clean = tmp / "clean.wav"
                excerpt(spec["wav"], spec["start"], spec["length"], clean)
                noise = tmp / "noise.wav"
                noise_slice(noise_bank(work)["pinknoise"], spec["name"], spec["length"], noise)
                mix_at_snr(clean, noise, SNR_OF[spec["condition"]], part)
            else:
                noise = tmp / "noise.wav"
                noise_slice(noise_bank(work)["pinknoise"], spec["name"], spec["length"], noise)
                mic_capture(spec["wav"], spec["start"], spec["length"], noise, part, tmp)
        elif kind == "silence":
            # In seconds: `-n` runs at its own default rate (48 kHz), so a count of samples would
            # be counted at that rate, before the conversion to QUERY_RATE.
            sox("-n", "-r", str(QUERY_RATE), "-c", "1", "-b", "16", str(part), "trim", "0", str(spec["length"]))
        elif kind in ("pink-noise", "white-noise"):
            bank = noise_bank(work)["pinknoise" if kind == "pink-noise" else "whitenoise"]
            raw = tmp / "raw.wav"
            noise_slice(bank, spec["name"], spec["length"], raw)
            sox(str(raw), str(part), "gain", f"{spec['gainDb']}")
        elif kind == "speech":
            voice, extra, text = SPEECH[spec["speechIndex"]]
            raw = tmp / "speech.wav"
            subprocess.run(["espeak-ng", "-v", voice, *extra, "-w", str(raw), text], check=True,
                           capture_output=True)
            # Pad in case the sentence is shorter than the query, then cut to length.
            sox(str(raw), "-b", "16", str(part), "channels", "1", "rate", str(QUERY_RATE),
                "pad", "0", str(spec["length"]), "trim", "0s", f"{n_out}s")
        else:
            raise AssertionError(kind)
    if wav_frames(part) != n_out:
        raise RuntimeError(f"{path.name}: {wav_frames(part)} frames, expected {n_out}")
    part.rename(path)


def plan_queries(work: Path, set_name: str, catalog_tracks: list[dict], neg_sources: list[dict],
                 quick: bool) -> tuple[list, list, list]:
    """Returns (query records, positive generation jobs, negative generation jobs, positive offsets
    left out because the source is silent there) of one set."""
    queries, pos_jobs, neg_jobs, silent = [], [], [], []
    longest = round(max(LENGTHS) * SPEED_MAX * CATALOG_RATE)
    for t in catalog_tracks:
        for k, start in enumerate(offsets_for(t, QUICK_POS_OFFSETS if quick else POS_OFFSETS)):
            if silent_in_source(t["wav"], start, longest):
                silent.append(f"`{t['id']}` at {start / CATALOG_RATE:.1f} s")
                continue
            for length in LENGTHS:
                pos_jobs.append((work, t, start, length))
                for cond, _, _ in CONDITIONS:
                    queries.append({
                        "file": str(positive_path(work, t, start, length, cond)),
                        "kind": "positive", "set": set_name, "package": t["package"], "length": length,
                        "condition": cond, "expectedId": t["id"], "expectedOffset": start / CATALOG_RATE,
                        "offsetIndex": k,
                    })
    neg_dir = work / f"queries-{RECIPE}" / "neg"

    def negative(spec: dict) -> None:
        spec.update({"kind": "negative", "set": set_name, "expectedId": None, "expectedOffset": None})
        queries.append(spec)
        neg_jobs.append((work, spec))

    # Hard negatives: excerpts of music close to the catalog, clean and through the mic chain.
    for t in neg_sources:
        for start in offsets_for(t, QUICK_HARD_NEG_OFFSETS if quick else HARD_NEG_OFFSETS):
            for length in LENGTHS:
                for chain in HARD_NEG_CHAINS:
                    name = f"{t['id']}__at{round(start * 1000 / CATALOG_RATE)}ms__{length}s__{chain}"
                    spec = {"file": str(neg_dir / t["role"] / t["key"] / f"{name}.wav"), "negKind": t["role"],
                            "package": t["package"], "condition": chain, "length": length, "wav": t["wav"],
                            "start": start, "sourceId": t["id"], "name": name}
                    for field in ("altOf", "derivativeOf"):
                        if field in t:
                            spec[field] = t[field]
                    negative(spec)
    # Everyday sounds, the same files for both sets.
    shared = neg_dir / "shared"
    for length in LENGTHS:
        name = f"silence__{length}s"
        negative({"file": str(shared / f"{name}.wav"), "negKind": "silence", "condition": "clean",
                  "length": length, "name": name})
        for kind in ("pink-noise", "white-noise"):
            # A loud and a quiet take of each, since an engine may gate on level.
            for gain_db in (0, -30):
                name = f"{kind}__{length}s__gain{gain_db}"
                negative({"file": str(shared / f"{name}.wav"), "negKind": kind, "condition": "clean",
                          "length": length, "gainDb": gain_db, "name": name})
        for i in range(len(SPEECH)):
            name = f"speech{i}__{length}s"
            negative({"file": str(shared / f"{name}.wav"), "negKind": "speech", "condition": "clean",
                      "length": length, "speechIndex": i, "name": name})
    return queries, pos_jobs, neg_jobs, silent


# ----------------------------------------------------------------------------------------------
# matching


def run_match(binary: Path, catalog: Path, queries: list[dict], batch_size: int, jobs: int) -> dict:
    """Runs `soundtrace match --json` over all queries in batches (one process per batch) and
    returns {query file: parsed result or None} plus the timing."""
    files = [q["file"] for q in queries]
    batches = [files[i:i + batch_size] for i in range(0, len(files), batch_size)]
    results: dict[str, dict] = {}
    problems: list[str] = []

    def one(batch: list[str]) -> tuple[float, list[str]]:
        t0 = time.perf_counter()
        r = subprocess.run([str(binary), "match", "--catalog", str(catalog), "--json", "--explain", *batch],
                           capture_output=True, text=True)
        wall = time.perf_counter() - t0
        notes = []
        if r.returncode != 0:
            notes.append(f"match exited {r.returncode} on a batch of {len(batch)}: {r.stderr.strip()[-500:]}")
        wanted = set(batch)
        by_base = {os.path.basename(f): f for f in batch}
        for line in r.stdout.splitlines():
            line = line.strip()
            if not line:
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                notes.append(f"unparsable output line: {line[:200]}")
                continue
            reported = str(obj.get("file", ""))
            # Accept the path as given, resolved, or (names are unique) just its base name.
            key = reported if reported in wanted else None
            if key is None and os.path.realpath(reported) in wanted:
                key = os.path.realpath(reported)
            if key is None:
                key = by_base.get(os.path.basename(reported))
            if key is None:
                notes.append(f"result for an unknown file: {reported}")
                continue
            results[key] = obj
        return wall, notes

    walls = []
    done = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for wall, notes in pool.map(one, batches):
            walls.append(wall)
            problems.extend(notes)
            done += 1
            log(f"match batches: {done}/{len(batches)}")
    return {"results": results, "walls": walls, "problems": problems, "batches": len(batches)}


def judge(q: dict, r: dict | None) -> dict:
    """Adds the verdict fields to a query record."""
    out = dict(q)
    out["raw"] = r
    if r is None:
        out["verdict"] = "missing"
        return out
    matched = r.get("outcome") == "match"
    ref = r.get("referenceId")
    score = r.get("score")
    out["score"] = score if isinstance(score, (int, float)) else None
    if r.get("outcome") not in ("match", "noMatch"):
        # e.g. "failed" (file unreadable): neither a recognition nor a rejection.
        out["verdict"] = "failed"
        return out
    if q["kind"] == "negative":
        out["verdict"] = "falsePositive" if matched else "rejected"
        return out
    if not matched:
        out["verdict"] = "noMatch"
    elif ref != q["expectedId"]:
        out["verdict"] = "wrongReference"
    else:
        out["verdict"] = "correct"
        off = r.get("offsetSeconds")
        out["offsetError"] = (off - q["expectedOffset"]) if isinstance(off, (int, float)) else None
    return out


class RepeatChecker:
    """Tells whether a far-off offset lands on a repeat of the expected passage: the best
    normalised waveform correlation (within ±REPEAT_SEARCH_SECONDS) between the catalog track at
    the expected and at the reported offset, both at REPEAT_RATE mono. Cached per track and case."""

    def __init__(self, work: Path, wav_of: dict[str, str]):
        self.work, self.wav_of = work, wav_of
        self.pcm: dict[str, array.array] = {}
        self.memo: dict[tuple, float | None] = {}

    def _track(self, track_id: str) -> array.array:
        if track_id not in self.pcm:
            raw = self.work / f"tracks-{REPEAT_RATE}hz" / f"{track_id}.s16"
            if not raw.exists():
                tmp = atomic_output(raw)
                sox(self.wav_of[track_id], "-t", "raw", "-e", "signed", "-b", "16", "-c", "1",
                    "-r", str(REPEAT_RATE), str(tmp))
                tmp.rename(raw)
            a = array.array("h")
            a.frombytes(raw.read_bytes())
            if sys.byteorder != "little":
                a.byteswap()
            self.pcm[track_id] = a
        return self.pcm[track_id]

    def similarity(self, track_id: str, expected: float, reported: float, length: float) -> float | None:
        key = (track_id, round(expected * REPEAT_RATE), round(reported * 100), length)
        if key in self.memo:
            return self.memo[key]
        x = self._track(track_id)
        n = int(length * REPEAT_RATE)
        e, r, k = round(expected * REPEAT_RATE), round(reported * REPEAT_RATE), round(REPEAT_SEARCH_SECONDS * REPEAT_RATE)
        best = None
        a = x[e:e + n]
        aa = sum(map(operator.mul, a, a))
        if len(a) == n and aa > 0:
            for lag in range(-k, k + 1):
                s = r + lag
                if s < 0 or s + n > len(x):
                    continue
                b = x[s:s + n]
                bb = sum(map(operator.mul, b, b))
                if bb > 0:
                    c = sum(map(operator.mul, a, b)) / (aa * bb) ** 0.5
                    best = c if best is None else max(best, c)
        self.memo[key] = best
        return best


def mark_repeats(judged: list[dict], checker: RepeatChecker) -> None:
    """Annotates correct-reference results whose offset is off by more than the tolerance."""
    for j in judged:
        err = j.get("offsetError")
        if j.get("verdict") == "correct" and err is not None and abs(err) > OFFSET_TOLERANCE:
            sim = checker.similarity(j["expectedId"], j["expectedOffset"], j["raw"]["offsetSeconds"], j["length"])
            j["repeatCorrelation"] = sim
            j["offsetAtRepeat"] = sim is not None and sim >= REPEAT_MIN_CORRELATION


# ----------------------------------------------------------------------------------------------
# report


def pct(part: int, whole: int) -> str:
    return "–" if whole == 0 else f"{100.0 * part / whole:.1f} %"


def fmt_score(x) -> str:
    return "–" if x is None else f"{x:.4g}"


def quantile(values: list[float], q: float):
    if not values:
        return None
    v = sorted(values)
    return v[min(len(v) - 1, max(0, int(round(q * (len(v) - 1)))))]


def positives(judged: list[dict], **match) -> list[dict]:
    return [j for j in judged if j["kind"] == "positive" and all(j.get(k) == v for k, v in match.items())]


def positives_table(judged: list[dict], set_name: str) -> tuple[list[str], list[str]]:
    lines = [
        "| length | condition | N | top-1 correct | offset ≤ 1 s (of correct) | off > 1 s: at a repeat / other | wrong ref | no match | failed / missing | min score (correct) | target |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    misses = []
    for length in LENGTHS:
        for cond, label, _ in CONDITIONS:
            rows = positives(judged, length=length, condition=cond)
            if not rows:
                continue
            n = len(rows)
            correct = [j for j in rows if j["verdict"] == "correct"]
            on_time = [j for j in correct if j.get("offsetError") is not None and abs(j["offsetError"]) <= OFFSET_TOLERANCE]
            at_repeat = sum(bool(j.get("offsetAtRepeat")) for j in correct)
            off_other = len(correct) - len(on_time) - at_repeat
            wrong = sum(j["verdict"] == "wrongReference" for j in rows)
            nomatch = sum(j["verdict"] == "noMatch" for j in rows)
            missing = sum(j["verdict"] in ("missing", "failed") for j in rows)
            scores = [j["score"] for j in correct if j.get("score") is not None]
            top1 = 100.0 * len(correct) / n
            target = TARGETS.get((length, cond))
            top1_cell = pct(len(correct), n)
            target_cell = "" if target is None else f"≥ {target:g} %"
            if target is not None and top1 < target:
                top1_cell = f"**{top1_cell} BELOW TARGET**"
                target_cell = f"**≥ {target:g} % — MISSED**"
                misses.append(f"{set_name}: {length} s {label}: top-1 {top1:.1f} % < {target:g} %")
            wrong_cell = str(wrong)
            if wrong:
                wrong_cell = f"**{wrong} ✗ (target 0)**"
                misses.append(f"{set_name}: {length} s {label}: {wrong} wrong reference(s)")
            lines.append(f"| {length} s | {label} | {n} | {top1_cell} | {pct(len(on_time), len(correct))} | "
                         f"{at_repeat} / {off_other} | {wrong_cell} | {nomatch} | {missing} | {fmt_score(min(scores) if scores else None)} | {target_cell} |")
    return lines, misses


def package_table(judged: list[dict], packages: list[str]) -> list[str]:
    """Top-1 correct per package, length and condition (wrong references in parentheses)."""
    lines = ["| package | tracks | length | queries per cell | " + " | ".join(short for _, _, short in CONDITIONS) + " |",
             "|---|---:|---:|---:|" + "---:|" * len(CONDITIONS)]
    for package in packages:
        rows = positives(judged, package=package)
        if not rows:
            continue
        n_tracks = len({j["expectedId"] for j in rows})
        for length in LENGTHS:
            cells, n_cell = [], None
            for cond, _, _ in CONDITIONS:
                cell = positives(judged, package=package, length=length, condition=cond)
                n_cell = len(cell)
                correct = sum(j["verdict"] == "correct" for j in cell)
                wrong = sum(j["verdict"] == "wrongReference" for j in cell)
                text = pct(correct, len(cell))
                if wrong:
                    text += f" (**{wrong} wrong**)"
                cells.append(text)
            lines.append(f"| {package} | {n_tracks} | {length} s | {n_cell} | " + " | ".join(cells) + " |")
    return lines


def derivative_take(j: dict) -> int:
    """The take of a derivative negative: k of "<id>--keep-<part>--take<k>", 1 without the suffix."""
    source = str(j.get("sourceId"))
    _, marker, take = source.rpartition("--take")
    return int(take) if marker and take.isdigit() else 1


def negatives_table(judged: list[dict], set_name: str) -> tuple[list[str], list[str]]:
    lines = ["| kind | chain | sources | N | false positives | matched as | max score | max signature score: first round / wider net |",
             "|---|---|---:|---:|---:|---|---:|---:|"]
    misses = []
    negs = [j for j in judged if j["kind"] == "negative"]
    groups = []
    for kind in NEG_KINDS:
        if kind != "derivative":
            groups.append((kind, lambda j, kind=kind: j["negKind"] == kind))
            continue
        # Take 1 of each derivative was used in designing the decision rule; later takes were not.
        # Takes 3-6 came later than take 2 (catalog/compose.py, DERIVATIVE_TAKES), so each is shown apart.
        groups.append(("derivative take 1", lambda j: j["negKind"] == "derivative" and derivative_take(j) == 1))
        groups.append(("derivative take 2", lambda j: j["negKind"] == "derivative" and derivative_take(j) == 2))
        groups.append(("derivative takes 3+", lambda j: j["negKind"] == "derivative" and derivative_take(j) >= 3))
    for kind, member in groups:
        for chain in HARD_NEG_CHAINS:
            rows = [j for j in negs if member(j) and j["condition"] == chain]
            if not rows:
                continue
            fps = [j for j in rows if j["verdict"] == "falsePositive"]
            missing = sum(j["verdict"] in ("missing", "failed") for j in rows)
            scores = [j["score"] for j in rows if j.get("score") is not None]
            raws = [j["raw"] for j in rows if j.get("raw")]
            first = [r["signatureScore"] for r in raws if r.get("signatureScore") is not None]
            wide = [r["wideSignatureScore"] for r in raws if r.get("wideSignatureScore") is not None]
            fp_cell = str(len(fps))
            if fps:
                fp_cell = f"**{len(fps)} ✗ (target 0)**"
                misses.append(f"{set_name}: {kind} ({chain}): {len(fps)} false positive(s)")
            if missing:
                fp_cell += f" ({missing} failed / missing)"
            as_ = ", ".join(sorted({str(j["raw"].get("referenceId")) for j in fps})) or "–"
            sources = len({j.get("sourceId") for j in rows}) if kind in HARD_KINDS or kind.startswith("derivative") else "–"
            sig = f"{max(first):.2f}" if first else "–"
            sig += f" / {max(wide):.2f}" if wide else " / –"
            lines.append(f"| {kind} | {chain} | {sources} | {len(rows)} | {fp_cell} | {as_} | "
                         f"{fmt_score(max(scores) if scores else None)} | {sig} |")
    return lines, misses


def worst_negatives(judged: list[dict]) -> list[str]:
    """The highest-scoring negatives of each kind: the ones a threshold has to stay above."""
    lines = []
    negs = [j for j in judged if j["kind"] == "negative" and j.get("raw")]
    for kind in NEG_KINDS:
        rows = sorted((j for j in negs if j["negKind"] == kind),
                      key=lambda j: (-(j.get("score") or 0), -(j["raw"].get("wideSignatureScore") or 0), j["file"]))[:3]
        if not rows:
            continue
        items = []
        for j in rows:
            r = j["raw"]
            sig = "/".join("–" if r.get(k) is None else f"{r[k]:.2f}" for k in ("signatureScore", "wideSignatureScore"))
            items.append(f"`{Path(j['file']).stem}` → {r.get('outcome')}, score {fmt_score(j.get('score'))} "
                         f"(runner-up {r.get('runnerUpScore')}, candidate `{r.get('candidateId')}`, signature {sig})")
        lines.append(f"- **{kind}**: " + "; ".join(items))
    return lines


def score_section(judged: list[dict]) -> list[str]:
    neg = [j["score"] for j in judged if j["kind"] == "negative" and j.get("score") is not None]
    cor = [j["score"] for j in judged if j["kind"] == "positive" and j["verdict"] == "correct" and j.get("score") is not None]
    wrong = [j["score"] for j in judged if j["kind"] == "positive" and j["verdict"] == "wrongReference"
             and j.get("score") is not None]
    neg_max = max(neg) if neg else None
    overlap = "–" if neg_max is None or not cor else str(sum(s <= neg_max for s in cor))
    lines = [
        "Landmark scores (aligned hits) as printed by the engine, for noMatch outcomes too.",
        "",
        "| negatives: N | max | p99 | p95 | median | correct: N | min | p1 | p5 | median | correct ≤ max negative | wrong-ref max |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {len(neg)} | {fmt_score(neg_max)} | {fmt_score(quantile(neg, .99))} | {fmt_score(quantile(neg, .95))} | "
        f"{fmt_score(quantile(neg, .5))} | {len(cor)} | {fmt_score(min(cor) if cor else None)} | "
        f"{fmt_score(quantile(cor, .01))} | {fmt_score(quantile(cor, .05))} | {fmt_score(quantile(cor, .5))} | "
        f"{overlap} | {fmt_score(max(wrong) if wrong else None)} |",
        "",
        "Signature checks (run when the landmark hits alone do not decide): first the best alignments of the few "
        "recordings with the most hits, which need a score of 3.0 (the engine's default); when none passes, a wider "
        "net of up to 128 well-voted alignments at the recorded speed, which need 4.6.",
        "",
        "| negatives checked | highest negative score, first round | highest negative score, wider net "
        "| correct positives decided by a signature check | of them by the wider net |",
        "|---:|---:|---:|---:|---:|",
    ]
    negatives = [j["raw"] for j in judged if j["kind"] == "negative" and j.get("raw")]
    first = [v for v in (r.get("signatureScore") for r in negatives) if v is not None]
    wide = [v for v in (r.get("wideSignatureScore") for r in negatives) if v is not None]
    decided = [j["raw"] for j in judged if j["kind"] == "positive" and j["verdict"] == "correct"
               and j["raw"].get("signatureScore") is not None]
    by_wide = sum(1 for r in decided if r.get("wideSignatureScore") == r["signatureScore"])
    checked = sum(1 for r in negatives if r.get("signatureScore") is not None or r.get("wideSignatureScore") is not None)
    lines.append(f"| {checked} | {f'{max(first):.2f}' if first else '–'} | {f'{max(wide):.2f}' if wide else '–'} | "
                 f"{len(decided)} | {by_wide} |")
    return lines


def tracks_section(chosen: dict, notes: list[str]) -> list[str]:
    """Which track went where, and what was dropped from this set's packages."""
    lines = []
    for package in chosen["packages"]:
        cat = [t["id"] for t in chosen["catalog"] if t["package"] == package]
        held = [t["id"] for t in chosen["negatives"] if t["package"] == package and t["role"] == "same-package"]
        alt = [f"{t['id']} (of {t['altOf']})" for t in chosen["negatives"] if t["package"] == package and t["role"] == "alt-version"]
        der = [t["id"] for t in chosen["negatives"] if t["package"] == package and t["role"] == "derivative"]
        parts = [f"catalog ({len(cat)}): {', '.join(cat) or '–'}"]
        if held:
            parts.append(f"held out ({len(held)}): {', '.join(held)}")
        if alt:
            parts.append(f"alt-version negatives: {', '.join(alt)}")
        if der:
            parts.append(f"derivatives ({len(der)}): {', '.join(der)}")
        lines.append(f"- **{package}** — " + "; ".join(parts))
    if notes:
        lines += ["", "Left out (duplicates):", ""] + [f"- {n}" for n in notes]
    return lines


def report(ctx: dict, judged: list[dict], match: dict, chosen: dict) -> tuple[str, list[str]]:
    set_name = ctx["set"]
    misses: list[str] = []
    hard = [j for j in judged if j["kind"] == "negative" and j["negKind"] in HARD_KINDS]
    hard_by_kind = ", ".join(f"{k} {sum(j['negKind'] == k for j in hard)}" for k in HARD_KINDS)
    role = {"blind": "BLIND set: kept unseen while tuning; accuracy is claimed here",
            "dev": "DEV set: packages added to study failures; fresh on its first run, tuned on since",
            "dev2": "DEV2 set: five more packages, fresh on their first run (2026-12-04), tuned on since",
            "dev3": "DEV3 set: orchestral and mixed-style packages, fresh on their first run (2026-12-05), tuned on since",
            "dev4": "DEV4 set: two mixed-style packages, fresh on their first run (2026-12-05), tuned on since",
            "dev5": "DEV5 set: orchestral and electronic packages, fresh on their first run (2026-12-05), tuned on since"}.get(
        set_name, "TUNING set: tune on these numbers; they are not the claim")
    L = [
        f"# Soundtrace accuracy benchmark — {set_name} set",
        "",
        f"**{role}.**",
        "",
        f"- binary: `{ctx['binary']}` (sha256 {ctx['binary_sha'][:12]})",
        f"- mode: {'quick (smoke run: fewer tracks and offsets)' if ctx['quick'] else 'full'}; recipe {RECIPE}; work dir `{ctx['work']}`",
        f"- packages: {', '.join(p for p in chosen['packages'] if p != SAMPLE_PACKAGE)} (Ogg tracks ≥ {MIN_TRACK_SECONDS:g} s), "
        f"and the project's sample catalog pieces ({SAMPLE_PACKAGE})",
        f"- catalog: {len(chosen['catalog'])} tracks, {ctx['catalog_seconds']:.0f} s of audio",
        f"- queries: {ctx['n_pos']} positives ({ctx['pos_offsets']} offsets per track, lengths "
        f"{', '.join(f'{x} s' for x in LENGTHS)}, all conditions); {ctx['n_neg']} negatives, of them "
        f"**{len(hard)} hard** ({hard_by_kind}; {ctx['neg_offsets']} offsets × {len(LENGTHS)} lengths × "
        f"{', '.join(HARD_NEG_CHAINS)} per source); 16 kHz mono 16-bit",
        f"- raw per-query results (with the engine's JSON line): `{ctx['results_path']}`",
    ]
    if ctx.get("silent_offsets"):
        L.append(f"- positive offsets left out, the source being digital silence there (peak under {SILENT_PEAK} of "
                 f"32768, about −60 dBFS): {', '.join(ctx['silent_offsets'])}")
    warnings = ctx["warnings"] + chosen["warnings"]
    if len(hard) < HARD_NEG_MIN and not ctx["quick"]:
        warnings.append(f"only {len(hard)} hard negatives (at least {HARD_NEG_MIN} wanted)")
    if warnings:
        L += [""] + [f"- **WARNING**: {w}" for w in warnings]
    L += [
        "",
        "Top-1 correct = outcome `match` with the right reference. The offset column is the share of those whose "
        f"offset is within ±{OFFSET_TOLERANCE:g} s of where the excerpt starts in the original track "
        "(also for speed-changed queries); the rest are split into offsets that land on a repeat of the same "
        f"passage (the track's audio there correlates ≥ {REPEAT_MIN_CORRELATION:g} with the expected passage, "
        "as happens in looping game music) and other offset errors. Targets apply to 5 s queries and are claimed "
        "on the blind set; every wrong reference and false positive counts against the target of 0.",
        "",
        "## Positives",
        "",
    ]
    lines, m = positives_table(judged, set_name)
    L += lines + [""]
    misses += m
    L += ["## Positives per package (top-1 correct)", ""] + package_table(judged, chosen["packages"]) + [""]
    lines, m = negatives_table(judged, set_name)
    L += ["## Negatives (not in the catalog)", "",
          "Hard negatives: *same-package* = held-out tracks of a catalog package (same composers and style); "
          "*alt-version* = another version of a catalog tune; *derivative* = a sample piece with one part kept "
          "verbatim and the rest changed. Chain *mic* = the speaker→room→mic chain of the positives; *speech* = "
          "people talking 10 dB under the music; *snr_p5*, *snr_0*, *snr_m5* = pink noise at +5, 0 and −5 dB SNR, as the positives'.", ""]
    L += lines + [""]
    misses += m
    L += ["Highest-scoring negatives of each kind (landmark score; signature scores first round / wider net):", ""]
    L += worst_negatives(judged) + [""]
    L += ["## Score distribution", ""] + score_section(judged) + [""]

    audio_q = sum(q["length"] for q in judged)
    wall = sum(match["walls"])
    L += [
        "## Cost",
        "",
        f"- index size: {ctx['catalog_bytes']:,} bytes for {ctx['catalog_seconds']:.1f} s of catalog audio = "
        f"**{ctx['catalog_bytes'] / ctx['catalog_seconds']:.1f} bytes per audio second**",
        f"- query time (noisy: wall clock of {match['batches']} match processes, {ctx['match_jobs']} at a time, "
        f"start-up and catalog loading included): {wall:.1f} s for {audio_q} s of query audio = "
        f"**{1000 * wall / audio_q:.2f} ms per query-audio second** ({1000 * wall / len(judged):.1f} ms per query)",
        f"- this run: query generation {ctx['generate_seconds']:.0f} s (cached files are reused), "
        f"matching {ctx['match_seconds']:.0f} s wall",
    ]
    if ctx.get("build_seconds") is not None:
        L.append(f"- catalog build (this run): {ctx['build_seconds']:.1f} s wall for {ctx['catalog_seconds']:.0f} s of audio")
    L.append("- instructions per audio second: see `bench/accuracy/cost.sh` (callgrind)")
    if match["problems"]:
        L += ["", "## Problems while matching", ""]
        L += [f"- {p}" for p in match["problems"][:20]]
        if len(match["problems"]) > 20:
            L.append(f"- … and {len(match['problems']) - 20} more")
    L += ["", "## Tracks", ""] + tracks_section(chosen, [n for s, n in ctx["notes"] if s == set_name])
    L += ["", "## Targets", ""]
    if misses:
        L += [f"- **MISSED** {m}" for m in misses]
    else:
        L.append("- all targets met (top-1 at 5 s, 0 wrong references, 0 false positives)")
    if warnings:
        L.append("- incomplete run: see the warnings at the top")
    return "\n".join(L) + "\n", misses


# ----------------------------------------------------------------------------------------------


def run_set(args, binary: Path, work: Path, set_name: str, chosen: dict, ctx_common: dict) -> str:
    mode = "quick" if args.quick else "full"
    catalog_tracks, neg_sources = chosen["catalog"], chosen["negatives"]
    cat = build_catalog(work, binary, catalog_tracks, f"{set_name}-{mode}")

    queries, pos_jobs, neg_jobs, silent = plan_queries(work, set_name, catalog_tracks, neg_sources, args.quick)
    t0 = time.perf_counter()
    run_parallel(make_positive_set, pos_jobs, args.jobs, f"{set_name}: positive query sets")
    run_parallel(make_negative, neg_jobs, args.jobs, f"{set_name}: negative queries")
    generate_seconds = time.perf_counter() - t0
    log(f"{set_name}: {len(queries)} queries ready in {generate_seconds:.1f} s")

    t0 = time.perf_counter()
    match = run_match(binary, cat["path"], queries, args.batch_size, args.match_jobs)
    match_seconds = time.perf_counter() - t0
    log(f"{set_name}: matched in {match_seconds:.1f} s")
    judged = [judge(q, match["results"].get(q["file"])) for q in queries]
    mark_repeats(judged, RepeatChecker(work, {t["id"]: t["wav"] for t in catalog_tracks}))

    results_path = work / f"results-{set_name}-{mode}.jsonl"
    with open(results_path, "w") as f:
        for j in judged:
            rec = {k: v for k, v in j.items() if k != "wav"}
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")

    ctx = dict(ctx_common)
    ctx.update({
        "set": set_name, "catalog_seconds": sum(t["seconds"] for t in catalog_tracks),
        "catalog_bytes": cat["path"].stat().st_size, "build_seconds": cat["build_seconds"],
        "n_pos": sum(q["kind"] == "positive" for q in queries), "n_neg": sum(q["kind"] == "negative" for q in queries),
        "results_path": str(results_path), "generate_seconds": generate_seconds, "match_seconds": match_seconds,
        "silent_offsets": silent,
    })
    text, _ = report(ctx, judged, match, chosen)
    (work / f"report-{set_name}-{mode}.md").write_text(text)
    if args.report_file:
        args.report_file.parent.mkdir(parents=True, exist_ok=True)
        args.report_file.write_text(text)
    if not match["results"]:
        raise SystemExit(f"{set_name}: the engine answered for no query")
    return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", choices=("tuning", "dev", "dev2", "dev3", "dev4", "dev5", "blind", "both"), default="tuning",
                    help="which set to run (default tuning; blind is for final reports; both = tuning and blind)")
    ap.add_argument("--soundtrace", type=Path, default=REPO_ROOT / ".build" / "release" / "soundtrace")
    ap.add_argument("--work", type=Path, default=Path("/tmp/soundtrace-bench"))
    ap.add_argument("--quick", action="store_true", help="smoke run: fewer tracks and offsets")
    ap.add_argument("--jobs", type=int, default=2, help="parallel sox workers for query generation")
    ap.add_argument("--match-jobs", type=int, default=2, help="match processes running at once")
    ap.add_argument("--batch-size", type=int, default=400, help="query files per match process")
    ap.add_argument("--report-file", type=Path, help="also write the report here (one --set only)")
    ap.add_argument("--prepare-only", action="store_true",
                    help="only convert tracks and build the set's catalog; print their paths as JSON (used by cost.sh)")
    ap.add_argument("--tracks-only", action="store_true",
                    help="like --prepare-only but without building a catalog (cost.sh with its own catalog)")
    args = ap.parse_args()
    sets = ["tuning", "blind"] if args.set == "both" else [args.set]
    if args.report_file and len(sets) > 1:
        ap.error("--report-file needs a single --set")
    if (args.prepare_only or args.tracks_only) and len(sets) > 1:
        ap.error("--prepare-only and --tracks-only need a single --set")

    binary = args.soundtrace.resolve()
    if not binary.is_file():
        raise SystemExit(f"no soundtrace binary at {binary}: run `swift build -c release` or pass --soundtrace")
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    mode = "quick" if args.quick else "full"
    shown_binary = binary
    binary = snapshot_binary(binary, work)

    t0 = time.perf_counter()
    tracks, notes = discover(work, args.jobs)
    chosen = select_tracks(tracks, args.quick)
    warnings = add_sample_pieces(chosen, work, args.quick)
    for w in warnings:
        log(f"WARNING: {w}")
    for s in sets:
        for t in chosen[s]["catalog"]:
            if "title" not in t:
                describe(t)
        log(f"{s}: {len(chosen[s]['catalog'])} catalog tracks, {len(chosen[s]['negatives'])} hard-negative sources")
        run_parallel(lambda t: convert_track(work, t), chosen[s]["catalog"] + chosen[s]["negatives"], args.jobs,
                     f"{s}: decoded tracks")
    log(f"tracks ready in {time.perf_counter() - t0:.1f} s")
    if args.tracks_only or args.prepare_only:
        s = sets[0]
        catalog = None
        if args.prepare_only:
            catalog = str(build_catalog(work, binary, chosen[s]["catalog"], f"{s}-{mode}")["path"])
        print(json.dumps({"catalog": catalog, "tracks": [t["wav"] for t in chosen[s]["catalog"]]}))
        return 0

    noise_bank(work)  # once, before the workers race for it
    ctx_common = {
        "binary": str(shown_binary), "binary_sha": sha256_file(binary), "quick": args.quick, "work": str(work),
        "pos_offsets": QUICK_POS_OFFSETS if args.quick else POS_OFFSETS,
        "neg_offsets": QUICK_HARD_NEG_OFFSETS if args.quick else HARD_NEG_OFFSETS,
        "match_jobs": args.match_jobs, "warnings": warnings, "notes": notes,
    }
    texts = [run_set(args, binary, work, s, chosen[s], ctx_common) for s in sets]
    print("\n".join(texts))
    # Missed targets are the benchmark's finding, not a harness failure.
    return 0


if __name__ == "__main__":
    sys.exit(main())
