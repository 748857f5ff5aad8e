#!/usr/bin/env python3
"""Compose the Soundtrace sample reference catalog as Standard MIDI Files.

Every piece written here is an original composition produced by the rules in
this file (chord plans, melody generators, accompaniment patterns) driven by
fixed-seed pseudo-random generators.  Nothing is transcribed from existing
music.  Only the Python 3 standard library is used, and the output is
byte-identical on every run: all randomness comes from random.Random seeded
with constants, and only +, -, *, / are used on floats (no libm calls), so the
result does not depend on the platform's maths library.

Usage:
    python3 compose.py OUTDIR
    python3 compose.py --derivatives OUTDIR
    python3 compose.py --kept-most OUTDIR
    python3 compose.py --generate N [--seed S] [--first K] OUTDIR

The first form writes
    OUTDIR/catalog/<id>.mid    the reference catalog pieces (about 100 s each)
    OUTDIR/outside/<name>.mid  two short pieces that are NOT in the catalog
                               (used by tests as unrelated "hard negative"
                               recordings)
the second form writes only
    OUTDIR/derivatives/<id>--keep-<part>[--take<k>].mid
                               pieces that are NOT in the catalog either but
                               share one layer with catalog piece <id>, note
                               for note and in the same sound (see "Derivative
                               pieces" below: the hard negatives for "same drum
                               loop / bass line / melody, different recording")
the third (a probe, not a benchmark set) writes
    OUTDIR/kept-most/<id>--keep-<parts>[--take<k>].mid
                               the same kind of piece keeping most of the mix
                               (KEPT_MOST, tuning-set pieces only), for
                               bench/accuracy/kept-most.py
and the fourth writes
    OUTDIR/generated/gen-s<S>-<i>.mid
                               N (or N - K) generated pieces of 2-6 minutes,
                               each composed from its own seed (see
                               "Generated pieces": filler music for the
                               scale benchmark, bench/scale), and
                               OUTDIR/generated/pieces.tsv listing them;
each prints one line per file with its length in seconds to stderr.

The MIDI files are format 1, 480 ticks per quarter note: track 0 carries the
track name, time signature, key signature and tempo map; every further track
is one instrument on one MIDI channel (channel 10 = drums).
"""

import bisect
import os
import random
import sys
import zlib

PPQ = 480
TAIL_SECONDS = 4.0
DRUMS = 9  # MIDI channel 10, zero-based


# ---------------------------------------------------------------------------
# Standard MIDI File writing
# ---------------------------------------------------------------------------

def vlq(value):
    """MIDI variable-length quantity."""
    if value < 0:
        raise ValueError("negative delta time")
    out = [value & 0x7F]
    value >>= 7
    while value:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    return bytes(reversed(out))


def chunk(tag, data):
    return tag + len(data).to_bytes(4, "big") + bytes(data)


def meta(kind, data):
    return bytes([0xFF, kind]) + vlq(len(data)) + bytes(data)


def encode_track(events, end_tick=0):
    """events: list of (tick, priority, sequence, bytes); returns an MTrk chunk
    whose end-of-track event is at end_tick or at the last event, if later."""
    events = sorted(events, key=lambda e: (e[0], e[1], e[2]))
    data = bytearray()
    last = 0
    for tick, _prio, _seq, raw in events:
        data += vlq(tick - last)
        data += raw
        last = tick
    data += vlq(max(0, end_tick - last)) + meta(0x2F, b"")
    return chunk(b"MTrk", data)


def to_tick(beat):
    return int(round(beat * PPQ))


class Track:
    """One instrument on one MIDI channel.  Times are in quarter-note beats."""

    def __init__(self, name, channel, program, volume=100, pan=64, reverb=40, chorus=0):
        self.name = name
        self.channel = channel
        self.program = program
        self.volume = volume
        self.pan = pan
        self.reverb = reverb
        self.chorus = chorus
        self.notes = []     # (start_tick, end_tick, pitch, velocity, role)
        self.controls = []  # (tick, controller, value)

    def note(self, start, dur, pitch, vel, role=None):
        """role labels a note's function inside the track (e.g. "bass" for the
        bass notes of a piano left hand), so that a derivative piece can keep
        just that layer; it is not written to the MIDI file."""
        pitch = int(pitch)
        while pitch > 127:
            pitch -= 12
        while pitch < 0:
            pitch += 12
        s = max(0, to_tick(start))
        e = to_tick(start + dur)
        if e < s + 24:
            e = s + 24
        v = max(1, min(127, int(round(vel))))
        self.notes.append((s, e, pitch, v, role))

    def cc(self, beat, controller, value):
        self.controls.append((max(0, to_tick(beat)), controller, max(0, min(127, int(round(value))))))

    def ramp(self, controller, b0, b1, v0, v1, step=0.25):
        n = max(1, int(round((b1 - b0) / step)))
        for i in range(n + 1):
            self.cc(b0 + (b1 - b0) * i / n, controller, v0 + (v1 - v0) * i / n)

    def end_tick(self):
        return max([n[1] for n in self.notes] + [c[0] for c in self.controls] + [0])

    def sounding(self):
        """The notes as they are written and heard: (start, end, pitch, velocity, role).

        A note-off for a pitch would also silence a later overlapping note of
        the same pitch on the channel, so overlapping repeats are shortened
        (and a note that would be left with no length is dropped)."""
        notes = sorted(self.notes, key=lambda n: (n[2], n[0], n[1], n[3]))
        fixed = []
        for i, (s, e, p, v, role) in enumerate(notes):
            if i + 1 < len(notes) and notes[i + 1][2] == p and notes[i + 1][0] < e:
                e = notes[i + 1][0]
            if e <= s:
                continue
            fixed.append((s, e, p, v, role))
        return fixed

    def chunk(self):
        ch = self.channel
        ev = [
            (0, 0, 0, meta(0x03, self.name.encode("ascii"))),
            (0, 0, 1, bytes([0xB0 | ch, 0, 0])),              # bank select MSB
            (0, 0, 2, bytes([0xC0 | ch, self.program])),
            (0, 0, 3, bytes([0xB0 | ch, 7, self.volume])),
            (0, 0, 4, bytes([0xB0 | ch, 10, self.pan])),
            (0, 0, 5, bytes([0xB0 | ch, 91, self.reverb])),
            (0, 0, 6, bytes([0xB0 | ch, 93, self.chorus])),
            (0, 0, 7, bytes([0xB0 | ch, 11, 127])),
        ]
        seq = 8
        for tick, num, val in self.controls:
            ev.append((tick, 1, seq, bytes([0xB0 | ch, num, val])))
            seq += 1
        for s, e, p, v in sorted(n[:4] for n in self.sounding()):
            ev.append((s, 3, seq, bytes([0x90 | ch, p, v])))
            ev.append((e, 2, seq + 1, bytes([0x80 | ch, p, 64])))
            seq += 2
        return encode_track(ev)


class Song:
    def __init__(self, ident, title, bpm, num=4, den=4, key_sf=0, minor=False):
        self.ident = ident
        self.title = title
        self.num = num
        self.den = den
        self.key_sf = key_sf
        self.minor = minor
        self.tempos = [(0, bpm)]
        self.tracks = []
        self.harmony = None  # the chord timeline; derivative pieces re-voice by it

    def add_track(self, name, channel, program, **kw):
        t = Track(name, channel, program, **kw)
        self.tracks.append(t)
        return t

    def tempo(self, beat, bpm):
        self.tempos.append((to_tick(beat), bpm))

    def ritard(self, b0, b1, bpm0, bpm1, step=0.5):
        n = max(1, int(round((b1 - b0) / step)))
        for i in range(n):
            self.tempo(b0 + i * step, bpm0 + (bpm1 - bpm0) * i / (n - 1 if n > 1 else 1))

    def tempo_map(self):
        by_tick = {}
        for tick, bpm in self.tempos:
            by_tick[tick] = bpm          # later settings at the same tick win
        return sorted(by_tick.items())

    def end_tick(self):
        return max(t.end_tick() for t in self.tracks)

    def seconds(self, tick=None):
        if tick is None:
            tick = self.end_tick()
        tm = self.tempo_map()
        total = 0.0
        for i, (t0, bpm) in enumerate(tm):
            t1 = tm[i + 1][0] if i + 1 < len(tm) else tick
            t1 = min(t1, tick)
            if t1 > t0:
                total += (t1 - t0) / PPQ * 60.0 / bpm
        return total

    def to_bytes(self):
        ev = [
            (0, 0, 0, meta(0x03, self.title.encode("ascii"))),
            (0, 0, 1, meta(0x58, bytes([self.num, {2: 1, 4: 2, 8: 3}[self.den], 24, 8]))),
            (0, 0, 2, meta(0x59, bytes([self.key_sf & 0xFF, 1 if self.minor else 0]))),
        ]
        seq = 3
        for tick, bpm in self.tempo_map():
            us = int(round(60000000 / bpm))
            ev.append((tick, 1, seq, meta(0x51, us.to_bytes(3, "big"))))
            seq += 1
        # The conductor track ends TAIL_SECONDS after the last note-off, so the
        # renderer keeps going while the final notes and the reverb die away.
        last_bpm = self.tempo_map()[-1][1]
        end = self.end_tick() + int(round(TAIL_SECONDS * last_bpm / 60.0 * PPQ))
        header = chunk(b"MThd", (1).to_bytes(2, "big") + (len(self.tracks) + 1).to_bytes(2, "big")
                       + PPQ.to_bytes(2, "big"))
        return header + encode_track(ev, end) + b"".join(t.chunk() for t in self.tracks)


# ---------------------------------------------------------------------------
# Harmony
# ---------------------------------------------------------------------------

QUALITY = {
    "maj": (0, 4, 7), "min": (0, 3, 7), "dim": (0, 3, 6), "aug": (0, 4, 8),
    "7": (0, 4, 7, 10), "m7": (0, 3, 7, 10), "maj7": (0, 4, 7, 11), "mmaj7": (0, 3, 7, 11),
    "dim7": (0, 3, 6, 9), "m7b5": (0, 3, 6, 10), "9": (0, 4, 7, 10, 14), "m9": (0, 3, 7, 10, 14),
    "maj9": (0, 4, 7, 11, 14), "add9": (0, 4, 7, 14), "madd9": (0, 3, 7, 14), "6": (0, 4, 7, 9),
    "m6": (0, 3, 7, 9), "sus4": (0, 5, 7), "sus2": (0, 2, 7), "7sus4": (0, 5, 7, 10),
    "m11": (0, 3, 7, 10, 14, 17), "13": (0, 4, 7, 10, 14, 21), "maj7#11": (0, 4, 7, 11, 18),
    "69": (0, 4, 7, 9, 14),
}
ROMAN = {"I": 0, "II": 2, "III": 4, "IV": 5, "V": 7, "VI": 9, "VII": 11}
SUFFIX_UPPER = {"": "maj", "7": "7", "maj7": "maj7", "9": "9", "maj9": "maj9", "add9": "add9",
                "6": "6", "sus4": "sus4", "sus2": "sus2", "7sus4": "7sus4", "+": "aug",
                "o": "dim", "o7": "dim7", "13": "13", "maj7#11": "maj7#11", "69": "69"}
SUFFIX_LOWER = {"": "min", "7": "m7", "9": "m9", "add9": "madd9", "6": "m6", "o": "dim",
                "o7": "dim7", "h7": "m7b5", "11": "m11", "maj7": "mmaj7", "sus4": "sus4",
                "sus2": "sus2"}
MODES = {
    "major": (0, 2, 4, 5, 7, 9, 11), "minor": (0, 2, 3, 5, 7, 8, 10),
    "dorian": (0, 2, 3, 5, 7, 9, 10), "mixolydian": (0, 2, 4, 5, 7, 9, 10),
    "lydian": (0, 2, 4, 6, 7, 9, 11), "phrygian": (0, 1, 3, 5, 7, 8, 10),
    "blues": (0, 3, 5, 6, 7, 10),
}
CHORD_SCALE = {
    "7": MODES["mixolydian"], "9": MODES["mixolydian"], "13": MODES["mixolydian"],
    "m7": MODES["dorian"], "m9": MODES["dorian"], "m11": MODES["dorian"],
    "maj7": MODES["major"], "maj9": MODES["major"], "6": MODES["major"], "69": MODES["major"],
    "m7b5": (0, 1, 3, 5, 6, 8, 10), "dim7": (0, 2, 3, 5, 6, 8, 9, 11),
}


class Chord:
    def __init__(self, root, quality, bass=None):
        self.root = root % 12
        self.quality = quality
        self.ivs = QUALITY[quality]
        self.tones = [(self.root + i) % 12 for i in self.ivs]
        self.pcs = frozenset(self.tones)
        self.bass = self.root if bass is None else bass % 12


def numeral(sym, tonic):
    """Roman numeral (e.g. 'bVImaj7', 'ii7', 'V7sus4', 'I/3') relative to a tonic."""
    bass_sel = None
    if "/" in sym:
        sym, b = sym.split("/")
        bass_sel = int(b)
    acc = 0
    while sym and sym[0] in "b#":
        acc += -1 if sym[0] == "b" else 1
        sym = sym[1:]
    i = 0
    while i < len(sym) and sym[i] in "IViv":
        i += 1
    rn, suf = sym[:i], sym[i:]
    quality = (SUFFIX_UPPER if rn.isupper() else SUFFIX_LOWER)[suf]
    ch = Chord(tonic + ROMAN[rn.upper()] + acc, quality)
    if bass_sel:
        ch.bass = (ch.root + ch.ivs[{3: 1, 5: 2, 7: 3}[bass_sel]]) % 12
    return ch


def scale_pcs(tonic, mode):
    return frozenset((tonic + i) % 12 for i in MODES[mode])


def chord_scale(ch):
    return frozenset((ch.root + i) % 12 for i in CHORD_SCALE.get(ch.quality, MODES["major"]))


class Harmony:
    """Chord timeline: consecutive spans (start, end, chord, scale)."""

    def __init__(self):
        self.spans = []
        self.starts = []

    def add(self, start, dur, chord, scale):
        self.spans.append((start, start + dur, chord, scale))
        self.starts.append(start)

    def prog(self, start, tonic, mode, spec, bar=4, scales="key"):
        t = start
        for tok in spec.split():
            if ":" in tok:
                sym, d = tok.split(":")
                d = float(d)
            else:
                sym, d = tok, bar
            ch = numeral(sym, tonic)
            sc = chord_scale(ch) if scales == "chord" else scale_pcs(tonic, mode)
            self.add(t, d, ch, sc)
            t += d
        return t

    def span_at(self, t):
        i = bisect.bisect_right(self.starts, t + 1e-6) - 1
        return self.spans[max(0, i)]

    def at(self, t):
        s = self.span_at(t)
        return s[2], s[3]

    def spans_in(self, t0, t1):
        return [s for s in self.spans if s[0] >= t0 - 1e-6 and s[0] < t1 - 1e-6]

    def next_chord(self, t):
        s = self.span_at(t)
        return self.at(s[1])[0]


# ---------------------------------------------------------------------------
# Melody and accompaniment tools
# ---------------------------------------------------------------------------

def pick(rng, items, weights):
    total = 0.0
    for w in weights:
        total += w
    r = rng.random() * total
    acc = 0.0
    for it, w in zip(items, weights):
        acc += w
        if r < acc:
            return it
    return items[-1]


def jitter(rng, amount):
    return (rng.random() * 2.0 - 1.0) * amount


def pool_for(scale, chord, lo, hi, extra=(), clash=True):
    """Pitches usable over a chord: the scale adjusted to the chord's chromatic tones."""
    pcs = set(scale)
    if clash:
        for c in chord.tones:
            if c not in scale:
                pcs.discard((c + 1) % 12)
                pcs.discard((c - 1) % 12)
    pcs |= chord.pcs
    pcs |= set(extra)
    return [p for p in range(lo, hi + 1) if p % 12 in pcs]


STEP_W = (0.5, 3.0, 3.2, 2.2, 1.8, 1.3, 0.35, 1.0, 0.55, 0.45, 0.25, 0.2, 0.45)


def gen_line(rng, rhythm, harm, lo, hi, start, target, pull=7.0, weak_ct=0.4,
             end_pcs=None, extra=(), clash=True, strong_ct=True):
    """Chord-aware melodic random walk.

    rhythm: list of (time, duration, strong); strong notes land on chord tones.
    target: pitch or function time -> pitch that the line is drawn towards
            (an arch for a new melody, or an earlier melody for a variation;
            a small `pull` keeps a variation close to its model)."""
    out = []
    cur = start
    last = 0
    n = len(rhythm)
    for i, (t, d, strong) in enumerate(rhythm):
        chord, scale = harm.at(t)
        pool = pool_for(scale, chord, lo, hi, extra, clash)
        cand = pool
        if strong and strong_ct:
            c2 = [p for p in pool if p % 12 in chord.pcs]
            if c2:
                cand = c2
        if i == n - 1 and end_pcs:
            c2 = [p for p in pool if p % 12 in end_pcs]
            if c2:
                cand = c2
        tg = target(t) if callable(target) else target
        ws = []
        for p in cand:
            dist = abs(p - cur)
            w = STEP_W[dist] if dist < len(STEP_W) else 0.05
            if last and abs(last) >= 5:
                if 0 < dist <= 3 and (p - cur) * last < 0:
                    w *= 2.5
                elif (p - cur) * last > 0 and dist >= 3:
                    w *= 0.3
            dt = (p - tg) / pull
            w *= 1.0 / (1.0 + dt * dt)
            if not strong and p % 12 in chord.pcs:
                w *= 1.0 + weak_ct
            ws.append(w)
        p = pick(rng, cand, ws)
        last = p - cur
        cur = p
        out.append((t, d, p))
    return out


def follow(notes, shift_t=0.0, shift_p=0):
    """Target function that traces an earlier melody (moved in time and pitch)."""
    starts = [n[0] for n in notes]

    def f(t):
        i = bisect.bisect_right(starts, t - shift_t + 1e-6) - 1
        return notes[max(0, i)][2] + shift_p
    return f


def arch(t0, t1, p0, peak, p1, peak_at=0.62):
    def f(t):
        x = (t - t0) / (t1 - t0)
        x = 0.0 if x < 0 else (1.0 if x > 1 else x)
        if x < peak_at:
            return p0 + (peak - p0) * x / peak_at
        return peak + (p1 - peak) * (x - peak_at) / (1.0 - peak_at)
    return f


class Env:
    """Piecewise-linear envelope over beats."""

    def __init__(self, pts):
        self.pts = sorted(pts)

    def __call__(self, t):
        pts = self.pts
        if t <= pts[0][0]:
            return pts[0][1]
        for (a, va), (b, vb) in zip(pts, pts[1:]):
            if t <= b:
                return va + (vb - va) * (t - a) / (b - a) if b > a else vb
        return pts[-1][1]


def rhythm(start, cells, bar, strong=(0.0,)):
    out = []
    for b, cell in enumerate(cells):
        for o, d in cell:
            out.append((start + b * bar + o, d, any(abs(o - s) < 1e-6 for s in strong)))
    return out


def voicing(tones, prev, lo, hi, n):
    """Close (or drop-2) voicing of pitch classes in [lo, hi], near the previous one."""
    tones = list(tones)
    while len(tones) > n:
        if len(tones) >= 4 and (tones[2] - tones[0]) % 12 == 7:
            del tones[2]
        else:
            del tones[-1]
    i = 0
    while len(tones) < n:
        tones.append(tones[i])
        i += 1
    mid = (lo + hi) / 2.0
    best, best_score = None, None
    for r in range(len(tones)):
        order = tones[r:] + tones[:r]
        for base in range(lo, lo + 12):
            if base % 12 != order[0]:
                continue
            v = [base]
            for pc in order[1:]:
                nxt = v[-1] + 1
                while nxt % 12 != pc:
                    nxt += 1
                v.append(nxt)
            cands = [v]
            if len(v) >= 4 and v[-2] - 12 >= lo:
                cands.append(sorted(v[:-2] + [v[-2] - 12, v[-1]]))
            for c in cands:
                if c[-1] > hi or c[0] < lo:
                    continue
                if prev:
                    if len(prev) == len(c):
                        score = sum(abs(a - b) for a, b in zip(sorted(prev), c))
                    else:
                        score = sum(min(abs(a - b) for b in prev) for a in c)
                else:
                    score = abs(sum(c) / len(c) - mid)
                if best_score is None or score < best_score:
                    best, best_score = c, score
    if best is None:
        best = sorted(lo + (pc - lo) % 12 for pc in tones)
    return best


def near(pc, ref, lo, hi):
    best = None
    for p in range(lo, hi + 1):
        if p % 12 == pc % 12 and (best is None or abs(p - ref) < abs(best - ref)):
            best = p
    return best


def ladder(chord, lo, hi):
    return [p for p in range(lo, hi + 1) if p % 12 in chord.pcs]


def below(p, chord, scale, lo, strong):
    """A harmony note a third to a sixth under a melody note."""
    pool = pool_for(scale, chord, lo, p)
    for q in sorted(pool, reverse=True):
        if 3 <= p - q <= 9 and (not strong or q % 12 in chord.pcs):
            return q
    return None


def ornament_turns(rng, notes, harm, lo, hi, prob, min_dur=1.5):
    """Replace some long notes by a turn (upper neighbour, note, lower neighbour, note)."""
    out = []
    for t, d, p in notes:
        if d >= min_dur and rng.random() < prob:
            chord, scale = harm.at(t)
            pool = pool_for(scale, chord, lo - 3, hi + 3)
            up = min([q for q in pool if q > p] or [p + 2])
            dn = max([q for q in pool if q < p] or [p - 1])
            u = 0.25 if d < 3 else 0.5
            out += [(t, u, up), (t + u, u, p), (t + 2 * u, u, dn), (t + 3 * u, d - 3 * u, p)]
        else:
            out.append((t, d, p))
    return out


def play(track, rng, notes, vel, accent=8, legato=1.0, tj=0.0, vj=4.0, strong_bar=4):
    """Write (t, d, p) notes; vel is a number or an envelope function of time."""
    for t, d, p in notes:
        v = vel(t) if callable(vel) else vel
        x = t - int(t / strong_bar) * strong_bar if strong_bar else 1
        if abs(x) < 1e-6:
            v += accent
        track.note(max(0.0, t + jitter(rng, tj)), d * legato, p, v + jitter(rng, vj))


def pedal(tracks, harm, t0, t1):
    for s0, s1, _c, _sc in harm.spans_in(t0, t1):
        for tr in tracks:
            tr.cc(s0 + 0.04, 64, 127)
            tr.cc(s1 - 0.03, 64, 0)


def swing(x):
    """Map a straight-eighth position (multiple of 0.5) to swung time."""
    whole = int(x + 1e-9)
    return whole + (2.0 / 3.0 if x - whole > 0.25 else 0.0)


# ---------------------------------------------------------------------------
# 1. Harbor Lights at Dusk -- solo piano, E-flat major, 80 bpm
# ---------------------------------------------------------------------------

CELLS44 = [
    ((0, 1), (1, 1), (2, 1), (3, 1)),
    ((0, 1.5), (1.5, 0.5), (2, 1), (3, 1)),
    ((0, 0.5), (0.5, 0.5), (1, 1), (2, 2)),
    ((0, 2), (2, 1), (3, 1)),
    ((0, 1), (1, 0.5), (1.5, 0.5), (2, 1.5), (3.5, 0.5)),
    ((0, 1.5), (1.5, 1), (2.5, 0.5), (3, 1)),
    ((0, 1), (1, 1), (2, 0.5), (2.5, 0.5), (3, 0.5), (3.5, 0.5)),
    ((0, 3), (3, 0.5), (3.5, 0.5)),
    ((0.5, 0.5), (1, 1), (2, 1.5), (3.5, 0.5)),
]
LONG44 = [((0, 4),), ((0, 3), (3, 1)), ((0, 2), (2, 2)), ((0, 1), (1, 3))]
SYNC44 = [
    ((0, 1.5), (1.5, 1.5), (3, 1)),
    ((0, 0.5), (0.5, 1.5), (2, 1), (3, 1)),
    ((0, 1), (1, 0.5), (1.5, 1.5), (3, 0.5), (3.5, 0.5)),
    ((0.5, 1), (1.5, 1), (2.5, 1.5)),
    ((0, 0.75), (0.75, 0.75), (1.5, 0.5), (2, 2)),
]


def arpeggiate(track, rng, harm, t0, t1, pattern, step, vel, bass_lo=36, bass_hi=51,
               up_span=(7, 22), n_up=3, dur_mul=1.0, state=None):
    state = state if state is not None else {}
    for s0, s1, ch, _sc in harm.spans_in(t0, t1):
        bass = near(ch.bass, state.get("bass", 44), bass_lo, bass_hi)
        up = voicing(ch.tones, state.get("up"), bass + up_span[0], bass + up_span[1], n_up)
        state["bass"], state["up"] = bass, up
        arp = [bass] + up
        k = 0
        while s0 + k * step < s1 - 1e-6 and s0 + k * step < t1 - 1e-6:
            t = s0 + k * step
            i = pattern[k % len(pattern)] % len(arp)
            track.note(t + jitter(rng, 0.01), step * dur_mul, arp[i], vel(t) + (6 if k == 0 else 0) + jitter(rng, 4),
                       role="bass" if i == 0 else None)
            k += 1
    return state


def piece_harbor(rng):
    s = Song("harbor-lights-piano", "Harbor Lights at Dusk", 80, 4, 4, key_sf=-3)
    rh = s.add_track("Piano right hand", 0, 0, volume=112, pan=70, reverb=52)
    lh = s.add_track("Piano left hand", 1, 0, volume=104, pan=58, reverb=52)
    EB, CM = 3, 0
    h = s.harmony = Harmony()
    t = h.prog(0, EB, "major", "Iadd9 IVmaj7")
    tA = t
    t = h.prog(t, EB, "major", "I vi IV V I iii IV:2 ii7:2 V7sus4:2 V7:2")
    tA2 = t
    t = h.prog(t, EB, "major", "I vi7 ii7 V7 iii7 vi7 ii7:2 V7:2 I")
    tB = t
    t = h.prog(t, CM, "minor", "i bVI iv V7 i bVI iv:2 V7:2 bVII7")
    tA3 = t
    t = h.prog(t, EB, "major", "IV I/3 ii7:2 V7:2 I")
    tC = t
    t = h.prog(t, EB, "major", "IVmaj7 iv6 Iadd9")
    end = t
    s.ritard(tA3 - 4, tA3, 80, 70, step=1)
    s.tempo(tA3, 80)
    s.ritard(tC, end, 80, 54, step=0.5)

    dyn = Env([(0, 52), (tA, 62), (tA2 - 4, 70), (tA2, 72), (tB - 2, 78), (tB, 64), (tA3 - 2, 86),
               (tA3, 90), (tC - 2, 76), (tC, 64), (end, 44)])

    # Theme (section A): two four-bar phrases sharing the opening rhythm.
    c = [rng.choice(CELLS44) for _ in range(3)]
    cells_a = [c[0], c[1], c[2], rng.choice(LONG44[1:]), c[0], c[1], rng.choice(CELLS44),
               rng.choice(LONG44)]
    r1 = rhythm(tA, cells_a[:4], 4, (0, 2))
    m1 = gen_line(rng, r1, h, 65, 86, 70, arch(tA, tA + 16, 68, 80, 72))
    r2 = rhythm(tA + 16, cells_a[4:], 4, (0, 2))
    m2 = gen_line(rng, r2, h, 65, 86, m1[-1][2],
                  lambda x: follow(m1, 16, 2)(x) if x < tA + 24 else 74, pull=4.0)
    theme = m1 + m2
    play(rh, rng, theme, lambda x: dyn(x) + 10, tj=0.012)

    # A': the theme varied, with a harmony voice under the long notes.
    cells_a2 = list(cells_a)
    for k in (1, 2, 5, 6):
        cells_a2[k] = rng.choice(CELLS44)
    r = rhythm(tA2, cells_a2, 4, (0, 2))
    mA2 = gen_line(rng, r, h, 65, 88, theme[0][2], follow(theme, tA2 - tA, 0), pull=2.5,
                   end_pcs={EB})
    play(rh, rng, mA2, lambda x: dyn(x) + 10, tj=0.012)
    for t_, d, p in mA2:
        if d >= 1:
            ch, sc = h.at(t_)
            q = below(p, ch, sc, 55, True)
            if q:
                rh.note(t_ + 0.01, d, q, dyn(t_) - 4 + jitter(rng, 3))

    # B (C minor): a new, syncopated tune in the middle register.
    cells_b = [rng.choice(SYNC44) for _ in range(3)] + [rng.choice(LONG44)]
    cells_b += [cells_b[0], rng.choice(SYNC44), rng.choice(CELLS44), rng.choice(LONG44[1:])]
    rb = rhythm(tB, cells_b, 4, (0, 2))
    mb = gen_line(rng, rb, h, 58, 77, 67, arch(tB, tB + 32, 63, 74, 65), weak_ct=0.6)
    play(rh, rng, mb, lambda x: dyn(x) + 8, tj=0.015)

    # A'': the theme's first phrase an octave higher, in octaves.
    r = rhythm(tA3, [cells_a[0], rng.choice(CELLS44), cells_a[2], rng.choice(LONG44[1:])], 4, (0, 2))
    mA3 = gen_line(rng, r, h, 72, 91, theme[0][2] + 12, follow(theme, tA3 - tA, 12), pull=3.0)
    play(rh, rng, mA3, lambda x: dyn(x) + 8, tj=0.01)
    play(rh, rng, [(a, b, p - 12) for a, b, p in mA3], lambda x: dyn(x) - 6, tj=0.01)

    # Coda: a last fragment settling on E-flat.
    rc = rhythm(tC, [((0, 1), (1, 1), (2, 2)), ((0, 1.5), (1.5, 0.5), (2, 2)), ((0, 4),)], 4, (0, 2))
    mc = gen_line(rng, rc, h, 67, 84, 79, arch(tC, end, 79, 77, 75), end_pcs={EB})
    play(rh, rng, mc, lambda x: dyn(x) + 8, tj=0.01)

    # Left hand.
    st = {}
    v_lh = lambda x: dyn(x) - 12
    arpeggiate(lh, rng, h, 0, tA2, [0, 1, 2, 3, 1, 2, 3, 2], 0.5, v_lh, state=st)
    arpeggiate(lh, rng, h, tA2, tB, [0, 1, 2, 3, 2, 1], 1.0 / 3.0, v_lh, state=st)
    prev = None
    for s0, s1, ch, _sc in h.spans_in(tB, tA3):
        b = near(ch.bass, 40, 36, 48)
        lh.note(s0, s1 - s0, b, v_lh(s0) + 6, role="bass")
        v = voicing(ch.tones, prev, 50, 67, 3)
        prev = v
        offs = [(0, 1.0), (1.5, 0.5), (3, 0.9)] if s1 - s0 >= 4 else [(0, 1.0), (1, 0.8)]
        for o, d in offs:
            for p in v:
                lh.note(s0 + o + jitter(rng, 0.01), d, p, v_lh(s0 + o) - 2 + jitter(rng, 4))
    for s0, s1, ch, _sc in h.spans_in(tA3, tC):
        b = near(ch.bass, 36, 31, 43)
        lh.note(s0, 1.5, b, v_lh(s0) + 8, role="bass")
        lh.note(s0, 1.5, b + 12, v_lh(s0) + 4, role="bass")
        up = voicing(ch.tones, None, b + 15, b + 30, 3)
        k = 0
        x = s0 + 1
        while x < s1 - 1e-6:
            lh.note(x, 0.5, up[[0, 1, 2, 1, 2, 0][k % 6]], v_lh(x) + jitter(rng, 4))
            x += 0.5
            k += 1
    arpeggiate(lh, rng, h, tC, end - 4, [0, 1, 2, 3], 1.0, v_lh, state=st)
    final = [39, 46, 51, 55, 58, 65]
    for i, p in enumerate(final):
        lh.note(end - 4 + i * 0.09, 4 - i * 0.09 + 2, p, 50 - i * 2, role="bass" if i == 0 else None)
    pedal([rh, lh], h, 0, end)
    rh.cc(end + 2, 64, 0)
    lh.cc(end + 2, 64, 0)
    return s


# ---------------------------------------------------------------------------
# 2. Cathedral of Northern Glass -- string ensemble, D minor, 66 bpm
# ---------------------------------------------------------------------------

SLOW44 = [
    ((0, 2), (2, 1), (3, 1)), ((0, 1), (1, 1), (2, 2)), ((0, 3), (3, 1)),
    ((0, 1.5), (1.5, 0.5), (2, 2)), ((0, 2), (2, 2)), ((0, 1), (1, 2), (3, 1)),
    ((0, 2), (2, 1.5), (3.5, 0.5)),
]


def string_pad(track, rng, harm, t0, t1, lo, hi, n, vel, prev=None, restrike=None):
    for s0, s1, ch, _sc in harm.spans_in(t0, t1):
        v = voicing(ch.tones, prev, lo, hi, n)
        prev = v
        segs = [(s0, s1)]
        if restrike and s1 - s0 > restrike:
            segs = [(s0, s0 + restrike), (s0 + restrike, s1)]
        for a, b in segs:
            for p in v:
                track.note(a + jitter(rng, 0.02), b - a + 0.04, p, vel(a) + jitter(rng, 3))
    return prev


def swells(track, harm, t0, t1, lo, hi):
    for s0, s1, _c, _sc in harm.spans_in(t0, t1):
        mid = s0 + (s1 - s0) * 0.55
        track.ramp(11, s0, mid, lo, hi, 0.5)
        track.ramp(11, mid + 0.5, s1 - 0.25, hi - 3, lo + 6, 0.5)


def piece_strings(rng):
    s = Song("northern-glass-strings", "Cathedral of Northern Glass", 66, 4, 4, key_sf=-1, minor=True)
    vln = s.add_track("Violins", 0, 48, volume=100, pan=44, reverb=72)
    vla = s.add_track("Violas", 1, 49, volume=90, pan=76, reverb=72)
    vc = s.add_track("Cellos", 2, 42, volume=108, pan=84, reverb=66)
    cb = s.add_track("Contrabasses", 3, 43, volume=100, pan=96, reverb=60)
    pz = s.add_track("Pizzicato", 4, 45, volume=100, pan=52, reverb=60)
    tr = s.add_track("Tremolo strings", 5, 44, volume=80, pan=30, reverb=72)
    solo = s.add_track("Solo violin", 6, 40, volume=96, pan=64, reverb=78)
    D, F, G = 2, 5, 7
    h = s.harmony = Harmony()
    t = h.prog(0, D, "minor", "i i bVI:2 V:2")
    tA = t
    t = h.prog(t, D, "minor", "i iv bVII bIII bVI iio:2 V:2 i V")
    tB = t
    t = h.prog(t, F, "major", "I iii IV I/3 ii7:2 V7:2 I")
    tC = t
    t = h.prog(t, G, "minor", "i:2 iv:2 bVII:2 bIII:2 bVI:2 V7:2")
    tC2 = t
    t = h.prog(t, D, "minor", "iv:2 bVI:2 bII:2 V:2 V7sus4:2 V7:2")
    tD = t
    t = h.prog(t, D, "minor", "i iv V7")
    t = h.prog(t, D, "major", "I")
    end = t
    s.ritard(tD + 4, end - 2, 66, 50, step=0.5)

    dyn = Env([(0, 48), (tA, 60), (tB - 4, 72), (tB, 62), (tC - 2, 78), (tC, 84), (tD - 4, 100),
               (tD, 70), (end, 46)])

    # Intro: cellos descend over a low pad.
    ri = rhythm(0, [((0, 2), (2, 2)), ((0, 1), (1, 1), (2, 2)), ((0, 3), (3, 1))], 4, (0, 2))
    vc_intro = gen_line(rng, ri, h, 45, 65, 62, arch(0, tA, 62, 63, 50, 0.2))
    play(vc, rng, vc_intro, lambda x: dyn(x) + 8, legato=1.05, tj=0.02)

    # A: the main theme in the cellos.
    cells = [rng.choice(SLOW44) for _ in range(3)] + [((0, 4),)]
    cells += [cells[0], rng.choice(SLOW44), rng.choice(SLOW44), ((0, 3), (3, 1))]
    ra = rhythm(tA, cells, 4, (0, 2))
    vc_theme = gen_line(rng, ra, h, 48, 69, 57, arch(tA, tA + 32, 57, 67, 59), weak_ct=0.5)
    play(vc, rng, vc_theme, lambda x: dyn(x) + 12, legato=1.05, tj=0.02)
    prev = string_pad(vla, rng, h, 0, tB, 50, 70, 4, lambda x: dyn(x) - 4, restrike=None)
    string_pad(vln, rng, h, tA + 16, tB, 69, 81, 2, lambda x: dyn(x) - 10)
    for s0, s1, ch, _sc in h.spans_in(0, tC):
        r = near(ch.bass, 38, 28, 43)
        cb.note(s0, (s1 - s0) / 2 + 0.05, r, dyn(s0) + 4)
        alt = r if rng.random() < 0.5 else near((ch.root + 7) % 12, r, 28, 45)
        cb.note(s0 + (s1 - s0) / 2, (s1 - s0) / 2 + 0.05, alt, dyn(s0) - 2)

    # B (F major): pizzicato ostinato, a new violin melody, cello counterline.
    pat = [0, 2, 1, 3, 2, 4, 3, 1]
    for s0, s1, ch, _sc in h.spans_in(tB, tC):
        lad = ladder(ch, 55, 76)
        k = 0
        x = s0
        while x < s1 - 1e-6:
            if k % 8 == 6 and rng.random() < 0.35:
                pat[rng.randrange(8)] = rng.randrange(6)
            pz.note(x, 0.4, lad[pat[k % 8] % len(lad)], dyn(x) + (10 if k % 2 == 0 else 0) + jitter(rng, 5))
            x += 0.5
            k += 1
    cells_b = [rng.choice(SLOW44) for _ in range(2)] + [((0, 4),)]
    cells_b += [rng.choice(SLOW44), rng.choice(SLOW44), ((0, 4),)]
    rb = rhythm(tB, cells_b, 4, (0, 2))
    vln_b = gen_line(rng, rb, h, 69, 88, 77, arch(tB, tC, 72, 84, 77))
    play(vln, rng, vln_b, lambda x: dyn(x) + 10, legato=1.05, tj=0.02)
    rcb = rhythm(tB, [((0, 1), (1, 1), (2, 1), (3, 1))] * 6, 4, (0, 2))
    vc_b = gen_line(rng, rcb, h, 43, 60, 53, arch(tB, tC, 53, 58, 48), weak_ct=0.2)
    play(vc, rng, vc_b, lambda x: dyn(x) - 2, legato=0.9, tj=0.015)
    string_pad(vla, rng, h, tB, tC, 57, 72, 3, lambda x: dyn(x) - 16, prev=prev)

    # C: the cello theme returns high in the violins, over tremolo and a
    # rising bass; first in G minor, then back towards D.
    cells_c = list(cells[:6])
    cells_c[2] = rng.choice(SLOW44)
    rc = rhythm(tC, cells_c, 4, (0, 2))
    tgt = lambda x: follow(vc_theme, tC - tA, 17)(x) if x < tC2 else follow(vc_theme, tC - tA, 12)(x)
    vln_c = gen_line(rng, rc, h, 67, 91, vc_theme[0][2] + 17, tgt, pull=3.0)
    play(vln, rng, vln_c, lambda x: dyn(x) + 12, legato=1.05, tj=0.015)
    vln.ramp(11, tC, tD, 100, 127, 0.5)
    vln.ramp(11, tD, tD + 1, 127, 110, 0.25)
    pv = None
    for s0, s1, ch, _sc in h.spans_in(tC, tD):
        pv = voicing(ch.tones, pv, 55, 74, 3)
        for p in pv:
            tr.note(s0, s1 - s0 + 0.03, p, dyn(s0) - 8 + jitter(rng, 3))
        r = near(ch.bass, 40, 36, 50)
        for k in range(int(s1 - s0)):
            vc.note(s0 + k, 0.95, r if k % 2 == 0 else r + (7 if r + 7 <= 55 else -5), dyn(s0) + 2)
        cb.note(s0, s1 - s0 + 0.03, r - 12, dyn(s0) + 6)
    prev = string_pad(vla, rng, h, tC, tD, 55, 72, 3, lambda x: dyn(x) - 10, prev=prev)

    # Coda: fading chords, a solo violin line resolving to D major.
    string_pad(vla, rng, h, tD, end, 50, 70, 4, lambda x: dyn(x), prev=prev)
    for s0, s1, ch, _sc in h.spans_in(tD, end):
        r = near(ch.bass, 38, 26, 41)
        cb.note(s0, s1 - s0 + (2 if s1 >= end else 0.05), r, dyn(s0) + 6)
        vc.note(s0, s1 - s0 + (2 if s1 >= end else 0.05), r + 12, dyn(s0) + 2)
    rs = rhythm(tD, [((0, 2), (2, 2)), ((0, 1), (1, 1), (2, 2)), ((0, 3), (3, 1)), ((0, 4),)], 4, (0, 2))
    so = gen_line(rng, rs, h, 74, 90, 81, arch(tD, end, 81, 86, 78), end_pcs={6})
    so[-1] = (so[-1][0], 6.0, so[-1][2])
    play(solo, rng, so, lambda x: dyn(x) + 16, legato=1.04, tj=0.015)
    vla.note(end - 4, 6, 74, 50)
    vla.note(end - 4, 6, 69, 48)
    swells(vla, h, 0, end, 88, 118)
    swells(vc, h, tB, tC, 90, 112)
    vc.ramp(11, tC, end, 112, 100, 1)
    return s


# ---------------------------------------------------------------------------
# 3. Lamplight Basement Blues -- organ, bass, drums; F (and A-flat) blues, swing
# ---------------------------------------------------------------------------

BLUES1 = "I7 IV7 I7 v7:2 I7:2 IV7 #ivo7 I7 VI7 ii7 V7 I7:2 VI7:2 ii7:2 V7:2"
BLUES2 = ("Imaj7 viih7:2 III7:2 vi7:2 II7:2 v7:2 I7:2 IV7 iv7:2 bVII7:2 iii7 biii7:2 bVI7:2 "
          "ii7 V7 iii7:2 VI7:2 ii7:2 V7:2")
BLUES3 = "I7 IV7 I7 v7:2 I7:2 IV7 IV7 iii7 VI7 ii7 bII7 I7:2 VI7:2 ii7:2 bII7:2"


def without_last_bar(spec):
    return " ".join(spec.split()[:-2])


def shell(ch):
    r = ch.root
    q = ch.quality

    def pc(i):
        return (r + i) % 12
    if q in ("7", "9", "13"):
        return [pc(4), pc(10), pc(2), pc(9)]
    if q in ("m7", "m9", "m11"):
        return [pc(3), pc(10), pc(2), pc(7)]
    if q in ("maj7", "maj9", "6", "69"):
        return [pc(4), pc(11), pc(2), pc(9)]
    if q == "m7b5":
        return [pc(3), pc(6), pc(10), pc(0)]
    return list(ch.tones)


COMP = [
    [(0, 1.2)], [(0.5, 0.8), (2.5, 0.5)], [(1.5, 0.4), (3, 0.9)], [(0, 0.5), (1.5, 1.2)],
    [(2, 1.5)], [(1, 0.6), (3.5, 0.6)], [(0.5, 1.5), (3.5, 0.4)], [(0, 0.4), (2.5, 1.0)],
]


def organ_comp(track, rng, harm, t0, t1, vel, density=1.0):
    prev = None
    bar = t0
    while bar < t1 - 1e-6:
        if rng.random() < density:
            for o, d in rng.choice(COMP):
                x = bar + swing(o)
                if x >= t1 - 0.2:
                    continue
                ch, _sc = harm.at(x + 0.4)
                prev = voicing(shell(ch), prev, 52, 74, 4)
                for p in prev:
                    track.note(x + jitter(rng, 0.01), d, p, vel(x) + jitter(rng, 6))
        bar += 4


def walking_bass(track, rng, harm, t0, t1, vel, two_feel=False):
    prev = 41
    b = t0
    while b < t1 - 1e-6:
        s0, s1, ch, sc = harm.span_at(b)
        nxt = harm.next_chord(b)
        pos = b - s0
        if two_feel:
            if abs(pos) < 1e-6 or abs(pos - 2) < 1e-6:
                if abs(pos) < 1e-6:
                    p = near(ch.bass, prev, 29, 48)
                else:
                    p = near((ch.root + 7) % 12, prev, 29, 50)
                track.note(b, 1.8, p, vel(b) + jitter(rng, 4))
                if rng.random() < 0.3:
                    track.note(b + 1 + 2.0 / 3.0, 0.3, p + rng.choice((-1, 1, 2)), vel(b) - 14)
                prev = p
            b += 1
            continue
        if abs(pos) < 1e-6:
            p = near(ch.bass, prev, 28, 50)
        elif s1 - b <= 1 + 1e-6:
            r = near(nxt.bass if nxt else ch.root, prev, 29, 50)
            p = r + rng.choice((1, -1, -1, 2 if (r + 2) % 12 in sc else -1))
        else:
            cand = [q for q in pool_for(sc, ch, 28, 52) if 1 <= abs(q - prev) <= 5]
            ws = [(2.5 if q % 12 in ch.pcs else 1.0) for q in cand]
            p = pick(rng, cand, ws) if cand else prev
        track.note(b, 0.92, p, vel(b) + (6 if abs(pos) < 1e-6 else 0) + jitter(rng, 5))
        prev = p
        b += 1


def solo_lines(track, rng, harm, t0, t1, lo, hi, vel, density, blue=None):
    """Swung eighth-note phrases over chord scales, separated by breaths."""
    x = t0  # straight-eighth grid position, in beats
    cur = (lo + hi) // 2
    centre = Env([(t0, lo + 8), (t0 + (t1 - t0) * 0.7, hi - 5), (t1, lo + 10)])
    while x < t1 - 1.5:
        x += rng.choice((0.0, 0.5, 0.5, 1.0, 1.5)) / density
        x = int(x * 2 + 0.5) / 2.0  # back onto the eighth-note grid
        n = rng.randint(5, 13)
        rh = []
        y = x
        for _ in range(n):
            if y >= t1 - 0.5:
                break
            step = 0.5
            if rng.random() < 0.12:
                step = 1.0
            strong = abs(y - int(y)) < 1e-6
            rh.append((swing(y), (0.62 if strong else 0.32) if step == 0.5 else 0.9, strong))
            y += step
        if not rh:
            break
        rh[-1] = (rh[-1][0], 0.9 + rng.random() * 0.6, rh[-1][2])
        extra = blue if blue is not None else ()
        line = gen_line(rng, rh, harm, lo, hi, cur, centre, pull=6.0, weak_ct=0.2, extra=extra)
        for t, d, p in line:
            offbeat = abs(t - int(t)) > 0.1
            track.note(t + jitter(rng, 0.01), d, p, vel(t) + (6 if offbeat else 0) + jitter(rng, 6))
        cur = line[-1][2]
        x = y + rng.choice((0.5, 1.0, 1.5, 2.0, 2.5))


RIDE = [
    ((0, 68), (1, 80), (1 + 2 / 3.0, 54), (2, 70), (3, 82), (3 + 2 / 3.0, 56)),
    ((0, 70), (1, 80), (2, 70), (3, 82), (3 + 2 / 3.0, 56)),
    ((0, 68), (1, 80), (1 + 2 / 3.0, 54), (2, 70), (2 + 2 / 3.0, 50), (3, 82)),
    ((0, 72), (2 / 3.0, 50), (1, 80), (2, 70), (3, 82), (3 + 2 / 3.0, 58)),
    ((0, 68), (1, 80), (1 + 1 / 3.0, 44), (1 + 2 / 3.0, 54), (2, 70), (3, 82), (3 + 2 / 3.0, 56)),
]


def jazz_drums(dr, rng, t0, t1, vel, style, fill_last=True, crash_first=True):
    bar = t0
    while bar < t1 - 1e-6:
        last = bar + 4 >= t1 - 1e-6
        if style == "hat":
            for o, v in ((0, 50), (1, 66), (1 + 2 / 3.0, 44), (2, 52), (3, 68), (3 + 2 / 3.0, 46)):
                dr.note(bar + o, 0.2, 42, vel(bar) * v / 70.0 + jitter(rng, 5))
            dr.note(bar + 1, 0.2, 37 if rng.random() < 0.3 else 44, vel(bar) * 0.7)
            dr.note(bar + 3, 0.2, 44, vel(bar) * 0.7)
        else:
            ride = pick(rng, RIDE, (6, 2, 2, 1, 1))
            for o, v in ride:
                if rng.random() < 0.08 and o > 0:
                    continue
                dr.note(bar + o, 0.3, 53 if rng.random() < 0.06 else 51, vel(bar) * v / 75.0 + jitter(rng, 6))
            for beat in ((1, 3) if rng.random() < 0.8 else (0, 1, 2, 3)):
                dr.note(bar + beat, 0.2, 44, vel(bar) * (0.75 if beat % 2 else 0.55))
            if style == "ride+":
                for beat in range(4):
                    dr.note(bar + beat, 0.2, 36, 30 + jitter(rng, 5))
            for _ in range(rng.choice((0, 1, 1, 2, 3) if style == "ride+" else (0, 1, 1))):
                o = swing(rng.randrange(8) * 0.5)
                dr.note(bar + o, 0.2, 38, vel(bar) * 0.75 + jitter(rng, 14))
            if rng.random() < 0.15:
                dr.note(bar + swing(rng.randrange(8) * 0.5), 0.2, 36, vel(bar) * 0.9)
        if last and fill_last:
            for k in range(6):
                o = 2 + k / 3.0
                dr.note(bar + o, 0.2, rng.choice((38, 38, 47, 45)), vel(bar) * (0.7 + k * 0.06) + jitter(rng, 6))
        bar += 4
    if crash_first:
        dr.note(t0, 1.0, 49, vel(t0) * 1.1)
        dr.note(t0, 0.5, 36, vel(t0) * 0.9)


def piece_jazz(rng):
    s = Song("lamplight-organ-trio", "Lamplight Basement Blues", 138, 4, 4, key_sf=-1)
    lead = s.add_track("Organ lead", 0, 17, volume=92, pan=72, reverb=34, chorus=24)
    comp = s.add_track("Organ comping", 1, 16, volume=82, pan=52, reverb=34, chorus=24)
    bass = s.add_track("Acoustic bass", 2, 32, volume=112, pan=60, reverb=24)
    dr = s.add_track("Drums", DRUMS, 32, volume=100, pan=64, reverb=30)
    F, AB = 5, 8
    h = s.harmony = Harmony()
    t = h.prog(0, F, "major", "ii7:2 V7:2 ii7:2 V7:2 iii7:2 VI7:2 ii7:2 V7:2", scales="chord")
    tH = t
    t = h.prog(t, F, "major", BLUES1, scales="chord")
    tS1 = t
    t = h.prog(t, F, "major", without_last_bar(BLUES2), scales="chord")
    t = h.prog(t, AB, "major", "ii7:2 V7:2", scales="chord")
    tS2 = t
    t = h.prog(t, AB, "major", without_last_bar(BLUES1), scales="chord")
    t = h.prog(t, F, "major", "ii7:2 V7:2", scales="chord")
    tO = t
    t = h.prog(t, F, "major", BLUES3, scales="chord")
    tT = t
    t = h.prog(t, F, "major", "iii7:2 biii7:2 ii7:2 bII7:2 iii7:2 biii7:2 ii7:2 bII7:2", scales="chord")
    tE = t
    t = h.prog(t, F, "major", "Imaj9:8", scales="chord")
    end = t
    s.tempo(tE, 120)

    dyn = Env([(0, 66), (tH, 74), (tS1, 76), (tS2, 84), (tO - 4, 90), (tO, 80), (tT, 84), (end, 80)])

    class BluesHarm:
        """Head melody: the key's blues scale plus the chord tones."""

        def __init__(self, tonic):
            self.sc = scale_pcs(tonic, "blues")

        def at(self, x):
            ch, _ = h.at(x)
            return ch, self.sc

    bh = BluesHarm(F)
    # Head: a two-bar riff (bars 1-2), restated with small changes (3-4, 5-6),
    # then a four-bar answer.
    onsets = sorted(rng.sample(range(14), rng.randint(6, 8)))
    if 0 not in onsets and 1 not in onsets:
        onsets[0] = 1
    riff_r = []
    for i, o in enumerate(onsets):
        nxt = onsets[i + 1] if i + 1 < len(onsets) else 16
        d = min(2.0, (nxt - o) * 0.5)
        riff_r.append((o * 0.5, d, o % 2 == 0))

    def head(t0, octave, pull):
        out = []
        base = None
        for shift in (0, 8, 16):
            r = [(t0 + shift + swing(o), min(d, 1.5) if d > 0.5 else (0.62 if st else 0.32), st)
                 for o, d, st in riff_r]
            if base is None:
                line = gen_line(rng, r, bh, 60 + octave, 80 + octave, 67 + octave,
                                arch(t0, t0 + 8, 65 + octave, 74 + octave, 68 + octave),
                                clash=False, strong_ct=False)
                base = line
            else:
                line = gen_line(rng, r, bh, 60 + octave, 80 + octave, base[0][2],
                                follow(base, shift, 0), pull=pull, clash=False, strong_ct=False)
            out += line
        cells = [((0, 0.5), (0.5, 0.5), (1, 1), (2, 0.5), (2.5, 1.5)),
                 rng.choice(CELLS44), rng.choice(CELLS44), ((0, 1.5), (1.5, 2.5))]
        ra = [(t0 + 32 + int(x // 4) * 4 + swing(x - int(x // 4) * 4), d, st)
              for x, d, st in rhythm(0, cells, 4, (0, 2))]
        out += gen_line(rng, ra, bh, 60 + octave, 84 + octave, out[-1][2],
                        arch(t0 + 32, t0 + 48, 70 + octave, 77 + octave, 65 + octave), end_pcs={F})
        return out

    h1 = head(tH, 0, 1.6)
    play(lead, rng, h1, lambda x: dyn(x) + 6, tj=0.01, strong_bar=0)
    h2 = head(tO, 5, 2.2)
    play(lead, rng, h2, lambda x: dyn(x) + 8, tj=0.01, strong_bar=0)

    solo_lines(lead, rng, h, tS1, tS2, 60, 82, dyn, 1.0, blue=[(F + 3) % 12])
    solo_lines(lead, rng, h, tS2, tO - 1, 63, 87, dyn, 1.6, blue=[(AB + 3) % 12])
    # Tag: chromatic descending thirds, then a final run up the F major 9 chord.
    for k, x in enumerate(range(int(tT), int(tE), 2)):
        ch, _ = h.at(x)
        v = voicing(shell(ch)[:2], None, 64 + (k % 4), 80, 2)
        for p in v:
            lead.note(x + (2 / 3.0 if k % 2 else 0), 1.2, p, dyn(x) + jitter(rng, 4))
    run = [65, 69, 72, 76, 79, 81, 84]
    for k, p in enumerate(run):
        lead.note(tE - 1 + k / 6.0, 0.2 if k < len(run) - 1 else 7.5, p, 84 + k * 2)

    organ_comp(comp, rng, h, 0, tH, lambda x: dyn(x) - 6, density=0.9)
    organ_comp(comp, rng, h, tH, tS1, lambda x: dyn(x) - 10, density=0.6)
    organ_comp(comp, rng, h, tS1, tO, lambda x: dyn(x) - 6, density=0.95)
    organ_comp(comp, rng, h, tO, tT, lambda x: dyn(x) - 10, density=0.7)
    for x in range(int(tT), int(tE), 2):
        ch, _ = h.at(x)
        for p in voicing(shell(ch), None, 50, 64, 3):
            comp.note(x + 2 / 3.0, 1.0, p, dyn(x) - 12)
    for p in voicing(shell(h.at(tE)[0]), None, 52, 72, 4):
        comp.note(tE, 8, p, 76)

    walking_bass(bass, rng, h, 0, tH, lambda x: dyn(x) + 14)
    walking_bass(bass, rng, h, tH, tS1, lambda x: dyn(x) + 16, two_feel=True)
    walking_bass(bass, rng, h, tS1, tO, lambda x: dyn(x) + 14)
    walking_bass(bass, rng, h, tO, tE, lambda x: dyn(x) + 14)
    bass.note(tE, 8, 29, 100)

    dvel = lambda x: dyn(x) - 4
    jazz_drums(dr, rng, 0, tH, dvel, "hat", crash_first=False)
    jazz_drums(dr, rng, tH, tS1, dvel, "ride")
    jazz_drums(dr, rng, tS1, tS2, dvel, "ride+")
    jazz_drums(dr, rng, tS2, tO, dvel, "ride+")
    jazz_drums(dr, rng, tO, tT, dvel, "ride")
    jazz_drums(dr, rng, tT, tE, dvel, "ride+")
    dr.note(tE, 4, 49, 100)
    dr.note(tE, 4, 57, 90)
    dr.note(tE, 1, 36, 96)
    return s


# ---------------------------------------------------------------------------
# 4. Tidepool Clockwork -- marimba and vibraphone minimalism, A lydian, 144 bpm
# ---------------------------------------------------------------------------

def mallet_process(song, rng, h, sections, end, dyn, tracks, ranges):
    """Pulse-based process music.

    m1: an eight-slot ostinato on the chord's tones, mutated a little every bar;
    m2: a shorter cycle (5 or 7 eighths) phasing against the bar, growing note by note;
    vib: chords restruck every two bars, plus a slow melody in some sections;
    bass: roots on section-specific offsets; glock: sparse sparkle."""
    m1, m2, vib, bass, glock = tracks
    pat1 = [0, 2, 1, 3, None, 2, 4, 1]
    prev_v = None
    prev_b = 45
    eighth = 0
    for si, sec in enumerate(sections):
        t0 = sec["start"]
        t1 = sections[si + 1]["start"] if si + 1 < len(sections) else end
        L = sec["cycle"]
        pat2 = [rng.randrange(7) for _ in range(L)]
        active = [False] * L
        for k in rng.sample(range(L), 2):
            active[k] = True
        accents = set(rng.sample(range(8), 3))
        bar = t0
        nbar = 0
        while bar < t1 - 1e-6:
            ch, _sc = h.at(bar)
            lad1 = ladder(ch, ranges["m1"][0], ranges["m1"][1])
            lad2 = ladder(ch, ranges["m2"][0], ranges["m2"][1])
            # gradual process: one small change per bar (most bars)
            if rng.random() < 0.7:
                k = rng.randrange(8)
                if pat1[k] is None:
                    pat1[k] = rng.randrange(len(lad1))
                elif sum(1 for v in pat1 if v is None) < 2 and rng.random() < 0.3:
                    pat1[k] = None
                else:
                    pat1[k] = max(0, pat1[k] + rng.choice((-2, -1, 1, 2)))
            if nbar % 2 == 1 and not all(active):
                active[rng.choice([i for i in range(L) if not active[i]])] = True
            if nbar % 3 == 2:
                pat2[rng.randrange(L)] = rng.randrange(7)
            for k in range(8):
                x = bar + k * 0.5
                if x >= t1 - 1e-6:
                    break
                v = dyn(x)
                if pat1[k] is not None:
                    m1.note(x, 0.45, lad1[pat1[k] % len(lad1)],
                            v + (10 if k in accents else 0) + jitter(rng, 5))
                slot = eighth % L
                if active[slot] and sec.get("m2", True):
                    m2.note(x, 0.45, lad2[pat2[slot] % len(lad2)],
                            v - 6 + (8 if slot == 0 else 0) + jitter(rng, 5))
                if sec.get("glock") and rng.random() < 0.12:
                    glock.note(x, 0.5, rng.choice(ladder(ch, 84, 98)), v - 14 + jitter(rng, 6))
                eighth += 1
            for o in sec["bass"]:
                if bar + o < t1 - 1e-6:
                    p = near(ch.bass, prev_b, 33, 50) if o == sec["bass"][0] else \
                        near(rng.choice((ch.bass, (ch.root + 7) % 12)), prev_b, 33, 52)
                    bass.note(bar + o, 1.0, p, dyn(bar) + 4 + jitter(rng, 4))
                    prev_b = p
            if nbar % 2 == 0:
                prev_v = voicing(ch.tones, prev_v if nbar % 4 == 0 else None, 57, 76, 4)
                for i, p in enumerate(prev_v):
                    vib.note(bar + i * 0.03, 7.5, p, dyn(bar) - 18 + jitter(rng, 4))
            bar += 4
            nbar += 1
        if sec.get("melody"):
            rr = []
            x = t0 + 2
            while x < t1 - 4:
                d = rng.choice((2.0, 3.0, 4.0, 1.5))
                rr.append((x, d, True))
                x += d + rng.choice((0.0, 0.0, 1.0, 2.0))
            if rr:
                mel = gen_line(rng, rr, h, ranges["mel"][0], ranges["mel"][1], ranges["mel"][0] + 8,
                               arch(t0, t1, ranges["mel"][0] + 5, ranges["mel"][1] - 3, ranges["mel"][0] + 7),
                               strong_ct=False, weak_ct=1.5)
                play(vib, rng, mel, lambda x: dyn(x) - 2, strong_bar=0)


def piece_mallets(rng):
    s = Song("tidepool-clockwork-mallets", "Tidepool Clockwork", 144, 4, 4, key_sf=3)
    m1 = s.add_track("Marimba I", 0, 12, volume=104, pan=38, reverb=40)
    m2 = s.add_track("Marimba II", 1, 12, volume=98, pan=92, reverb=40)
    vib = s.add_track("Vibraphone", 2, 11, volume=92, pan=64, reverb=60)
    bass = s.add_track("Bass marimba", 3, 12, volume=110, pan=64, reverb=35)
    glock = s.add_track("Glockenspiel", 4, 9, volume=70, pan=80, reverb=60)
    A, C, E = 9, 0, 4
    h = s.harmony = Harmony()
    t = h.prog(0, A, "lydian", "Iadd9:16 II:12 vi7:12 iii7:12 Imaj7:12")
    t2 = t
    t = h.prog(t, C, "lydian", "Imaj7:12 II:12 vi7:8 iii7:12 IIadd9:12")
    t3 = t
    t = h.prog(t, E, "major", "IVmaj7:12 V:8 vi7:12 Isus2:12 IV:12")
    t4 = t
    t = h.prog(t, A, "lydian", "Iadd9:12 vi7:12 II:12 iii7:8 II:8 Imaj7:12")
    end = t
    sections = [
        {"start": 0, "cycle": 7, "bass": [0], "melody": False},
        {"start": t2, "cycle": 5, "bass": [0, 2.5], "melody": True},
        {"start": t3, "cycle": 7, "bass": [0, 1.5, 3], "melody": False, "glock": True},
        {"start": t4, "cycle": 9, "bass": [0, 2.5, 3.5], "melody": True},
    ]
    dyn = Env([(0, 58), (t2, 68), (t3, 76), (t3 + 24, 84), (t4, 74), (t4 + 32, 80), (end - 8, 66), (end, 56)])
    mallet_process(s, rng, h, sections, end - 4, dyn, (m1, m2, vib, bass, glock),
                   {"m1": (64, 83), "m2": (72, 91), "mel": (72, 88)})
    # Final chord.
    for i, p in enumerate([45, 57, 64, 68, 71, 76, 80]):
        (bass if p < 50 else m1).note(end - 4 + i * 0.05, 8, p, 70 - i * 2)
    for p in (69, 73, 76, 80):
        vib.note(end - 4, 6, p, 58)
    return s


# ---------------------------------------------------------------------------
# 5. Banners over the Summit -- brass fanfare and march, B-flat to C major
# ---------------------------------------------------------------------------

MARCH = [
    ((0, 0.75), (0.75, 0.25), (1, 1), (2, 1), (3, 1)),
    ((0, 1), (1, 0.75), (1.75, 0.25), (2, 2)),
    ((0, 0.5), (0.5, 0.5), (1, 0.5), (1.5, 0.5), (2, 1), (3, 1)),
    ((0, 1.5), (1.5, 0.5), (2, 1.5), (3.5, 0.5)),
    ((0, 1), (1, 1), (2, 0.75), (2.75, 0.25), (3, 1)),
    ((0, 2), (2, 0.75), (2.75, 0.25), (3, 1)),
]
LONGM = [((0, 3), (3, 1)), ((0, 2), (2, 2)), ((0, 4),)]
CALL = ((0, 1 / 3.0), (1 / 3.0, 1 / 3.0), (2 / 3.0, 1 / 3.0), (1, 1.5), (2.5, 0.5), (3, 1))


def timp_roll(track, t0, t1, pitch, v0, v1, step=1 / 6.0):
    n = int(round((t1 - t0) / step))
    for k in range(n):
        track.note(t0 + k * step, step, pitch, v0 + (v1 - v0) * k / max(1, n - 1))


def piece_brass(rng):
    s = Song("summit-banners-brass", "Banners over the Summit", 104, 4, 4, key_sf=-2)
    tp1 = s.add_track("Trumpet I", 0, 56, volume=100, pan=48, reverb=50)
    tp2 = s.add_track("Trumpet II", 1, 56, volume=92, pan=40, reverb=50)
    hn = s.add_track("French horns", 2, 60, volume=104, pan=70, reverb=60)
    tb = s.add_track("Trombones", 3, 57, volume=100, pan=84, reverb=50)
    tu = s.add_track("Tuba", 4, 58, volume=106, pan=72, reverb=45)
    ti = s.add_track("Timpani", 5, 47, volume=104, pan=64, reverb=60)
    mt = s.add_track("Muted trumpet", 6, 59, volume=88, pan=30, reverb=60)
    pc = s.add_track("Percussion", DRUMS, 48, volume=90, pan=64, reverb=50)
    BB, G, C = 10, 7, 0
    h = s.harmony = Harmony()
    t = h.prog(0, BB, "major", "I IV:2 I:2 bVI:2 bVII:2 V")
    tA = t
    t = h.prog(t, BB, "major", "I IV I V I vi ii:2 V7:2 I")
    tA2 = t
    t = h.prog(t, BB, "major", "I iii IV I/5 vi ii V7 I")
    tB = t
    t = h.prog(t, G, "minor", "i iv bVII bIII bVI iio:2 V7:2 i I7")
    tA3 = t
    t = h.prog(t, C, "major", "I IV I V I vi ii:2 V7:2 I")
    tK = t
    t = h.prog(t, C, "major", "IV:2 V:2 vi:2 IV:2 ii7:2 V7:2 bVI:2 bVII:2 I I I")
    end = t
    s.ritard(end - 16, end - 8, 104, 84, step=0.5)
    s.tempo(end - 8, 80)

    dyn = Env([(0, 84), (tA, 80), (tA2, 74), (tB, 62), (tB + 16, 70), (tA3 - 2, 84), (tA3, 94),
               (tK, 90), (end, 104)])

    # Fanfare call: trumpets in chord tones, horns answer.
    call = gen_line(rng, [(x, d, True) for x, d in CALL], h, 65, 82, 70, arch(0, 4, 70, 77, 74))
    call2 = gen_line(rng, [(8 + x, d, True) for x, d in CALL], h, 65, 84, call[-1][2],
                     follow(call, 8, 3), pull=2.0)
    play(tp1, rng, call + call2, lambda x: dyn(x) + 10)
    play(tp2, rng, [(a, b, below(p, h.at(a)[0], h.at(a)[1], 58, True) or p - 5) for a, b, p in call + call2],
         lambda x: dyn(x))
    ans = gen_line(rng, [(4 + x, d, True) for x, d in CALL[:4]] + [(6.5, 1.5, True)], h, 53, 70, 58,
                   follow(call, 4, -12), pull=2.0)
    play(hn, rng, ans, lambda x: dyn(x) + 8)
    timp_roll(ti, 0, 3, 46, 50, 96)
    ti.note(3, 1, 46, 104)
    ti.note(12, 1, 41, 100)
    ti.note(14, 1, 41, 96)
    ti.note(15, 1, 41, 104)
    for s0, s1, ch, _sc in h.spans_in(4, tA):
        v = voicing(ch.tones, None, 50, 67, 3)
        for p in v:
            tb.note(s0, s1 - s0, p, dyn(s0))
        tu.note(s0, s1 - s0, near(ch.bass, 34, 28, 41), dyn(s0) + 6)

    # Theme A (trumpet) over an oom-pah accompaniment.
    c = [rng.choice(MARCH) for _ in range(3)]
    cells = [c[0], c[1], c[2], rng.choice(LONGM), c[0], rng.choice(MARCH), rng.choice(MARCH), ((0, 4),)]
    ra = rhythm(tA, cells, 4, (0, 2))
    theme = gen_line(rng, ra, h, 65, 84, 70, arch(tA, tA2, 70, 81, 70), end_pcs={BB})
    play(tp1, rng, theme, lambda x: dyn(x) + 10, legato=0.9)

    def oompah(t0, t1, vel, tuba_lo=28, tuba_hi=43):
        prev = None
        pb = 34
        for s0, s1, ch, _sc in h.spans_in(t0, t1):
            prev = voicing(ch.tones, prev, 53, 68, 3)
            x = s0
            k = 0
            while x < s1 - 1e-6:
                if k % 2 == 0:
                    p = near(ch.bass if k % 4 == 0 else (ch.root + 7) % 12, pb, tuba_lo, tuba_hi)
                    tu.note(x, 0.8, p, vel(x) + 6)
                    pb = p
                else:
                    for q in prev:
                        (hn if q >= 60 else tb).note(x, 0.45, q, vel(x) - 6 + jitter(rng, 3))
                x += 1
                k += 1

    oompah(tA, tA2, dyn)

    def snare(t0, t1, vel, busy):
        pats = [[0, 1, 2, 3], [0, 1, 1.5, 2, 3], [0, 0.75, 1, 2, 2.5, 2.75, 3], [0, 2, 3, 3.5]]
        bar = t0
        while bar < t1 - 1e-6:
            for o in rng.choice(pats[:2] if not busy else pats):
                pc.note(bar + o, 0.2, 38, vel(bar) * (0.75 if o else 0.9) + jitter(rng, 5))
            pc.note(bar, 0.5, 35, vel(bar) * 0.8)
            pc.note(bar + 2, 0.5, 35, vel(bar) * 0.7)
            bar += 4
        pc.note(t0, 2, 49, vel(t0) + 6)

    snare(tA, tA2, lambda x: dyn(x) - 18, False)

    # A': horns take the tune, trumpets add a high counter-line, new harmony.
    cells2 = list(cells)
    cells2[1] = rng.choice(MARCH)
    cells2[5] = rng.choice(MARCH)
    r = rhythm(tA2, cells2, 4, (0, 2))
    hn_theme = gen_line(rng, r, h, 53, 74, theme[0][2] - 12, follow(theme, tA2 - tA, -12), pull=3.0,
                        end_pcs={BB})
    play(hn, rng, hn_theme, lambda x: dyn(x) + 14, legato=0.95)
    rc = rhythm(tA2, [rng.choice(LONGM + [((0, 1), (1, 1), (2, 2))]) for _ in range(8)], 4, (0, 2))
    counter = gen_line(rng, rc, h, 70, 86, 77, arch(tA2, tB, 74, 84, 77))
    play(tp1, rng, counter, lambda x: dyn(x) - 2)
    prev = None
    for s0, s1, ch, _sc in h.spans_in(tA2, tB):
        prev = voicing(ch.tones, prev, 48, 62, 3)
        for p in prev:
            tb.note(s0, s1 - s0, p, dyn(s0) - 8)
        tu.note(s0, 2, near(ch.bass, 34, 28, 41), dyn(s0))
        tu.note(s0 + 2, 2, near((ch.root + 7) % 12, 34, 28, 43), dyn(s0) - 6)
    snare(tA2, tB, lambda x: dyn(x) - 24, False)

    # B (G minor): trombone chorale, horn pads, muted trumpet echoes, soft timpani.
    cells_b = [rng.choice(LONGM + [((0, 2), (2, 1), (3, 1))]) for _ in range(8)]
    rb = rhythm(tB, cells_b, 4, (0, 2))
    tb_line = gen_line(rng, rb, h, 50, 67, 58, arch(tB, tA3, 55, 64, 55))
    play(tb, rng, tb_line, lambda x: dyn(x) + 12, legato=1.0)
    prev = string_pad(hn, rng, h, tB, tA3, 55, 70, 3, lambda x: dyn(x) - 4)
    for s0, s1, ch, _sc in h.spans_in(tB, tA3):
        tu.note(s0, s1 - s0, near(ch.bass, 33, 28, 43), dyn(s0) + 2)
    for k in (2, 3, 6):
        x0 = tB + k * 4
        rr = rhythm(x0, [((0.5, 0.5), (1, 0.5), (1.5, 0.5), (2, 1), (3, 1))], 4, (0, 2))
        echo = gen_line(rng, rr, h, 67, 82, 74, 75 + k)
        play(mt, rng, echo, lambda x: dyn(x) + 4)
    timp_roll(ti, tB, tB + 4, 43, 40, 60)
    timp_roll(ti, tB + 24, tB + 28, 43, 44, 72)
    timp_roll(ti, tA3 - 4, tA3, 43, 60, 100)

    # A'' (C major): the theme a step higher, harmonised in thirds.
    cells3 = list(cells)
    cells3[2] = rng.choice(MARCH)
    cells3[6] = rng.choice(MARCH)
    r = rhythm(tA3, cells3, 4, (0, 2))
    th3 = gen_line(rng, r, h, 67, 86, theme[0][2] + 2, follow(theme, tA3 - tA, 2), pull=2.5,
                   end_pcs={C})
    play(tp1, rng, th3, lambda x: dyn(x) + 10, legato=0.9)
    harm3 = []
    for a, b, p in th3:
        ch, sc = h.at(a)
        q = below(p, ch, sc, 58, abs(a - int(a)) < 1e-6)
        if q:
            harm3.append((a, b, q))
    play(tp2, rng, harm3, lambda x: dyn(x) + 2, legato=0.9)
    oompah(tA3, tK, dyn)
    snare(tA3, tK, lambda x: dyn(x) - 14, True)
    for s0, s1, _ch, _sc in h.spans_in(tA3, tK):
        if rng.random() < 0.5:
            ti.note(s0, 1, 43 if h.at(s0)[0].root in (7, 2) else 36, dyn(s0))

    # Coda: the fanfare call returns in C, broadening to a held final chord.
    k_call = gen_line(rng, [(tK + x, d, True) for x, d in CALL], h, 67, 86, call[0][2] + 2,
                      follow(call, tK, 2), pull=2.0)
    k_call2 = gen_line(rng, [(tK + 4 + x, d, True) for x, d in CALL], h, 67, 88, k_call[-1][2],
                       follow(call2, tK - 4, 2), pull=2.0)
    k_call3 = gen_line(rng, rhythm(tK + 8, [((0, 1), (1, 1), (2, 1), (3, 1)), ((0, 2), (2, 1), (3, 1))],
                                   4, (0, 2)), h, 67, 86, k_call2[-1][2], 80)
    kc = k_call + k_call2 + k_call3
    play(tp1, rng, kc, lambda x: dyn(x) + 8)
    play(tp2, rng, [(a, b, below(p, h.at(a)[0], h.at(a)[1], 58, True) or p - 5) for a, b, p in kc],
         lambda x: dyn(x))
    hk = gen_line(rng, rhythm(tK, [((0, 2), (2, 2))] * 4, 4, (0, 2)), h, 53, 70, 60, 64)
    play(hn, rng, hk, lambda x: dyn(x) + 4)
    prev = None
    for s0, s1, ch, _sc in h.spans_in(tK, end - 12):
        prev = voicing(ch.tones, prev, 48, 64, 3)
        for p in prev:
            tb.note(s0, s1 - s0, p, dyn(s0) - 2)
        tu.note(s0, s1 - s0, near(ch.bass, 33, 28, 43), dyn(s0) + 4)
    fin = end - 12
    for p in (72, 76, 79, 84):
        (tp1 if p >= 79 else tp2).note(fin, 12, p, 100)
    for p in (60, 64, 67):
        hn.note(fin, 12, p, 100)
    for p in (48, 52, 55):
        tb.note(fin, 12, p, 100)
    tu.note(fin, 12, 36, 104)
    for x in (fin, fin + 1.5, fin + 2):
        mel = 79 if x == fin else 84
        tp1.note(x, 0.4, mel, 104)
    timp_roll(ti, fin, end - 1, 36, 60, 110)
    ti.note(end - 1, 1, 36, 116)
    pc.note(fin, 4, 49, 100)
    pc.note(end - 1, 4, 49, 110)
    pc.note(end - 1, 4, 57, 104)
    return s


# ---------------------------------------------------------------------------
# 6. Orchard Lantern Waltz -- nylon guitar and flute, 3/4, E minor
# ---------------------------------------------------------------------------

CELLS34 = [
    ((0, 2), (2, 1)), ((0, 1), (1, 1), (2, 1)), ((0, 1.5), (1.5, 0.5), (2, 1)),
    ((0, 0.5), (0.5, 0.5), (1, 1), (2, 1)), ((0, 1), (1, 2)), ((1, 1), (2, 1)),
    ((0, 1), (1, 0.5), (1.5, 0.5), (2, 1)),
]
LONG34 = [((0, 3),), ((0, 2), (2, 1)), ((0, 2.5), (2.5, 0.5))]


def guitar_waltz(track, rng, harm, t0, t1, vel, mode, state):
    for s0, s1, ch, _sc in harm.spans_in(t0, t1):
        bars = int(round((s1 - s0) / 3))
        for b in range(bars):
            x = s0 + 3 * b
            nb = state.get("n", 0)
            state["n"] = nb + 1
            root_or_fifth = ch.bass if nb % 2 == 0 else (ch.root + 7) % 12
            bass = near(root_or_fifth, state.get("bass", 45), 40, 52)
            state["bass"] = bass
            up = voicing(ch.tones, state.get("up"), 52, 67, 4 if mode != "arp" else 3)
            state["up"] = up
            track.note(x, 2.8 if mode != "light" else 1.5, bass, vel(x) + 8 + jitter(rng, 3), role="bass")
            if mode in ("strum", "light"):
                for beat in (1, 2):
                    if mode == "light" and beat == 2 and rng.random() < 0.5:
                        continue
                    for i, p in enumerate(up):
                        track.note(x + beat + i * 0.025, 0.9, p, vel(x) - 4 - i + jitter(rng, 4))
            elif mode == "arp":
                seq = [up[0], up[1], up[2], up[1] + 12 if up[1] + 12 <= 72 else up[2], up[2], up[1]]
                for k in range(5):
                    track.note(x + 0.5 + k * 0.5, 0.9, seq[k + 1 if k else 0], vel(x) - 6 + jitter(rng, 4))
            elif mode == "broken":
                track.note(x + 1, 1.8, up[0], vel(x) - 6)
                for k, o in enumerate((1.5, 2, 2.5)):
                    track.note(x + o, 0.6, up[(k + 1) % len(up)] + (12 if k == 1 and up[1] < 60 else 0),
                               vel(x) - 8 + jitter(rng, 4))


def piece_waltz(rng):
    s = Song("orchard-lantern-waltz", "Orchard Lantern Waltz", 144, 3, 4, key_sf=1, minor=True)
    gt = s.add_track("Nylon guitar", 0, 24, volume=108, pan=50, reverb=45)
    fl = s.add_track("Flute", 1, 73, volume=98, pan=74, reverb=55)
    g2 = s.add_track("Nylon guitar (melody)", 2, 24, volume=110, pan=82, reverb=45)
    E, G, B = 4, 7, 11
    h = s.harmony = Harmony()
    t = h.prog(0, E, "minor", "i iv i V", bar=3)
    tA = t
    t = h.prog(t, E, "minor", "i iv bVII bIII bVI iv V V7 i iv bVII bIII bVI V7 i i", bar=3)
    tB = t
    t = h.prog(t, G, "major", "I IV V I vi IV ii V7 I iii IV I/3 ii V7 I III7", bar=3)
    tA2 = t
    t = h.prog(t, E, "minor", "i iv bVII bIII bVI iv V7 i iv i bVI V7 i iv V7 i", bar=3)
    tC = t
    t = h.prog(t, B, "minor", "i iv V7 i bVI bIII bVII V7 i iv V7 I7", bar=3)
    tA3 = t
    t = h.prog(t, E, "minor", "i iv bVII bIII bVI iv V7 i iv V7", bar=3)
    t = h.prog(t, E, "major", "I I IV iv I I", bar=3)
    end = t
    s.ritard(end - 12, end - 3, 144, 104, step=1)
    s.tempo(end - 3, 96)

    dyn = Env([(0, 58), (tA, 66), (tB, 70), (tA2, 78), (tC, 72), (tC + 24, 84), (tA3, 78), (end - 12, 70),
               (end, 52)])

    def phrase_cells():
        c = [rng.choice(CELLS34) for _ in range(3)]
        return [c[0], c[1], c[2], rng.choice(LONG34), c[0], rng.choice(CELLS34), rng.choice(CELLS34),
                LONG34[0]]

    # A: flute theme (two eight-bar phrases, the second a variation).
    ca = phrase_cells()
    r1 = rhythm(tA, ca, 3)
    p1 = gen_line(rng, r1, h, 64, 86, 71, arch(tA, tA + 24, 67, 79, 71))
    ca2 = list(ca)
    ca2[2] = rng.choice(CELLS34)
    r2 = rhythm(tA + 24, ca2, 3)
    p2 = gen_line(rng, r2, h, 64, 86, p1[-1][2], follow(p1, 24, 0), pull=2.5, end_pcs={E})
    themeA = p1 + p2
    play(fl, rng, themeA, lambda x: dyn(x) + 10, legato=0.95, strong_bar=3)

    # B (G major): the melody moves to the second guitar, flute holds a descant.
    cb = phrase_cells()
    rb = rhythm(tB, cb + phrase_cells(), 3)
    gb = gen_line(rng, rb, h, 59, 79, 67, arch(tB, tA2, 64, 76, 66))
    play(g2, rng, gb, lambda x: dyn(x) + 14, legato=1.2, strong_bar=3)
    rd = rhythm(tB + 6, [((0, 3),), ((0, 2), (2, 1))] * 6 + [((0, 3),)], 3)
    desc = gen_line(rng, rd, h, 76, 91, 83, arch(tB, tA2, 81, 88, 79))
    play(fl, rng, desc, lambda x: dyn(x) - 6, legato=1.0, strong_bar=3)

    # A': the flute theme an octave up, with turns; guitar arpeggios.
    ca3 = list(ca) + list(ca2)
    for k in (1, 5, 9, 14):
        ca3[k] = rng.choice(CELLS34)
    r3 = rhythm(tA2, ca3, 3)
    p3 = gen_line(rng, r3, h, 74, 93, themeA[0][2] + 12, follow(themeA, tA2 - tA, 12), pull=2.5,
                  end_pcs={E})
    p3 = ornament_turns(rng, p3, h, 74, 93, 0.6)
    play(fl, rng, p3, lambda x: dyn(x) + 8, legato=0.95, strong_bar=3)

    # C (B minor): a new tune, guitar and flute alternating two-bar phrases.
    rc = rhythm(tC, [rng.choice(CELLS34) for _ in range(11)] + [LONG34[0]], 3)
    mc = gen_line(rng, rc, h, 62, 84, 71, arch(tC, tA3, 66, 81, 70), weak_ct=0.6)
    for t_, d, p in mc:
        k = int((t_ - tC) // 6)
        if k % 2 == 0:
            fl.note(t_, d * 0.95, p + (12 if p < 70 else 0), dyn(t_) + 8 + jitter(rng, 4))
        else:
            g2.note(t_, d * 1.2, p - (12 if p > 76 else 0), dyn(t_) + 14 + jitter(rng, 4))

    # A'': the theme returns, then brightens to E major.
    ca4 = list(ca) + list(ca[:4])
    ca4[3] = rng.choice(CELLS34)
    ca4[10] = rng.choice(CELLS34)
    ca4[-1] = LONG34[1]
    r4 = rhythm(tA3, ca4, 3)
    p4 = gen_line(rng, r4, h, 64, 88, themeA[0][2], follow(themeA, tA3 - tA, 0), pull=3.5)
    play(fl, rng, p4, lambda x: dyn(x) + 8, legato=0.95, strong_bar=3)
    rco = rhythm(end - 12, [((0, 1), (1, 1), (2, 1)), ((0, 3),), ((0, 2), (2, 1)), ((0, 3),)], 3)
    coda = gen_line(rng, rco, h, 68, 88, p4[-1][2], arch(end - 12, end, 80, 83, 80), end_pcs={8})
    coda[-1] = (coda[-1][0], 4.5, coda[-1][2])
    play(fl, rng, coda, lambda x: dyn(x) + 6, legato=0.98, strong_bar=3)

    st = {}
    guitar_waltz(gt, rng, h, 0, tA, dyn, "light", st)
    guitar_waltz(gt, rng, h, tA, tB, dyn, "strum", st)
    guitar_waltz(gt, rng, h, tB, tA2, lambda x: dyn(x) - 8, "light", st)
    guitar_waltz(gt, rng, h, tA2, tC, dyn, "arp", st)
    guitar_waltz(gt, rng, h, tC, tA3, dyn, "broken", st)
    guitar_waltz(gt, rng, h, tA3, end - 3, dyn, "strum", st)
    for i, p in enumerate((40, 47, 52, 56, 59, 64)):
        gt.note(end - 3 + i * 0.12, 8, p, 70 - i * 2, role="bass" if i == 0 else None)
    return s


# ---------------------------------------------------------------------------
# 7. Neon Cartography -- synth lead, pad, bass and drum machine; F-sharp minor
# ---------------------------------------------------------------------------

LEAD_CELLS = [
    ((0, 0.75), (0.75, 0.75), (1.5, 0.5), (2, 1), (3, 0.5), (3.5, 0.5)),
    ((0, 1.5), (1.5, 0.5), (2, 0.75), (2.75, 1.25)),
    ((0, 0.5), (0.5, 0.5), (1, 0.5), (1.5, 1), (2.5, 0.5), (3, 1)),
    ((0.5, 0.5), (1, 0.75), (1.75, 0.75), (2.5, 1.5)),
    ((0, 0.25), (0.25, 0.25), (0.5, 1), (1.5, 0.5), (2, 1.5), (3.5, 0.5)),
    ((0, 2), (2, 0.5), (2.5, 0.5), (3, 0.5), (3.5, 0.5)),
]
LEAD_LONG = [((0, 3), (3, 0.5), (3.5, 0.5)), ((0, 4),), ((0, 2.5), (2.5, 1.5))]


def piece_synth(rng):
    s = Song("neon-cartography-synth", "Neon Cartography", 124, 4, 4, key_sf=3, minor=True)
    lead = s.add_track("Saw lead", 0, 81, volume=92, pan=64, reverb=45, chorus=20)
    pad = s.add_track("Warm pad", 1, 89, volume=96, pan=64, reverb=70, chorus=50)
    sb = s.add_track("Synth bass", 2, 38, volume=108, pan=64, reverb=10)
    arp = s.add_track("Square arpeggio", 3, 80, volume=70, pan=90, reverb=50, chorus=30)
    dr = s.add_track("Drum machine", DRUMS, 25, volume=104, pan=64, reverb=20)
    FS, GS = 6, 8
    h = s.harmony = Harmony()
    t = h.prog(0, FS, "minor", "i bVImaj7 iv7 bVII")
    tBu = t
    t = h.prog(t, FS, "minor", "i bVI bIII bVII i bVI iv V")
    tD1 = t
    t = h.prog(t, FS, "minor", "i bVI bIII bVII i bVI iv:2 bVII:2 i")
    tBr = t
    t = h.prog(t, FS, "minor", "bVImaj7 bIIImaj7 iv7 bVII bVImaj7 bIIImaj7 iv7 V7sus4 bVI bVII bVI bVII")
    tD2 = t
    t = h.prog(t, GS, "minor", "i bVI bIII bVII iv bVI bVII:2 V:2 i")
    tO = t
    t = h.prog(t, FS, "minor", "i bVI bIII bVII iv bVI bVII i i i bVI i")
    end = t
    roll_start = tD2 - 16

    dyn = Env([(0, 60), (tBu, 66), (tD1, 84), (tBr, 66), (roll_start, 70), (tD2, 90), (tO, 82),
               (end - 16, 68), (end, 50)])

    # Pad: sustained chords throughout, thinner in the drops.
    prev = None
    for s0, s1, ch, _sc in h.spans:
        prev = voicing(ch.tones, prev, 54, 73, 4)
        for p in prev:
            pad.note(s0 + 0.02, s1 - s0 + 0.1, p, dyn(s0) - (14 if tD1 <= s0 < tBr or s0 >= tD2 and s0 < tO else 2))
    pad.ramp(11, 0, 16, 40, 110, 1)
    pad.ramp(11, end - 8, end, 110, 30, 0.5)

    # Arpeggio: sixteenths over the chord tones, pattern changes per section.
    patterns = {tBu: [0, 1, 2, 3], tD1: [0, 2, 1, 3, 2, 4, 3, 1], tBr: [0, 3, 1, 4, 2, 5],
                tD2: [4, 2, 3, 0, 1, 2], tO: [0, 1, 2, 3, 4, 3, 2, 1]}
    starts = sorted(patterns)
    for s0, s1, ch, _sc in h.spans_in(tBu, end - 8):
        key = [k for k in starts if k <= s0 + 1e-6][-1]
        pat = patterns[key]
        # the pattern is rotated every bar and the register drifts, so that
        # repeated chords never get identical arpeggio bars
        shift = (int(s0 / 4) * 5) % 7 - 3
        lad = ladder(ch, 61 + shift, 82 + shift)
        x = s0
        k = int(s0 * 4) + int(s0 / 4) * 3
        while x < s1 - 1e-6:
            accent = 12 if k % 4 == 0 else (5 if k % 2 == 0 else 0)
            wob = ((k * 5 + int(x)) % 7) * 2
            arp.note(x, 0.18, lad[pat[k % len(pat)] % len(lad)], dyn(x) - 12 + accent + wob + jitter(rng, 3))
            x += 0.25
            k += 1

    # Intro: sparse plucked notes wandering over the pad.
    ri = [(x * 0.5, 0.4, x % 2 == 0) for x in range(int(tBu * 2)) if rng.random() < 0.45]
    plucks = gen_line(rng, ri, h, 66, 85, 73, arch(0, tBu, 70, 80, 76), pull=5.0)
    play(arp, rng, plucks, lambda x: dyn(x) + 2, legato=1.0)

    # Bass.
    bass_pats = {tBu: [(0, 0.45), (0.5, 0.45), (1, 0.45), (1.5, 0.45), (2, 0.45), (2.5, 0.45), (3, 0.45),
                       (3.5, 0.45)],
                 tD1: [(0, 0.7), (0.75, 0.6), (1.5, 0.4), (2, 0.7), (2.75, 0.6), (3.5, 0.4)],
                 tBr: [(0, 3.5)],
                 tD2: [(0, 0.4), (0.5, 0.4), (0.75, 0.6), (1.5, 0.4), (2, 0.4), (2.5, 0.4), (3, 0.4),
                       (3.5, 0.4)],
                 tO: [(0, 0.7), (1.5, 0.4), (2, 0.7), (3.5, 0.4)]}
    pb = 42
    bkeys = sorted(bass_pats)
    for s0, s1, ch, _sc in h.spans_in(tBu, end - 4):
        key = [k for k in bkeys if k <= s0 + 1e-6][-1]
        root = near(ch.bass, pb, 30, 45)
        pb = root
        x = s0
        while x < s1 - 1e-6:
            for i, (o, d) in enumerate(bass_pats[key]):
                if x + o >= s1 - 1e-6:
                    continue
                p = root + (12 if (i % 2 == 1 and key in (tBu, tD2)) else 0)
                if key == tO and i == 3:
                    p = root + 7
                sb.note(x + o, d, p, dyn(x) + 10 + (6 if o == 0 else 0) + jitter(rng, 3))
            x += 4
    sb.note(end - 4, 4, near(h.at(end - 4)[0].bass, pb, 30, 45), 70)

    # Lead melody: a theme in drop A, a sparse variation in the break, the
    # theme transposed and reworked in drop B, fragments in the outro.
    c = [rng.choice(LEAD_CELLS) for _ in range(3)]
    cells = [c[0], c[1], c[2], rng.choice(LEAD_LONG), c[0], c[1], rng.choice(LEAD_CELLS), rng.choice(LEAD_LONG)]
    rl = rhythm(tD1, cells, 4, (0, 2))
    th1 = gen_line(rng, rl[:len(rhythm(0, cells[:4], 4))], h, 64, 86, 73, arch(tD1, tD1 + 16, 70, 81, 73))
    rest = rl[len(th1):]
    th2 = gen_line(rng, rest, h, 64, 86, th1[-1][2], follow(th1, 16, 0), pull=2.5, end_pcs={FS})
    theme = th1 + th2
    play(lead, rng, theme, lambda x: dyn(x) + 4, legato=0.92)
    rbk = rhythm(tBr + 8, [rng.choice(LEAD_LONG) for _ in range(6)], 4, (0, 2))
    brk = gen_line(rng, rbk, h, 66, 85, 76, follow(theme, tBr + 8 - tD1, 3), pull=5.0)
    play(lead, rng, brk, lambda x: dyn(x) - 4, legato=1.0)
    cells2 = list(cells)
    cells2[2] = rng.choice(LEAD_CELLS)
    cells2[6] = rng.choice(LEAD_CELLS)
    r2 = rhythm(tD2, cells2, 4, (0, 2))
    th3 = gen_line(rng, r2, h, 66, 88, theme[0][2] + 2, follow(theme, tD2 - tD1, 2), pull=3.0, end_pcs={GS})
    play(lead, rng, th3, lambda x: dyn(x) + 6, legato=0.92)
    play(lead, rng, [(a, b, p - 12) for a, b, p in th3 if (a - tD2) >= 16], lambda x: dyn(x) - 12, legato=0.9)
    ro = rhythm(tO, [c[0], rng.choice(LEAD_LONG), rng.choice(LEAD_CELLS), LEAD_LONG[1]], 4, (0, 2))
    outro = gen_line(rng, ro, h, 64, 84, 73, follow(theme, tO - tD1, 0), pull=4.0, end_pcs={FS})
    play(lead, rng, outro, lambda x: dyn(x) - 2, legato=0.95)

    # Drums (TR-808 kit).
    bar = 0
    nb = 0
    while bar < end - 8 - 1e-6:
        v = dyn(bar)
        in_drop = tD1 <= bar < tBr or tD2 <= bar < tO
        for k in range(16):
            x = bar + k * 0.25
            hv = 30 + ((k * 7 + nb * 3) % 5) * 6 + (14 if k % 4 == 2 else 0)
            if bar < tBu:
                if k % 4 == 2 or rng.random() < 0.3:
                    dr.note(x, 0.1, 70, hv * v / 80.0)
            elif tBr <= bar < roll_start:
                if k % 4 == 2:
                    dr.note(x, 0.2, 42, hv * v / 80.0)
            else:
                dr.note(x, 0.1, 42 if k % 4 != 2 or not in_drop else 46, hv * v / 80.0 + jitter(rng, 3))
        four = (bar >= tBu + 16 and bar < tBr) or (bar >= tD2 and bar < end - 16)
        if four:
            for beat in range(4):
                dr.note(bar + beat, 0.3, 36, v + 14)
        elif tBr <= bar < roll_start:
            dr.note(bar, 0.5, 36, v + 6)
            if nb % 2:
                dr.note(bar + 2.5, 0.5, 36, v)
        if bar >= tBu + 16 and not (tBr <= bar < tD2):
            dr.note(bar + 1, 0.3, 39, v + 4)
            dr.note(bar + 3, 0.3, 39 if nb % 4 != 3 else 40, v + 4)
            if rng.random() < 0.3:
                dr.note(bar + 3.75, 0.2, 39, v - 20)
        bar += 4
        nb += 1
    # Snare roll into drop B (eighths -> sixteenths -> thirty-seconds).
    x = roll_start
    while x < tD2 - 1e-6:
        frac = (x - roll_start) / 16.0
        step = 0.5 if frac < 0.5 else (0.25 if frac < 0.85 else 0.125)
        dr.note(x, 0.1, 40, 40 + 70 * frac)
        x += step
    for x in (tD1, tBr, tD2, tO):
        dr.note(x, 2, 49, 96)
    dr.note(tBu + 16 - 1, 0.2, 40, 70)
    dr.note(tBu + 16 - 0.5, 0.2, 40, 80)
    return s


# ---------------------------------------------------------------------------
# Outside pieces (NOT in the catalog): hard negatives for tests
# ---------------------------------------------------------------------------

def piece_ferry(rng):
    """Solo piano like the catalog's piano piece, but a different tune and figuration."""
    s = Song("quiet-ferry-piano", "Quiet Ferry Crossing", 92, 4, 4, key_sf=3)
    rh = s.add_track("Piano right hand", 0, 0, volume=110, pan=70, reverb=48)
    lh = s.add_track("Piano left hand", 1, 0, volume=102, pan=58, reverb=48)
    A = 9
    h = s.harmony = Harmony()
    t = h.prog(0, A, "major", "I iii IV V vi IV ii:2 V7:2 I vi7 IV V7 I")
    end = t
    s.ritard(end - 8, end - 2, 92, 70, step=0.5)
    dyn = Env([(0, 60), (24, 76), (end, 52)])
    cells = [rng.choice(CELLS44) for _ in range(3)]
    cells = cells + [LONG44[1]] + [cells[0], rng.choice(CELLS44), rng.choice(CELLS44), LONG44[2]] + \
        [rng.choice(CELLS44), rng.choice(CELLS44), rng.choice(CELLS44), rng.choice(CELLS44), LONG44[0]]
    r = rhythm(0, cells, 4, (0, 2))
    mel = gen_line(rng, r, h, 64, 88, 76, arch(0, end, 73, 83, 69), end_pcs={A})
    play(rh, rng, mel, lambda x: dyn(x) + 10, tj=0.012)
    for t_, d, p in mel:
        if d >= 2:
            ch, sc = h.at(t_)
            q = below(p, ch, sc, 57, True)
            if q:
                rh.note(t_, d, q, dyn(t_) - 4)
    prev = None
    for s0, s1, ch, _sc in h.spans_in(0, end):
        b = near(ch.bass, 45, 33, 47)
        prev = voicing(ch.tones, prev, b + 7, b + 19, 3)
        seq = [b, prev[2], prev[0], prev[2], prev[1], prev[2], prev[0], prev[2]]
        x = s0
        k = 0
        while x < s1 - 1e-6 and x < end - 4:
            lh.note(x, 0.5 if k % 8 else 2.0, seq[k % 8], dyn(x) - 12 + (6 if k % 8 == 0 else 0) + jitter(rng, 4))
            x += 0.5
            k += 1
    for i, p in enumerate((33, 45, 52, 57, 61, 64)):
        lh.note(end - 4 + i * 0.08, 5, p, 56 - i * 2)
    pedal([rh, lh], h, 0, end)
    rh.cc(end + 2, 64, 0)
    lh.cc(end + 2, 64, 0)
    return s


def piece_meadow(rng):
    """Mallet minimalism like the catalog's mallet piece, but other harmony, mode and cycles."""
    s = Song("salt-meadow-mallets", "Salt Meadow Mallets", 132, 4, 4, key_sf=0)
    m1 = s.add_track("Marimba I", 0, 12, volume=104, pan=44, reverb=40)
    m2 = s.add_track("Marimba II", 1, 12, volume=96, pan=86, reverb=40)
    vib = s.add_track("Vibraphone", 2, 11, volume=92, pan=64, reverb=60)
    bass = s.add_track("Bass marimba", 3, 12, volume=108, pan=64, reverb=35)
    glock = s.add_track("Glockenspiel", 4, 9, volume=70, pan=80, reverb=60)
    D = 2
    h = s.harmony = Harmony()
    t = h.prog(0, D, "dorian", "i7:16 IV:12 bVIImaj7:16 v7:12 i7:16")
    end = t + 4
    h.prog(t, D, "dorian", "i7:4")
    sections = [
        {"start": 0, "cycle": 5, "bass": [0, 1.5], "melody": False},
        {"start": 44, "cycle": 3, "bass": [0, 2, 3.5], "melody": True, "glock": True},
    ]
    dyn = Env([(0, 62), (40, 80), (end, 60)])
    mallet_process(s, rng, h, sections, end - 4, dyn, (m1, m2, vib, bass, glock),
                   {"m1": (62, 81), "m2": (74, 93), "mel": (74, 90)})
    for i, p in enumerate([38, 50, 57, 60, 65, 69, 72]):
        (bass if p < 50 else m1).note(end - 4 + i * 0.05, 4, p, 66 - i * 2)
    return s


CATALOG = [
    ("harbor-lights-piano", piece_harbor),
    ("northern-glass-strings", piece_strings),
    ("lamplight-organ-trio", piece_jazz),
    ("tidepool-clockwork-mallets", piece_mallets),
    ("summit-banners-brass", piece_brass),
    ("orchard-lantern-waltz", piece_waltz),
    ("neon-cartography-synth", piece_synth),
]
OUTSIDE = [
    ("quiet-ferry-piano", piece_ferry),
    ("salt-meadow-mallets", piece_meadow),
]


# ---------------------------------------------------------------------------
# Derivative pieces (NOT in the catalog): hard negatives sharing one layer
# ---------------------------------------------------------------------------
#
# A derivative keeps ONE part of a catalog piece verbatim and replaces all the
# others, so that it is a different recording in which one layer -- the drum
# loop, the bass line, the melody in the same sound -- is the catalog's own.
#
# The kept part is the catalog composition's own Track object (the same
# notes, timing, velocities, program, channel and controller settings; its
# MTrk chunk is the same bytes as in the catalog file).  Where the part is a
# role inside a track (the bass notes of a piano left hand), it is that
# track's notes of that role exactly as the catalog file plays them.
#
# Every other part is replaced in three ways:
#   * the piece is composed again from another seed, so every random choice
#     (melodies, solos, rhythm cells, drum variations) comes out differently,
#     while the form, chords, tempo map and length -- which no seed changes --
#     stay, and the kept layer lines up with the rest from start to end;
#   * each replaced pitched note moves to the neighbouring chord tone (or
#     scale step), so that even the figures that do not depend on the seed
#     (pads, arpeggio patterns, oom-pah) play other notes over the same chords;
#   * each replaced part gets another instrument at a matching loudness
#     (NEW_SOUND), the drums another kit with related kit pieces swapped
#     (DRUM_SWAP).

# (catalog id, part, the tracks kept, the role kept inside them or None for
# whole tracks).  Every kept layer sounds through (nearly) the whole piece and
# is a good part of the mix; left out are e.g. the synth piece's lead (silent
# half the time) and the quiet layers (organ comping, vibraphone, synth
# arpeggio, the brass piece's percussion: 1-5 % of their piece's energy).
DERIVATIVES = [
    ("harbor-lights-piano", "right-hand", ("Piano right hand",), None),
    ("harbor-lights-piano", "left-hand", ("Piano left hand",), None),
    ("harbor-lights-piano", "bass", ("Piano left hand",), "bass"),
    ("northern-glass-strings", "bass-line", ("Contrabasses",), None),
    ("northern-glass-strings", "inner-voices", ("Violas", "Tremolo strings"), None),
    # the tune passes from the cellos to the violins and the solo violin
    ("northern-glass-strings", "melody", ("Cellos", "Violins", "Solo violin"), None),
    ("lamplight-organ-trio", "drums", ("Drums",), None),
    ("lamplight-organ-trio", "bass", ("Acoustic bass",), None),
    ("lamplight-organ-trio", "melody", ("Organ lead",), None),
    ("tidepool-clockwork-mallets", "bass", ("Bass marimba",), None),
    ("tidepool-clockwork-mallets", "ostinato", ("Marimba I",), None),
    # the second marimba's short cycle phasing against the bar
    ("tidepool-clockwork-mallets", "phase-pattern", ("Marimba II",), None),
    ("summit-banners-brass", "melody", ("Trumpet I",), None),
    ("summit-banners-brass", "bass", ("Tuba",), None),
    ("summit-banners-brass", "horns", ("French horns",), None),
    ("orchard-lantern-waltz", "guitar", ("Nylon guitar",), None),
    ("orchard-lantern-waltz", "bass", ("Nylon guitar",), "bass"),
    # the tune passes between the flute and the second guitar
    ("orchard-lantern-waltz", "melody", ("Flute", "Nylon guitar (melody)"), None),
    ("neon-cartography-synth", "drums", ("Drum machine",), None),
    ("neon-cartography-synth", "bass", ("Synth bass",), None),
    ("neon-cartography-synth", "pad", ("Warm pad",), None),
    # Added on 2026-12-03, with takes 3 to 6, after a blind run found a kept
    # organ melody matched: a lead, a melody instrument and a mallet voice of
    # the tuning set's pieces, kept over a recomposed accompaniment.
    ("neon-cartography-synth", "lead", ("Saw lead",), None),
    ("tidepool-clockwork-mallets", "vibraphone", ("Vibraphone",), None),
    ("orchard-lantern-waltz", "flute", ("Flute",), None),
]

# A probe beyond the benchmark's hard negatives (bench/accuracy/kept-most.py):
# pieces that keep MOST of a tuning-set piece's mix verbatim and replace only
# the rest, to see on music the engine may be tuned on how close to its source
# a different recording can come before the whole-mix checks can no longer
# tell them apart.  Each pair replaces parts of one piece that lie mostly
# outside, or mostly inside, the band the whole-mix checks listen to
# (300-2600 Hz).  Not the orchard waltz: keeping its guitar and flute leaves
# it the catalog's own audio wherever its second guitar rests.  Tuning-set
# pieces only, so that the blind set's pieces stay unseen.
KEPT_MOST = [
    # replaced: the bass marimba (mostly below 300 Hz) and the glockenspiel
    ("tidepool-clockwork-mallets", "upper-voices", ("Marimba I", "Marimba II", "Vibraphone"), None),
    # replaced: the vibraphone and the glockenspiel (quiet, inside the band)
    ("tidepool-clockwork-mallets", "lower-voices", ("Marimba I", "Marimba II", "Bass marimba"), None),
    # replaced: the drum machine and the arpeggio
    ("neon-cartography-synth", "lead-pad-bass", ("Saw lead", "Warm pad", "Synth bass"), None),
    # replaced: the saw lead and the arpeggio
    ("neon-cartography-synth", "pad-bass-drums", ("Warm pad", "Synth bass", "Drum machine"), None),
]

# Each derivative comes in this many takes: the same kept part and the same
# new instruments, the replaced parts composed from another seed (take 1 is
# "<id>--keep-<part>", take k "<id>--keep-<part>--take<k>").  The second take
# was added after the first had been used to design the engine's decision
# rule, so that the benchmark keeps derivatives nobody tuned on; takes 3 to 6
# later, to see whether the one kept part that passed (a blind piece's organ
# melody, in its second take) passes again with other accompaniments.
DERIVATIVE_TAKES = 6

# The General MIDI program (on the drum channel: the drum kit) and the channel
# volume (CC 7) of each replaced part.  The volume makes the new part about as
# loud as the catalog part it replaces (each part rendered alone with
# render.sh's settings, RMS compared, volume scaled by 40 log10 -- measured
# once; clipped at 127), so the kept layer keeps its place in the mix.  Only
# the piano's right hand keeps its instrument: a new tune on the same piano
# over the kept left hand is the hardest case, "same accompaniment, same
# sound, other melody".
NEW_SOUND = {
    "harbor-lights-piano": {"Piano right hand": (0, 117), "Piano left hand": (46, 92)},
    "northern-glass-strings": {"Violins": (73, 74), "Violas": (52, 100), "Cellos": (70, 97),
                               "Contrabasses": (58, 120), "Pizzicato": (46, 104),
                               "Tremolo strings": (50, 62), "Solo violin": (68, 80)},
    "lamplight-organ-trio": {"Organ lead": (66, 100), "Organ comping": (4, 63), "Acoustic bass": (33, 116),
                             "Drums": (40, 103)},
    "tidepool-clockwork-mallets": {"Marimba I": (8, 102), "Marimba II": (6, 116), "Vibraphone": (48, 49),
                                   "Bass marimba": (32, 93), "Glockenspiel": (10, 66)},
    "summit-banners-brass": {"Trumpet I": (71, 71), "Trumpet II": (68, 70), "French horns": (48, 127),
                             "Trombones": (42, 122), "Tuba": (43, 108), "Timpani": (116, 78),
                             "Muted trumpet": (11, 127), "Percussion": (0, 94)},
    "orchard-lantern-waltz": {"Nylon guitar": (46, 125), "Flute": (71, 88), "Nylon guitar (melody)": (21, 95)},
    "neon-cartography-synth": {"Saw lead": (62, 105), "Warm pad": (95, 70), "Synth bass": (39, 73),
                               "Square arpeggio": (5, 86), "Drum machine": (24, 127)},
}

# Replaced drum parts: each kit piece is played by a related one (kick by the
# other kick, snare by the other snare, clap and side stick by each other,
# hi-hats by cabasa and tambourine, ride, crash and toms by the other ones), so
# the groove stays but not the sound.
DRUM_SWAP = {35: 36, 36: 35, 37: 39, 39: 37, 38: 40, 40: 38, 42: 69, 44: 42, 46: 54, 70: 54,
             49: 57, 57: 49, 51: 59, 53: 51, 45: 41, 47: 43}


def seeded(key):
    """The random generator of one piece: seeded by a constant string."""
    return random.Random(zlib.crc32(("soundtrace/" + key).encode("ascii")))


def empty_like(track, name, channel, program, volume):
    """A track with another track's pan, effects and controllers, no notes."""
    t = Track(name, channel, program, volume=volume, pan=track.pan, reverb=track.reverb,
              chorus=track.chorus)
    t.controls = list(track.controls)
    return t


def neighbour_tone(p, chord, scale, step):
    """The next chord tone in direction step (+1 up, -1 down) if p is a chord
    tone, otherwise the next note of the scale, so that a line keeps its shape
    and every note still fits the chord."""
    pcs = chord.pcs if p % 12 in chord.pcs else chord.pcs | frozenset(scale)
    q = p + step
    while q % 12 not in pcs:
        q += step
    return q


def revoiced(track, harm, name, channel, sound, notes):
    """notes (from track) as a replaced part: another instrument and volume
    (sound), and either other kit pieces (drums) or each note moved to a
    neighbouring chord tone."""
    t = empty_like(track, name, channel, sound[0], sound[1])
    if channel == DRUMS:
        t.notes = [(s, e, DRUM_SWAP.get(p, p), v, r) for s, e, p, v, r in notes]
        return t
    # Bass lines move down, everything else up, so each keeps its register.
    pitches = sorted(n[2] for n in notes)
    step = -1 if pitches and pitches[len(pitches) // 2] < 48 else 1
    for s, e, p, v, r in notes:
        # The chord a note belongs to is the one under most of its first beat,
        # not the one its (humanised, maybe slightly early) onset falls in.
        chord, scale = harm.at((s + min((e - s) // 2, PPQ // 2)) / PPQ)
        t.notes.append((s, e, neighbour_tone(p, chord, scale, step), v, r))
    return t


def derivative(ident, fn, part, keep, role, take=1):
    """Catalog piece ident with only `part` (tracks keep, or their notes of
    the given role) kept verbatim and everything else replaced; each take
    composes the replaced parts from its own seed."""
    name = "%s--keep-%s" % (ident, part) + ("" if take == 1 else "--take%d" % take)
    orig = fn(seeded(ident))       # exactly the catalog piece
    alt = fn(seeded(name))         # the same form, other random choices
    if alt.tempo_map() != orig.tempo_map() or [t.name for t in alt.tracks] != [t.name for t in orig.tracks]:
        raise AssertionError("%s: the form depends on the seed" % name)
    for n in keep:
        if n not in [t.name for t in orig.tracks]:
            raise AssertionError("%s: no track %r" % (name, n))
    song = Song(name, "%s, keeping the %s" % (orig.title, part.replace("-", " ")), orig.tempos[0][1],
                orig.num, orig.den, orig.key_sf, orig.minor)
    song.tempos = list(orig.tempos)  # with every tempo change: the kept layer stays in time
    sound = NEW_SOUND[ident]
    free = [c for c in range(16) if c != DRUMS and c not in [t.channel for t in orig.tracks]]
    for o, a in zip(orig.tracks, alt.tracks):
        if o.name not in keep:
            song.tracks.append(revoiced(a, alt.harmony, a.name, a.channel, sound[a.name], a.sounding()))
        elif role is None:
            song.tracks.append(o)  # the catalog's own track: the same MTrk bytes
        else:
            # The role's notes exactly as the catalog file plays them (after
            # its overlap fix), on the catalog track's channel and settings;
            # the track's other notes come re-voiced on a channel of their own.
            kept = empty_like(o, o.name, o.channel, o.program, o.volume)
            kept.notes = [n for n in o.sounding() if n[4] == role]
            song.tracks.append(kept)
            rest = [n for n in a.sounding() if n[4] != role]
            song.tracks.append(revoiced(a, alt.harmony, a.name + " (other notes)", free.pop(0),
                                        sound[a.name], rest))
    return song


# ---------------------------------------------------------------------------
# Generated pieces (NOT the sample catalog): filler for the scale benchmark
# ---------------------------------------------------------------------------
#
# `compose.py --generate N [--seed S] OUTDIR` writes N pieces, each composed
# from its own seed ("generated/S/i"): key, mode, metre, tempo, length
# (about 2-6 minutes), form, chord progressions, melodies, bass and drum
# patterns, accompaniment figure and every instrument are drawn from that
# seed, so two pieces are different music, not speed or pitch variants of one
# another.  bench/scale uses them to fill its 1/10/100-hour catalogs beyond
# the real music it finds in Debian packages.  They are deterministic like
# everything in this file (the same N and S give the same bytes).

GEN_CHORDS = {
    "major": ("I", "ii", "iii", "IV", "V", "vi", "ii7", "iii7", "vi7", "IVmaj7", "Imaj7", "V7", "Iadd9",
              "V7sus4", "IVadd9", "bVII", "I/3", "IV6"),
    "minor": ("i", "iv", "v", "bVI", "bVII", "bIII", "V7", "iv7", "i7", "bVImaj7", "bIIImaj7", "iih7",
              "V", "iadd9", "bVII7"),
    "dorian": ("i7", "IV", "ii", "bVII", "v7", "bIII", "i", "IV7", "bIIImaj7", "i9", "v"),
    "mixolydian": ("I", "bVII", "IV", "v", "ii", "vi", "I7", "bVIIadd9", "IVmaj7", "v7", "Iadd9"),
}
GEN_TONIC = {"major": "I", "minor": "i", "dorian": "i7", "mixolydian": "I"}
GEN_CADENCE = {"major": ("V", "V7", "V7sus4", "IV"), "minor": ("V7", "V", "bVII", "iv"),
               "dorian": ("IV", "bVII", "v7"), "mixolydian": ("bVII", "IV", "v")}
# General MIDI programs by role.
GEN_LEAD = (0, 4, 6, 11, 13, 16, 19, 21, 22, 24, 26, 40, 41, 56, 57, 60, 64, 65, 66, 68, 69, 70, 71, 72,
            73, 74, 75, 79, 80, 81, 82, 84, 104, 105, 108)
GEN_COMP = (0, 1, 2, 4, 5, 6, 7, 8, 12, 16, 17, 18, 24, 25, 27, 28, 45, 46, 48, 49, 50, 52, 88, 89, 90,
            91, 92, 94, 95)
GEN_PAD = (48, 49, 50, 51, 52, 53, 54, 61, 89, 91, 92, 94, 95, 19, 20)
GEN_BASS = (32, 33, 34, 35, 36, 37, 38, 39, 43, 42, 58, 70)
GEN_KITS = (0, 8, 16, 24, 25, 32, 40)
GEN_CELLS34 = [
    ((0, 1), (1, 1), (2, 1)), ((0, 2), (2, 1)), ((0, 1.5), (1.5, 0.5), (2, 1)),
    ((0, 1), (1, 0.5), (1.5, 0.5), (2, 1)), ((0, 0.5), (0.5, 0.5), (1, 2)), ((0, 3),),
    ((0, 1), (1, 2)), ((0.5, 0.5), (1, 1), (2, 1)),
]
GEN_LONG34 = [((0, 3),), ((0, 2), (2, 1))]
GEN_WORDS = ("Amber", "Quarry", "Lantern", "Drift", "Meadow", "Harbor", "Cinder", "Willow", "Signal",
             "Tundra", "Copper", "Orchid", "Ferry", "Granite", "Marble", "Juniper", "Beacon", "Canyon",
             "Hollow", "Prism", "Saffron", "Cobalt", "Thistle", "Ember", "Glacier", "Sparrow", "Velvet",
             "Compass", "Lagoon", "Ridge", "Almanac", "Basalt", "Cedar", "Dune", "Estuary", "Falcon")
NOTE_NAMES = ("C", "D-flat", "D", "E-flat", "E", "F", "F-sharp", "G", "A-flat", "A", "B-flat", "B")


def gen_progression(rng, mode, n):
    """n chord symbols: starts on the tonic, ends on a cadence chord, no chord twice in a row."""
    out = [GEN_TONIC[mode]]
    pool = GEN_CHORDS[mode]
    while len(out) < n - 1:
        c = rng.choice(pool)
        if c != out[-1]:
            out.append(c)
    out.append(rng.choice(GEN_CADENCE[mode]))
    return out[:n]


def gen_drum_pattern(rng, num):
    """One bar on a grid of sixteenths: {step: (kit piece, velocity)} lists."""
    steps = num * 4
    pat = {k: [] for k in range(steps)}
    pat[0].append((36, 100))
    for k in range(2, steps, 2):
        if rng.random() < 0.22:
            pat[k].append((36, 80 + rng.randrange(20)))
    backbeats = (4, 12) if num == 4 else ((4, 8) if rng.random() < 0.5 else (8,))
    snare = rng.choice((38, 38, 40, 39, 37))
    for k in backbeats:
        pat[k].append((snare, 90 + rng.randrange(20)))
    hat_step = rng.choice((1, 2, 2, 2, 4))
    hat = rng.choice((42, 42, 44, 51, 70, 54))
    for k in range(0, steps, hat_step):
        pat[k].append((hat, 55 + (15 if k % 4 == 0 else 0) + rng.randrange(10)))
    if rng.random() < 0.4:
        pat[steps - 2].append((46, 70))
    return pat


def gen_bass_pattern(rng, num):
    """(offset in beats, length, 0 = root / 1 = fifth / 2 = octave) per bar."""
    kind = rng.randrange(5)
    if kind == 0:
        return [(0, num - 0.1, 0)]
    if kind == 1:
        return [(b, 0.9, 0 if b % 2 == 0 else 1) for b in range(num)]
    if kind == 2:
        return [(x * 0.5, 0.45, 0 if x % 4 != 3 else rng.choice((1, 2))) for x in range(num * 2)]
    out = [(0, 1.4, 0)]
    x = 1.5
    while x < num - 0.1:
        if rng.random() < 0.6:
            out.append((x, 0.4, rng.choice((0, 0, 1, 2))))
        x += 0.5
    return out


def piece_generated(rng, ident, title):
    num = 3 if rng.random() < 0.22 else 4
    bpm = 60 + rng.randrange(193) * 0.5        # 60-156 bpm
    mode = pick(rng, ["major", "minor", "dorian", "mixolydian"], (4, 4, 1.5, 1.5))
    tonic = rng.randrange(12)
    target = 120.0 + rng.random() * 240.0      # seconds
    bars_total = int(target * bpm / 60.0 / num)
    minor = mode in ("minor", "dorian")
    # Key signature: sharps (+) or flats (-) of the major key with the same notes.
    major_pc = (tonic + {"major": 0, "minor": 3, "dorian": -2, "mixolydian": 5}[mode]) % 12
    key_sf = {0: 0, 7: 1, 2: 2, 9: 3, 4: 4, 11: 5, 6: 6, 1: -5, 8: -4, 3: -3, 10: -2, 5: -1}[major_pc]
    s = Song(ident, "%s (%s %s)" % (title, NOTE_NAMES[tonic].replace("-", " "), mode), bpm, num, 4,
             key_sf=key_sf, minor=minor)
    lead_prog = rng.choice(GEN_LEAD)
    lead = s.add_track("Lead", 0, lead_prog, volume=100 + rng.randrange(20), pan=40 + rng.randrange(48),
                       reverb=30 + rng.randrange(40), chorus=rng.randrange(40))
    comp = s.add_track("Accompaniment", 1, rng.choice(GEN_COMP), volume=84 + rng.randrange(24),
                       pan=30 + rng.randrange(68), reverb=30 + rng.randrange(40), chorus=rng.randrange(30))
    bass = s.add_track("Bass", 2, rng.choice(GEN_BASS), volume=96 + rng.randrange(24), pan=64,
                       reverb=10 + rng.randrange(30))
    pad = None
    if rng.random() < 0.5:
        pad = s.add_track("Pad", 3, rng.choice(GEN_PAD), volume=60 + rng.randrange(30), pan=64,
                          reverb=50 + rng.randrange(40), chorus=rng.randrange(50))
    dr = None
    if rng.random() < 0.65:
        dr = s.add_track("Drums", DRUMS, rng.choice(GEN_KITS), volume=90 + rng.randrange(30), pan=64,
                         reverb=15 + rng.randrange(30))

    # Sections: 2-4 distinct ones, each a progression of 4 or 8 chords lasting 1 or 2 bars,
    # some in another key; then a form drawn from them until the piece is long enough.
    letters = "ABCD"[:2 + rng.randrange(3)]
    sections = {}
    for i, letter in enumerate(letters):
        n = rng.choice((4, 4, 8))
        per = rng.choice((1, 2)) if n == 4 else 1
        shift = 0 if i == 0 or rng.random() < 0.6 else rng.choice((2, 5, 7, 9, 3))
        sec_mode = mode if shift == 0 or rng.random() < 0.5 else rng.choice(("major", "minor"))
        sections[letter] = {"chords": gen_progression(rng, sec_mode, n), "per": per, "tonic": (tonic + shift) % 12,
                            "mode": sec_mode, "repeat": rng.choice((1, 2)),
                            "cells": None, "melody": None}
    form = ["A"]
    bars = 0
    while True:
        sec = sections[form[-1]]
        bars += len(sec["chords"]) * sec["per"] * sec["repeat"]
        if bars >= bars_total:
            break
        nxt = rng.choice(letters) if rng.random() < 0.7 else "A"
        if nxt == form[-1] and len(letters) > 1:
            nxt = letters[(letters.index(nxt) + 1) % len(letters)]
        form.append(nxt)
    h = s.harmony = Harmony()
    spans = []  # (start, end, letter, occurrence)
    t = 0.0
    seen = {}
    for letter in form:
        sec = sections[letter]
        t0 = t
        spec = " ".join("%s:%g" % (c, sec["per"] * num) for c in sec["chords"])
        for _ in range(sec["repeat"]):
            t = h.prog(t, sec["tonic"], sec["mode"], spec, bar=num)
        seen[letter] = seen.get(letter, 0) + 1
        spans.append((t0, t, letter, seen[letter]))
    end = t
    h.prog(end, tonic, mode, "%s:%d" % (GEN_TONIC[mode], num * 2), bar=num)
    s.ritard(end - num, end + num, bpm, bpm * (0.7 + rng.random() * 0.2), step=0.5)

    # Loudness: each section has its own level, with a fade at the end.
    pts = [(0, 60 + rng.randrange(20))]
    for t0, t1, _l, _o in spans:
        pts.append((t0 + 0.01, 58 + rng.randrange(30)))
    pts.append((end, 50))
    dyn = Env(pts)

    # Melody: each section gets rhythm cells and a tune; a repeat of a section varies its tune.
    cells, longs = (GEN_CELLS34, GEN_LONG34) if num == 3 else (CELLS44 + SYNC44, LONG44)
    center = 60 + rng.randrange(16)
    lo, hi = center - 7, center + 12
    for t0, t1, letter, occ in spans:
        sec = sections[letter]
        nbars = int(round((t1 - t0) / num))
        if sec["cells"] is None:
            motif = [rng.choice(cells) for _ in range(3)]
            sec["cells"] = [motif[k % 3] if k % 4 != 3 else rng.choice(longs) for k in range(nbars)]
        cl = list(sec["cells"][:nbars])
        while len(cl) < nbars:
            cl.append(rng.choice(cells))
        if occ > 1:
            for k in range(nbars):
                if rng.random() < 0.3:
                    cl[k] = rng.choice(cells)
        rest = rng.random() < 0.15 and occ > 1  # the lead sits out; the accompaniment carries it
        if rest:
            continue
        r = rhythm(t0, cl, num, (0,) if num == 3 else (0, 2))
        if sec["melody"] is None:
            peak = center + 3 + rng.randrange(8)
            mel = gen_line(rng, r, h, lo, hi, center, arch(t0, t1, center - 2, peak, center), weak_ct=0.3 + rng.random() * 0.5)
            sec["melody"] = (t0, mel)
        else:
            m0, model = sec["melody"]
            mel = gen_line(rng, r, h, lo, hi, model[0][2], follow(model, t0 - m0, 0), pull=2.5 + rng.random() * 3)
        play(lead, rng, mel, lambda x: dyn(x) + 10, tj=0.01, strong_bar=num)

    # Accompaniment: one figure for the piece, drawn from the seed.
    figure = rng.choice(("arp", "arp", "block", "pad"))
    if figure == "arp":
        size = 4 + rng.randrange(3)
        pattern = [0] + [1 + rng.randrange(size - 1) for _ in range(size + rng.randrange(4))]
        step = rng.choice((0.5, 0.5, 1.0 / 3.0, 0.25 if bpm < 110 else 0.5, 1.0))
        arpeggiate(comp, rng, h, 0, end, pattern, step, lambda x: dyn(x) - 10,
                   bass_lo=43, bass_hi=55, up_span=(rng.choice((5, 7, 9)), 24), n_up=size - 1,
                   dur_mul=rng.choice((1.0, 1.5, 0.8)))
    elif figure == "block":
        hits = [0.0] + [x * 0.5 for x in range(1, num * 2) if rng.random() < 0.35]
        prev = None
        for s0, s1, ch, _sc in h.spans_in(0, end):
            prev = voicing(ch.tones, prev, 52, 72, 3 + rng.randrange(2))
            x = s0
            while x < s1 - 1e-6:
                for o in hits:
                    if x + o < s1 - 1e-6:
                        for p in prev:
                            comp.note(x + o + jitter(rng, 0.01), 0.45, p, dyn(x) - 12 + jitter(rng, 4))
                x += num
    else:
        string_pad(comp, rng, h, 0, end, 50, 72, 4, lambda x: dyn(x) - 6, restrike=num)
    if pad is not None:
        string_pad(pad, rng, h, 0, end, 55, 76, 3, lambda x: dyn(x) - 16)

    # Bass.
    bpat = gen_bass_pattern(rng, num)
    last = 40
    for s0, s1, ch, _sc in h.spans_in(0, end):
        root = near(ch.bass, last, 33, 47)
        last = root
        x = s0
        while x < s1 - 1e-6:
            for o, d, which in bpat:
                if x + o < s1 - 1e-6:
                    p = root + (7 if which == 1 else (12 if which == 2 else 0))
                    bass.note(x + o + jitter(rng, 0.01), d, p, dyn(x) + 4 + jitter(rng, 5))
            x += num

    # Drums: a groove per section, a fill before each new section, a crash on its first beat.
    if dr is not None:
        grooves = {letter: gen_drum_pattern(rng, num) for letter in letters}
        for t0, t1, letter, _occ in spans:
            pat = grooves[letter]
            bar = t0
            while bar < t1 - 1e-6:
                fill = bar + num >= t1 - 1e-6 and rng.random() < 0.7
                for k, hits in pat.items():
                    o = k * 0.25
                    if fill and o >= num - 1:
                        continue
                    for piece, v in hits:
                        dr.note(bar + o + jitter(rng, 0.008), 0.2, piece, v * dyn(bar) / 80.0 + jitter(rng, 6))
                if fill:
                    for k in range(4):
                        dr.note(bar + num - 1 + k * 0.25, 0.2, rng.choice((38, 45, 47, 48, 50)), dyn(bar) + k * 4)
                bar += num
            dr.note(t0, 1.0, rng.choice((49, 57)), dyn(t0) + 10)

    # Ending: the tonic chord held over the ritardando.
    ch, _sc = h.at(end)
    final = voicing(ch.tones, None, 48, 72, 4)
    for i, p in enumerate([near(ch.bass, 40, 33, 45)] + final):
        (bass if i == 0 else comp).note(end + i * 0.04, num * 2, p, 60 - i * 2)
    if dr is not None:
        dr.note(end, 2.0, 49, 70)
    return s


def generated(seed, i):
    """Piece i of seed `seed` for --generate: its id, and the song."""
    key = "generated/%d/%d" % (seed, i)
    rng = seeded(key)
    title = "%s %s No. %d" % (rng.choice(GEN_WORDS), rng.choice(GEN_WORDS), i + 1)
    ident = "gen-s%d-%05d" % (seed, i)
    return ident, piece_generated(rng, ident, title)


def write_song(song, d, name, note=""):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name + ".mid"), "wb") as f:
        f.write(song.to_bytes())
    sys.stderr.write("%s/%s.mid %.1f s%s\n" % (os.path.basename(d), name, song.seconds(), note))


def main_generate(args):
    """--generate N [--seed S] [--first K] OUTDIR: pieces K .. N-1 of seed S (default 1) into
    OUTDIR/generated/<id>.mid, and one line per piece in OUTDIR/generated/pieces.tsv
    (id, seconds, title, tempo, metre, instruments)."""
    usage = "usage: compose.py --generate N [--seed S] [--first K] OUTDIR\n"
    opts = {"--seed": 1, "--first": 0}
    try:
        count = int(args[0])
        rest = args[1:]
        while len(rest) > 1 and rest[0] in opts:
            opts[rest[0]] = int(rest[1])
            rest = rest[2:]
    except (IndexError, ValueError):
        sys.stderr.write(usage)
        return 2
    if len(rest) != 1 or rest[0].startswith("-") or count < 0 or opts["--seed"] < 0 or opts["--first"] < 0:
        sys.stderr.write(usage)
        return 2
    d = os.path.join(rest[0], "generated")
    lines = []
    for i in range(opts["--first"], count):
        ident, song = generated(opts["--seed"], i)
        write_song(song, d, ident)
        programs = ",".join("%s=%d" % (t.name, t.program) for t in song.tracks)
        lines.append("%s\t%.3f\t%s\t%g\t%d/%d\t%s\n" % (ident, song.seconds(), song.title, song.tempos[0][1],
                                                      song.num, song.den, programs))
    with open(os.path.join(d, "pieces.tsv"), "w") as f:
        f.write("".join(lines))
    return 0


def main(argv):
    args = argv[1:]
    if args[:1] == ["--generate"]:
        return main_generate(args[1:])
    kinds = {"--derivatives": ("derivatives", DERIVATIVES), "--kept-most": ("kept-most", KEPT_MOST)}
    kind = kinds.get(args[0]) if args else None
    if kind:
        args = args[1:]
    if len(args) != 1 or args[0].startswith("-"):
        sys.stderr.write("usage: compose.py [--derivatives | --kept-most] OUTDIR\n"
                         "       compose.py --generate N [--seed S] [--first K] OUTDIR\n")
        return 2
    out = args[0]
    if kind:
        sub, table = kind
        pieces = dict(CATALOG)
        for take in range(1, DERIVATIVE_TAKES + 1):
            for ident, part, keep, role in table:
                song = derivative(ident, pieces[ident], part, keep, role, take)
                what = " + ".join(keep) + (" (%s notes)" % role if role else "")
                write_song(song, os.path.join(out, sub), song.ident, ", keeps " + what)
        return 0
    for sub, items in (("catalog", CATALOG), ("outside", OUTSIDE)):
        for ident, fn in items:
            song = fn(seeded(ident))
            assert song.ident == ident
            write_song(song, os.path.join(out, sub), ident)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
