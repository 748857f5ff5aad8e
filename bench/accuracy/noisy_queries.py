"""The noisy queries of a results file lined up with what the catalog recording plays there: shared
by the probes that measure a query against its reference (note-peaks.py, residual-noise.py).

A positive's reference is its clean twin (the same excerpt, before the noise); a derivative's is
its parent's 16 kHz source at the same time, since derivatives are rendered on their parent's time
line (catalog/render.sh --derivatives).
"""
import collections
import json
import random
import re
import sys
import wave
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

REPO = Path(__file__).resolve().parents[2]
NOISY = ("snr_p5", "snr_0", "snr_m5")
RATE = 16000


def read(path: Path) -> np.ndarray:
    """A 16-bit WAV at 16 kHz as floats, channels averaged."""
    with wave.open(str(path)) as w:
        if w.getsampwidth() != 2 or w.getframerate() != RATE:
            sys.exit(f"{path}: not 16-bit PCM at 16 kHz")
        x = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64)
        return x.reshape(-1, w.getnchannels()).mean(axis=1) if w.getnchannels() > 1 else x


def group_of(row: dict) -> tuple:
    """(what, condition, length, verdict): NAMED marks a derivative the engine named."""
    if row["kind"] == "positive":
        return ("recording", row["condition"], row["length"], "named" if row["verdict"] == "correct" else "missed")
    return ("derivative", row["condition"], row["length"], "NAMED" if row["verdict"] == "falsePositive" else "refused")


def kept_part(row: dict) -> tuple | None:
    """(parent, kept part) of a derivative's query, else None."""
    part = re.search(r"--keep-([a-z-]+?)(--take\d+)?__", Path(row["file"]).name)
    return (row.get("derivativeOf"), part.group(1)) if part else None


def pick(results: str, per_group: int, wanted: Callable[[dict], bool]) -> Iterator[tuple[dict, tuple]]:
    """The rows `wanted` accepts, in a fixed shuffled order, at most `per_group` of each group but
    every derivative the engine named, with their group."""
    rows = [json.loads(line) for line in open(results)]
    random.Random(0).shuffle(rows)
    taken = collections.Counter()
    for row in rows:
        if not wanted(row):
            continue
        group = group_of(row)
        if group[3] != "NAMED" and taken[group] >= per_group:
            continue
        taken[group] += 1
        yield row, group


class References:
    """What the catalog recording plays where a query was cut, `shift` samples later."""

    def __init__(self, parents: Path):
        self.parents = parents
        self.sources: dict[str, np.ndarray] = {}

    def source(self, piece: str) -> np.ndarray:
        if piece not in self.sources:
            self.sources[piece] = read(self.parents / f"{piece}.wav")
        return self.sources[piece]

    def of(self, row: dict, length: int, shift: int = 0, from_source: bool = False) -> np.ndarray:
        noisy = Path(row["file"])
        if row["kind"] == "positive" and not from_source:
            return read(noisy.with_name(noisy.name.replace(f"__{row['condition']}.wav", "__clean.wav")))[shift:]
        piece = row["derivativeOf"] if row["kind"] != "positive" else row["expectedId"]
        start = int(re.search(r"__at(\d+)ms__", noisy.name).group(1)) * RATE // 1000 + shift
        return self.source(piece)[start : start + length]


def by_group(measured: list[dict]) -> list[tuple[str, list[dict]]]:
    """The measured queries by group, sorted, each group named for a table row."""
    groups = collections.defaultdict(list)
    for m in measured:
        groups[m["group"]].append(m)
    return [(f"{g[0]}, {g[1]}, {g[2]} s, {g[3]}", groups[g]) for g in sorted(groups)]


def by_part(measured: list[dict]) -> list[tuple[tuple, list[dict]]]:
    """The measured derivative queries by (parent, kept part), sorted."""
    parts = collections.defaultdict(list)
    for m in measured:
        if m["part"]:
            parts[m["part"]].append(m)
    return [(part, parts[part]) for part in sorted(parts)]
