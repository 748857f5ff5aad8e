#!/usr/bin/env python3
"""The soak's driver inside the virtual board (vm/soak.sh, issue 14 part 3): the real soundtraced,
already running on gpio-sim and the ALSA loopback, driven for CYCLES session cycles at once by 8
protocol clients and the GPIO button, with catalog excerpts, music outside the catalog, noise and
silence played into the loopback. Every reply is recorded; the invariants are checked at the end.

One client, the conductor, runs the cycles: it picks a clip, plays it (looped) into the loopback,
starts a session (a `listen`, or a bouncing button press), sometimes cancels it (`cancel`, or a press
mid-session) or holds the button between cycles (calm mode), waits until nothing listens, stops the
clip. Session ids count up, so the ids between two cycles' ends are exactly the sessions that heard
that cycle's clip, whoever started them. The 7 other clients send status, session, history, idle,
favorite/unfavorite, delete, listen and cancel (current, and a late one naming an older session) at
random meanwhile; a `listen` only while the conductor says a session runs (a gate the conductor
closes before it stops the clip), so that no session ever hears a clip it is not attributed to.

Prints "CHECK <name>: PASS|FAIL <evidence>" lines and one SOAK-SUMMARY line; exit status: the number
of failed checks. `soak.py --integrity DB` checks a history database after the daemon stopped."""

import argparse
import datetime
import os
import random
import re
import select
import socket
import sqlite3
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stress import Conn, Failure  # noqa: E402  (bench/protocol-stress/stress.py, copied alongside)

CLIENTS = 8
ACK_RE = re.compile(r"^ACK \[(\d+)@0\] \{([^}]*)\} (.*)$")
BUSY_RE = re.compile(r"already listening \(session (s-\d+)\)")
TERMINAL = ("matched", "noMatch", "canceled", "failed")


def sid_num(sid):
    return int(sid[2:])


def parse_time(iso):
    # fromisoformat, not strptime: that imports _strptime lazily, which the guest's trimmed library lacks.
    return datetime.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def fields(lines):
    d = {}
    for line in lines:
        k, _, v = line.partition(": ")
        d.setdefault(k, v)
    return d


def records(lines, first):
    """Lines of a list reply split into records, each starting with the key `first`."""
    out = []
    for line in lines:
        k, _, v = line.partition(": ")
        if k == first:
            out.append({})
        if out:
            out[-1].setdefault(k, v)
    return out


class Soak:
    def __init__(self, args):
        self.args = args
        self.mu = threading.Lock()
        self.gate = threading.Lock()      # held around every client `listen` and by the conductor to close it
        self.stop = threading.Event()
        self.failures = {}                # check name -> [evidence]
        self.passes = {}
        self.phase = "idle"               # "listening" while the conductor's session runs
        self.cycle = 0
        self.cycle_first = 1              # the smallest session number the current cycle may have
        self.cancel_attempted = set()     # cycles in which someone canceled or pressed mid-session
        self.observed = {}                # session id -> [(source, record dict)]
        self.status_seen = []             # (last_session, last_outcome, last_reference)
        self.events_seen = {}             # event id -> set of (session, reference)
        self.deleted = {}                 # event id -> successful deletes
        self.delete_unknown = []          # ids answered ACK 50 by delete
        self.known_events = []
        self.references = []
        self.counts = {k: 0 for k in ("commands", "busy", "late_cancels", "idles", "favorites", "deletes",
                                      "presses", "bounces_slow", "holds", "press_cancels", "cancels")}
        self.sessions = {}                # session id -> dict(cycle, kind, ref, final, start, end)
        self.end_seen = {}                # session id -> time the conductor first saw it over
        self.start_seen = {}
        self.watched = self.ended_upto = 0
        self.end_failed = []              # names of the end checks that failed
        self.rss100 = self.rss100_at = None
        self.anon100 = 0
        self.bursts = []                  # seconds each bounce burst took

    # ------------------------------------------------------------------ bookkeeping
    def fail(self, name, evidence):
        with self.mu:
            lst = self.failures.setdefault(name, [])
            lst.append(evidence)
        if len(lst) <= 3:
            print(f"FAILURE {name}: {evidence}", flush=True)

    def observe(self, sid, source, rec):
        with self.mu:
            self.observed.setdefault(sid, []).append((source, dict(rec)))

    def count(self, key, n=1):
        with self.mu:
            self.counts[key] += n

    # ------------------------------------------------------------------ the daemon from /proc
    def proc(self):
        pid = self.args.pid
        fds = sorted(os.readlink(f"/proc/{pid}/fd/{f}") for f in os.listdir(f"/proc/{pid}/fd"))
        tasks = len(os.listdir(f"/proc/{pid}/task"))
        return fds, tasks, self.status_kb("VmRSS")

    def anon(self):
        # RssAnon: the heap and stacks, where a leak grows. VmRSS also counts the binary's code pages,
        # which paths first taken late in a short run (and the page cache's folio sizes) add to.
        return self.status_kb("RssAnon")

    def status_kb(self, field):
        for line in open(f"/proc/{self.args.pid}/status"):
            if line.startswith(field + ":"):
                return int(line.split()[1])
        return 0

    def start_time(self):
        # Field 22 of /proc/PID/stat (after the parenthesized name): the process's start, in ticks.
        return open(f"/proc/{self.args.pid}/stat").read().rsplit(")", 1)[1].split()[19]

    # ------------------------------------------------------------------ protocol helpers
    def ask(self, c, line, who):
        c.send(line.encode() + b"\n")
        lines, term = c.reply()
        self.count("commands")
        return lines, term

    def expect_ok(self, c, line, who):
        lines, term = self.ask(c, line, who)
        if term != "OK":
            self.fail("unexpected-reply", f"{who}: {line!r} -> {term!r}")
        return lines, term

    def idle_wait(self, c, subsystems, seconds, who):
        """`idle SUBSYSTEMS`, then noidle after `seconds` unless it answered: the changed names."""
        c.send(("idle " + " ".join(subsystems)).strip().encode() + b"\n")
        ready = b"\n" in c.buf or select.select([c.sock], [], [], seconds)[0]
        if not ready:
            c.send(b"noidle\n")
        lines, term = c.reply()
        self.count("idles")
        bad = [l for l in lines if not l.startswith("changed: ")]
        if term != "OK" or bad:
            self.fail("idle-reply", f"{who}: idle {subsystems} -> {lines!r} {term!r}")
        return [l[9:] for l in lines]

    # ------------------------------------------------------------------ the 7 clients
    def client(self, n, c, seed):
        r = random.Random(seed)
        who = f"client {n}"
        my_events = []
        actions = ["status", "session", "history", "idle", "favorite", "delete", "listen", "cancel", "late-cancel"]
        weights = [22, 16, 12, 10, 8, 2, 14, 2, 6]
        try:
            while not self.stop.is_set():
                a = r.choices(actions, weights)[0]
                if a == "status":
                    lines, _ = self.expect_ok(c, "status", who)
                    st = fields(lines)
                    if st.get("state") not in ("idle", "listening"):
                        self.fail("status-state", f"{who}: {st}")
                    if "last_session" in st:
                        with self.mu:
                            self.status_seen.append((st["last_session"], st.get("last_outcome"), st.get("last_reference")))
                elif a == "session":
                    with self.mu:
                        top = self.cycle_first - 1
                    if top < 1:
                        continue
                    sid = f"s-{r.randint(max(1, top - 25), top)}"
                    lines, term = self.ask(c, f"session {sid}", who)
                    if term == "OK":
                        rec = fields(lines)
                        if rec.get("session") != sid:
                            self.fail("stale-result", f"{who}: session {sid} answered for {rec.get('session')}")
                        self.observe(sid, who, rec)
                    elif not term.startswith("ACK [50@0]") or sid_num(sid) > top - 30:
                        self.fail("unexpected-reply", f"{who}: session {sid} -> {term!r}")
                elif a == "history":
                    lines, _ = self.expect_ok(c, "history 0:20", who)
                    evs = records(lines, "id")
                    with self.mu:
                        for e in evs:
                            self.events_seen.setdefault(e["id"], set()).add((e.get("session"), e.get("reference")))
                    my_events = [e["id"] for e in evs]
                elif a == "idle":
                    subs = r.sample(["state", "history", "favorites", "catalog"], r.randint(0, 2))
                    self.idle_wait(c, subs, r.uniform(0.1, 1.5), who)
                elif a == "favorite":
                    ref = r.choice(self.references)
                    verb = r.choice(["favorite", "unfavorite"])
                    lines, _ = self.expect_ok(c, f"{verb} {ref}", who)
                    f = fields(lines)
                    if f.get("reference") != ref or f.get("favorite") != ("yes" if verb == "favorite" else "no"):
                        self.fail("favorite-reply", f"{who}: {verb} {ref} -> {lines!r}")
                    self.count("favorites")
                elif a == "delete" and my_events and r.random() < 0.15:
                    # Now and then, so that the history still grows over the run.
                    eid = r.choice(my_events)
                    my_events.remove(eid)
                    lines, term = self.ask(c, f"delete {eid}", who)
                    with self.mu:
                        if term == "OK" and fields(lines).get("deleted") == eid:
                            self.deleted[eid] = self.deleted.get(eid, 0) + 1
                            self.counts["deletes"] += 1
                        elif term.startswith("ACK [50@0]"):
                            self.delete_unknown.append(eid)
                        else:
                            self.failures.setdefault("unexpected-reply", []).append(f"{who}: delete {eid} -> {lines!r} {term!r}")
                elif a == "listen":
                    with self.gate:
                        if self.phase != "listening":
                            continue
                        cyc, first = self.cycle, self.cycle_first
                        lines, term = self.ask(c, "listen", who)
                        t = time.time()
                    if term == "OK":
                        rec = fields(lines)
                        self.observe(rec.get("session", "?"), who + " listen", rec)
                        with self.mu:
                            self.start_seen.setdefault(rec.get("session"), t)
                    else:
                        m = BUSY_RE.search(term)
                        if not term.startswith("ACK [54@0] {listen}") or not m:
                            self.fail("unexpected-reply", f"{who}: listen -> {term!r}")
                        elif sid_num(m.group(1)) < first:
                            self.fail("stale-result", f"{who}: listen in cycle {cyc} was told busy with {m.group(1)}, an earlier cycle's session (cycle's first s-{first})")
                        self.count("busy")
                elif a == "cancel":
                    # Rarely: most sessions should run to their outcome.
                    if r.random() > 0.03:
                        continue
                    with self.gate:
                        if self.phase != "listening":
                            continue
                        cyc, first = self.cycle, self.cycle_first
                        with self.mu:
                            self.cancel_attempted.add(cyc)
                        lines, _ = self.expect_ok(c, "cancel", who)
                    rec = fields(lines)
                    self.count("cancels")
                    if "session" in rec:
                        self.observe(rec["session"], who + " cancel", rec)
                        if rec.get("state") != "canceled" or sid_num(rec["session"]) < first:
                            self.fail("cancel-reply", f"{who}: cancel in cycle {cyc} (first s-{first}) -> {rec}")
                    elif rec.get("state") != "idle":
                        self.fail("cancel-reply", f"{who}: cancel with nothing listening -> {rec}")
                elif a == "late-cancel":
                    with self.mu:
                        top = self.cycle_first - 1
                    if top < 1:
                        continue
                    sid = f"s-{r.randint(max(1, top - 20), top)}"
                    lines, term = self.ask(c, f"cancel {sid}", who)
                    self.count("late_cancels")
                    if term == "OK":
                        rec = fields(lines)
                        if rec.get("session") != sid or rec.get("state") not in TERMINAL or rec.get("state") == "listening":
                            self.fail("late-cancel", f"{who}: cancel {sid} (ended) -> {rec}")
                        self.observe(sid, who + " late-cancel", rec)
                    elif not term.startswith("ACK [50@0]") or sid_num(sid) > top - 30:
                        self.fail("unexpected-reply", f"{who}: cancel {sid} -> {term!r}")
                time.sleep(r.uniform(0.05, 0.4))
        except (Failure, OSError) as e:
            self.fail("client-connection", f"{who}: {e}")

    # ------------------------------------------------------------------ the button
    def write_pull(self, pressed):
        # Active-low button to ground with the daemon's pull-up: pressed is the simulated pull down.
        os.lseek(self.button_fd, 0, os.SEEK_SET)
        os.write(self.button_fd, b"pull-down" if pressed else b"pull-up")

    def bounce(self, pressed, r):
        """Several edges within about 5 ms ending at `pressed`: True when they did fit in 20 ms
        (the daemon accepts a level stable for 30 ms; a guest descheduled longer makes real presses)."""
        n = r.choice([3, 5, 7])
        # Real time for the burst: each edge wakes the daemon's GPIO thread, which on one emulated
        # CPU would otherwise run between two edges and stretch the burst past the 30 ms debounce.
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
        try:
            t0 = time.monotonic()
            for k in range(n):
                self.write_pull(pressed if (n - 1 - k) % 2 == 0 else not pressed)
                end = time.monotonic() + r.uniform(0.0001, 0.0005)
                while time.monotonic() < end:
                    pass
            took = time.monotonic() - t0
        finally:
            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
        with self.mu:
            self.bursts.append(took)
        ok = took < 0.020
        if not ok:
            self.count("bounces_slow")
        return ok

    def press(self, r, hold):
        clean = self.bounce(True, r)
        time.sleep(hold)
        clean = self.bounce(False, r) and clean
        self.count("presses")
        return clean

    # ------------------------------------------------------------------ the player
    def play(self, pcm, stop, log):
        """Plays the clip's samples again and again, in one aplay, until `stop`. One stream for the
        whole cycle: snd-aloop refuses a capture start (EIO, which the daemon rightly reports as a
        device gone) while the playback end is still being set up, so the playback never restarts
        while sessions may start."""
        p = subprocess.Popen(["aplay", "-q", "-D", "plughw:Loopback,0,0", "-t", "raw", "-f", "S16_LE", "-r", "16000", "-c", "1"],
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        log.append(("aplay", time.time()))
        try:
            while not stop.is_set():
                # A second at a time: aplay's buffer takes half of that, the write blocks for the rest.
                for k in range(0, len(pcm), 32000):
                    if stop.is_set():
                        break
                    p.stdin.write(pcm[k:k + 32000])
                    p.stdin.flush()
        except BrokenPipeError:
            pass
        p.terminate()
        err = p.communicate()[1].decode(errors="replace").strip()
        log.append((f"exit {p.returncode}{': ' + err[:120] if err else ''}", time.time()))

    def playback_running(self):
        try:
            return "RUNNING" in open("/proc/asound/Loopback/pcm0p/sub0/status").read()
        except OSError:
            return False

    # ------------------------------------------------------------------ the conductor
    def status(self, c):
        lines, _ = self.expect_ok(c, "status", "conductor")
        return fields(lines)

    def wait_quiet(self, c, limit):
        """Until nothing listens. Notes, for every session, when the conductor first saw it over (ids
        count up, so one that started and ended between two looks is over by the second); gives up
        (and cancels) after `limit` s of one session listening: a stuck state."""
        while True:
            st = self.status(c)
            now = time.time()
            num = sid_num(st["session"]) if "session" in st else 0
            listening = st.get("state") == "listening"
            with self.mu:
                for k in range(self.watched + 1, num + 1):
                    self.start_seen.setdefault(f"s-{k}", now)
                for k in range(self.ended_upto + 1, num + (0 if listening else 1)):
                    self.end_seen.setdefault(f"s-{k}", now)
                self.watched = max(self.watched, num)
                self.ended_upto = max(self.ended_upto, num - 1 if listening else num)
                first = self.start_seen.get(st.get("session"), now)
            if not listening:
                return st
            if now - first > limit:
                self.fail("stuck-state", f"{st['session']} still listening {now - first:.1f} s after it was first seen: {st}")
                self.expect_ok(c, f"cancel {st['session']}", "conductor")
                continue
            self.idle_wait(c, ["state"], 0.25, "conductor")

    def conductor(self, c, r, clips):
        a = self.args
        pcm = {}
        for _, _, clip in clips:
            if clip not in pcm:
                with open(clip, "rb") as f:
                    pcm[clip] = f.read()[44:]     # the samples after the canonical 44-byte header
        last = 0              # the last session number known to be over
        calm = None
        base = None
        t_first = time.time()
        for i in range(1, a.cycles + 1):
            if self.stop.is_set():
                break
            st = self.wait_quiet(c, a.window + 6)
            if calm is None:
                calm = st.get("calm") == "yes"
            now_sid = sid_num(st["session"]) if "session" in st else 0
            if now_sid != last:
                self.fail("phantom-session", f"before cycle {i}: the newest session is s-{now_sid}, the last cycle ended with s-{last}: {st}")
                last = now_sid
            # Holds between cycles: calm mode toggles, no session starts.
            if r.random() < a.hold_rate:
                clean = self.bounce(True, r)
                time.sleep(r.uniform(1.8, 2.3))
                clean = self.bounce(False, r) and clean
                self.count("holds")
                time.sleep(0.3)
                st = self.status(c)
                if clean:
                    calm = not calm
                    got = st.get("calm") == "yes"
                    if got != calm or st.get("state") != "idle" or sid_num(st.get("session", "s-0")) != last:
                        self.fail("hold-calm", f"cycle {i}: hold should have made calm={'yes' if calm else 'no'} with no session: {st}")
                calm = st.get("calm") == "yes"
            kind, ref, clip = r.choice(clips)
            with self.mu:
                self.cycle = i
                self.cycle_first = last + 1
            stop_player = threading.Event()
            play_log = []
            player = threading.Thread(target=self.play, args=(pcm[clip], stop_player, play_log))
            player.start()
            deadline = time.time() + 5
            while not self.playback_running() and time.time() < deadline:
                time.sleep(0.05)
            time.sleep(0.1)
            by_button = r.random() < a.button_rate
            if by_button:
                clean = self.press(r, r.uniform(0.08, 0.35))
                deadline = time.time() + 5
                started = None
                while time.time() < deadline:
                    st = self.status(c)
                    if sid_num(st.get("session", "s-0")) > last:
                        started = st["session"]
                        with self.mu:
                            self.start_seen.setdefault(started, time.time())
                        break
                    time.sleep(0.05)
                if started is None and clean:
                    self.fail("press-starts-session", f"cycle {i}: a bouncing press started no session within 5 s: {st}")
            else:
                lines, term = self.ask(c, "listen", "conductor")
                rec = fields(lines)
                if term != "OK" or rec.get("state") != "listening":
                    self.fail("listen-starts-session", f"cycle {i}: listen -> {lines!r} {term!r}")
                if "session" in rec:
                    self.observe(rec["session"], "conductor listen", rec)
                    with self.mu:
                        self.start_seen.setdefault(rec["session"], time.time())
            with self.gate:
                self.phase = "listening"
            roll = r.random()
            if roll < a.cancel_rate:
                time.sleep(r.uniform(0.3, a.window - 0.5))
                with self.mu:
                    self.cancel_attempted.add(i)
                st = self.status(c)
                if st.get("state") == "listening":
                    lines, _ = self.expect_ok(c, f"cancel {st['session']}", "conductor")
                    self.observe(st["session"], "conductor cancel", fields(lines))
                self.count("cancels")
            elif roll < a.cancel_rate + a.press_cancel_rate:
                time.sleep(r.uniform(0.3, a.window - 0.5))
                with self.mu:
                    self.cancel_attempted.add(i)
                self.press(r, r.uniform(0.08, 0.3))
                self.count("press_cancels")
                # The daemon acts on the release 30 ms after its last edge: until then the state
                # still shows the session that may have ended by itself, and the press may yet start one.
                time.sleep(0.3)
            self.wait_quiet(c, a.window + 6)
            with self.gate:
                self.phase = "closing"
            st = self.wait_quiet(c, a.window + 6)
            stop_player.set()
            player.join()
            newest = sid_num(st.get("session", "s-0"))
            for n in range(last + 1, newest + 1):
                sid = f"s-{n}"
                lines, term = self.ask(c, f"session {sid}", "conductor")
                rec = fields(lines) if term == "OK" else {}
                if term != "OK" or rec.get("session") != sid:
                    self.fail("stale-result", f"cycle {i}: session {sid} -> {lines!r} {term!r}")
                self.sessions[sid] = {"cycle": i, "kind": kind, "ref": ref, "final": rec, "button": by_button, "player": play_log}
            last = max(last, newest)
            if self.rss100 is None and len(self.sessions) >= min(100, max(1, a.cycles // 2)):
                self.rss100, self.rss100_at = self.proc()[2], len(self.sessions)
                self.anon100 = self.anon()
            if i == 1:
                time.sleep(1)
                base = self.proc()
            try:
                alive = self.start_time() == self.started
            except OSError:
                alive = False
            if not alive:
                self.fail("daemon-restarts", f"cycle {i}: soundtraced pid {a.pid} is gone or was restarted")
                self.stop.set()
                break
            if i % a.report_every == 0:
                el = time.time() - t_first
                print(f"PROGRESS cycle {i}/{a.cycles}: {len(self.sessions)} sessions in {el:.0f} s "
                      f"({len(self.sessions) / el:.3f}/s), VmRSS {self.proc()[2]} kB, failures {sum(len(v) for v in self.failures.values())}", flush=True)
        self.elapsed = time.time() - t_first
        self.base, self.calm = base, calm

    # ------------------------------------------------------------------ the checks at the end
    def check(self, name, ok, evidence):
        if not ok:
            self.end_failed.append(name)
        print(f"CHECK {name}: {'PASS' if ok else 'FAIL'} {evidence}", flush=True)

    def led_sample(self, seconds):
        seen = {n: set() for n in self.leds}
        end = time.time() + seconds
        while time.time() < end:
            for n, path in self.leds.items():
                seen[n].add(open(path).read().strip())
            time.sleep(0.02)
        return {n: "".join(sorted(v)) for n, v in seen.items()}

    def finish(self, c):
        a = self.args
        st = self.wait_quiet(c, a.window + 6)
        # Let one-shot tones and the 2 s steps of calm mode run out before the lines are compared.
        time.sleep(3.5)
        st = self.status(c)
        lines_seen = self.led_sample(3.2)
        st2 = self.status(c)
        calm = st.get("calm") == "yes"
        outcome = st.get("last_outcome")
        # What docs/HARDWARE.md's patterns leave on the lines, as the set of levels seen over 3 s.
        want = {"L": "0", "R": "0", "B": "0"}
        if outcome == "matched":
            want["R"] = "1"
        elif outcome == "noMatch" and not calm:
            want["R"] = "01"
        elif outcome == "failed":
            want["L"] = want["R"] = "1" if calm else "01"
        same = (st.get("state"), outcome, st.get("calm"), st.get("last_session")) == \
               (st2.get("state"), st2.get("last_outcome"), st2.get("calm"), st2.get("last_session"))
        self.check("leds-match-status", same and st.get("state") == "idle" and lines_seen == want,
                   f"status state={st.get('state')} last_outcome={outcome} calm={st.get('calm')} -> want levels {want}, "
                   f"saw {lines_seen} over 3.2 s (GPIO23=L GPIO24=R GPIO25=B)")
        self.check("calm-as-expected", self.calm is None or calm == self.calm,
                   f"status calm={st.get('calm')}, expected {'yes' if self.calm else 'no'} from the holds")

        # The whole history, page by page.
        history = []
        while True:
            lines, _ = self.expect_ok(c, f"history {len(history)}:{len(history) + 100}", "conductor")
            page = records(lines, "id")
            if not page:
                break
            history.extend(page)
        return history

    def verify(self, history, fds_end, tasks_end, rss_end):
        a = self.args
        allowed_fail = []
        matches = nomatch = catalog_nomatch = canceled = failed = 0
        # A recognition deleted before a session's record was read leaves it `saved: deleted`
        # without its event id (docs/PROTOCOL.md); the history listings name the session it was.
        for sid, s in self.sessions.items():
            if s["final"].get("saved") == "deleted" and not s["final"].get("event"):
                eid = next((e for e, seen in self.events_seen.items() if any(se == sid for se, _ in seen)), None)
                s["final"] = dict(s["final"], event=eid)
        wrong, unexplained_cancel, slow, unsaved = [], [], [], []
        reasons = {}
        durations = []
        for sid, s in sorted(self.sessions.items(), key=lambda kv: sid_num(kv[0])):
            rec = s["final"]
            state = rec.get("state")
            if state == "matched":
                matches += 1
                if s["kind"] != "catalog" or rec.get("reference") != s["ref"]:
                    wrong.append(f"{sid} played {s['kind']} {s['ref'] or ''} matched {rec.get('reference')}")
                if rec.get("saved") not in ("yes", "deleted") or not rec.get("event"):
                    unsaved.append(f"{sid}: {rec}")
            elif state == "noMatch":
                nomatch += 1
                reasons[rec.get("reason")] = reasons.get(rec.get("reason"), 0) + 1
                if s["kind"] == "catalog":
                    catalog_nomatch += 1
            elif state == "canceled":
                canceled += 1
                if s["cycle"] not in self.cancel_attempted:
                    unexplained_cancel.append(f"{sid} (cycle {s['cycle']})")
            elif state == "failed":
                failed += 1
                t = parse_time(rec["started_at"]) if "started_at" in rec else 0
                allowed_fail.append(f"{sid} (cycle {s['cycle']}, {s['kind']}, {'button' if s['button'] else 'listen'}"
                                    f"{', a cancel or press mid-session' if s['cycle'] in self.cancel_attempted else ''}; player, s after "
                                    f"started_at: {' '.join(f'{w}@{at - t:+.2f}' for w, at in s['player'])}): {rec.get('reason')} {rec.get('message')}")
            else:
                wrong.append(f"{sid} ended {state!r}: {rec}")
            if state in TERMINAL and "started_at" in rec and sid in self.end_seen:
                d = self.end_seen[sid] - parse_time(rec["started_at"])
                durations.append(d)
                if d > a.window + 1.0:
                    slow.append(f"{sid} {state} after {d:.2f} s")
        n = len(self.sessions)
        self.check("sessions-all-ended", n > 0 and not [1 for s in self.sessions.values() if s["final"].get("state") not in TERMINAL],
                   f"{n} sessions over {self.cycles_done} cycles")
        self.check("reference-correct", not wrong, f"{matches} matches, each the reference played; wrong: {wrong[:5]}")
        self.check("no-failed-sessions", not allowed_fail, f"{failed} failed: {allowed_fail[:5]}")
        self.check("cancels-explained", not unexplained_cancel, f"{canceled} canceled, all in cycles with a cancel or mid-session press; unexplained: {unexplained_cancel[:5]}")
        durations.sort()
        self.check("no-stuck-state", not slow and len(durations) == n,
                   f"every session ended within its window + 1 s ({a.window + 1} s) of started_at: "
                   f"{len(durations)}/{n} timed, max {durations[-1] if durations else 0:.2f} s, "
                   f"median {durations[len(durations) // 2] if durations else 0:.2f} s; over: {slow[:5]}")
        self.check("matches-saved", not unsaved, f"every match says saved: yes with its event (or saved: deleted, its event deleted since); not: {unsaved[:5]}")

        # Stale results: whatever anyone was told about a session, once it had ended, is its final record.
        stale = []
        keys = ("session", "state", "reference", "event", "reason")
        for sid, obs in self.observed.items():
            final = self.sessions.get(sid, {}).get("final")
            if final is None:
                stale.append(f"{sid} told to {obs[0][0]} but never among the cycles' sessions")
                continue
            for src, rec in obs:
                # Told after its recognition was deleted: the same record, without the event id.
                if rec.get("saved") == "deleted" and final.get("event") in self.deleted:
                    rec = dict(rec, event=final.get("event"))
                if rec.get("state") in TERMINAL and any(rec.get(k) != final.get(k) for k in keys):
                    stale.append(f"{src} was told {[rec.get(k) for k in keys]} for {sid}, final {[final.get(k) for k in keys]}")
        for last, outcome, ref in self.status_seen:
            final = self.sessions.get(last, {}).get("final", {})
            if final.get("state") != outcome or final.get("reference") != ref:
                stale.append(f"status said {last} {outcome} {ref}, final {final.get('state')} {final.get('reference')}")
        self.check("no-stale-results", not stale,
                   f"{sum(len(v) for v in self.observed.values())} session records and {len(self.status_seen)} status outcomes "
                   f"agree with each session's final record; disagreeing: {stale[:5]}")

        # The history: every match recorded exactly once, under its own session, with its reference.
        by_event = {}
        problems = []
        for e in history:
            if e["id"] in by_event:
                problems.append(f"event {e['id']} listed twice")
            by_event[e["id"]] = e
        sessions_in_history = {}
        for e in history:
            sessions_in_history.setdefault(e.get("session"), []).append(e["id"])
        doubles = {k: v for k, v in sessions_in_history.items() if len(v) > 1}
        for eid, seen in self.events_seen.items():
            for session, ref in seen:
                final = self.sessions.get(session, {}).get("final", {})
                if final.get("event") != eid or final.get("reference") != ref:
                    problems.append(f"event {eid} seen as {session} {ref}; that session's record: {final.get('state')} event {final.get('event')} {final.get('reference')}")
        for eid, e in by_event.items():
            s = self.sessions.get(e.get("session"))
            if not s or s["final"].get("event") != eid or s["final"].get("reference") != e.get("reference"):
                problems.append(f"history event {eid} {e.get('session')} {e.get('reference')} is no match we were told of")
            elif s["kind"] != "catalog" or s["ref"] != e.get("reference"):
                problems.append(f"history event {eid} {e.get('session')} {e.get('reference')}: {s['kind']} {s['ref']} was played")
            if eid in self.deleted:
                problems.append(f"event {eid} was deleted yet is listed")
        missing = []
        for sid, s in self.sessions.items():
            if s["final"].get("state") == "matched":
                eid = s["final"].get("event")
                if (eid in by_event) == (eid in self.deleted):
                    missing.append(f"{sid} event {eid}: listed {eid in by_event}, deleted {self.deleted.get(eid, 0)} times")
        bad_deletes = [k for k, v in self.deleted.items() if v != 1] + [k for k in self.delete_unknown if k not in self.deleted]
        self.check("matches-recorded-once", not problems and not doubles and not missing and not bad_deletes,
                   f"{len(history)} events listed + {len(self.deleted)} deleted = {matches} matches; "
                   f"double: {list(doubles.items())[:3]}; missing: {missing[:3]}; wrong: {problems[:3]}; deletes not once: {bad_deletes[:3]}")

        # fds and threads at the end (idle, the same 8 clients connected) against after cycle 1.
        fds0, tasks0, _ = self.base
        extra = sorted(set(fds_end) - set(fds0)) if len(fds_end) != len(fds0) else []
        self.check("no-leaked-fds", len(fds_end) <= len(fds0), f"{len(fds0)} after cycle 1, {len(fds_end)} at the end; new: {extra[:8]}")
        self.check("no-leaked-threads", tasks_end <= tasks0, f"{tasks0} after cycle 1, {tasks_end} at the end")
        growth = rss_end - (self.rss100 or rss_end)
        anon_end = self.anon()
        anon_growth = anon_end - (self.anon100 if self.rss100 is not None else anon_end)
        self.check("rss-growth", self.rss100 is not None and anon_growth <= 1024,
                   f"RssAnon {self.anon100 if self.rss100 is not None else None} kB after session {self.rss100_at}, {anon_end} kB at the end: "
                   f"{anon_growth:+d} kB (bound +1024); VmRSS {self.rss100} -> {rss_end} kB ({growth:+d} kB, code pages included)")
        # What went wrong while the cycles ran, one CHECK per kind.
        for name, ev in sorted(self.failures.items()):
            self.check(name, False, f"{len(ev)} times, first: {ev[:3]}")
        if not self.failures:
            c = self.counts
            self.check("protocol-and-button", True, f"{c['commands']} commands, every reply as expected ({c['busy']} busy, "
                       f"{c['idles']} idles, {c['cancels']} cancels, {c['late_cancels']} late cancels, {c['favorites']} (un)favorites, "
                       f"{c['deletes']} deletes); {c['presses']} presses ({c['bounces_slow']} bounces over 20 ms, median "
                       f"{sorted(self.bursts)[len(self.bursts) // 2] * 1000 if self.bursts else 0:.1f} ms, longest "
                       f"{max(self.bursts, default=0) * 1000:.1f} ms), "
                       f"{c['press_cancels']} of them mid-session, {c['holds']} holds; 0 phantom sessions, 0 restarts")
        c = self.counts
        rate = n / self.elapsed if self.elapsed else 0
        print(f"SOAK-SUMMARY cycles={self.cycles_done} sessions={n} seconds={self.elapsed:.0f} sessions/s={rate:.3f} "
              f"matches={matches} no-matches={nomatch} (catalog excerpts not matched: {catalog_nomatch}; reasons {reasons}) "
              f"canceled={canceled} failed={failed} rss100={self.rss100}kB(at session {self.rss100_at}) rss-end={rss_end}kB "
              f"fds={len(self.base[0])}->{len(fds_end)} threads={self.base[1]}->{tasks_end} presses={c['presses']} holds={c['holds']} "
              f"commands={c['commands']} history={len(history)} deleted={len(self.deleted)} "
              f"failed-checks={len(self.end_failed)}", flush=True)
        return len(self.end_failed)

    # ------------------------------------------------------------------ the run
    def run(self):
        a = self.args
        self.started = self.start_time()
        self.button_fd = os.open(os.path.join(a.button, "pull"), os.O_WRONLY)
        self.leds = {"L": os.path.join(a.led_listen, "value"), "R": os.path.join(a.led_result, "value"),
                     "B": os.path.join(a.buzzer, "value")}
        clips = []
        for name in sorted(os.listdir(a.clips)):
            kind, _, rest = name[:-4].partition("--")
            clips.append((kind, rest.rsplit("@", 1)[0] if kind == "catalog" else None, os.path.join(a.clips, name)))
        # Half the cycles play catalog excerpts; the rest is split between the other kinds.
        weighted = []
        for k in ("catalog", "outside", "noise", "silence"):
            group = [x for x in clips if x[0] == k]
            if not group:
                raise SystemExit(f"no {k} clips in {a.clips}")
            share = {"catalog": 50, "outside": 20, "noise": 15, "silence": 15}[k]
            weighted += group * (share * 10 // len(group) or 1)
        conns = [Conn(a.port, a.timeout) for _ in range(CLIENTS)]
        lines, _ = self.expect_ok(conns[0], "catalog", "conductor")
        self.references = [f["reference"] for f in records(lines, "reference")]
        r = random.Random(a.seed)
        threads = [threading.Thread(target=self.client, args=(n, conns[n], a.seed * 100 + n), daemon=True) for n in range(1, CLIENTS)]
        for t in threads:
            t.start()
        code = 0
        try:
            self.conductor(conns[0], r, weighted)
        except (Failure, OSError) as e:
            self.fail("conductor-connection", f"{e}")
        self.cycles_done = self.cycle
        self.stop.set()
        for t in threads:
            t.join(30)
        history = []
        try:
            history = self.finish(conns[0])
        except (Failure, OSError) as e:
            self.fail("conductor-connection", f"at the end: {e}")
        # The capture thread of the last session exits after the device closed: give it a moment.
        deadline = time.time() + 5
        while True:
            fds_end, tasks_end, rss_end = self.proc()
            if self.base is None or (len(fds_end) <= len(self.base[0]) and tasks_end <= self.base[1]) or time.time() > deadline:
                break
            time.sleep(0.2)
        if self.base is None:
            self.base = (fds_end, tasks_end, rss_end)
        code = self.verify(history, fds_end, tasks_end, rss_end)
        for c in conns:
            c.close()
        return code


def integrity(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = [r[0] for r in db.execute("PRAGMA integrity_check")]
    n = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    ok = rows == ["ok"]
    print(f"CHECK history-integrity: {'PASS' if ok else 'FAIL'} PRAGMA integrity_check of {path}: {rows[:5]} ({n} schema objects)")
    return 0 if ok else 1


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--integrity", metavar="DB", help="only check this history database")
    p.add_argument("--cycles", type=int, default=50)
    p.add_argument("--port", type=int, default=6680)
    p.add_argument("--pid", type=int)
    p.add_argument("--window", type=int, default=3, help="the daemon's window_seconds")
    p.add_argument("--clips", default="/payload/clips", help="folder of KIND--NAME.wav clips (catalog--REF@S.wav)")
    p.add_argument("--button", help="gpio-sim folder (sim_gpioN) of the button line")
    p.add_argument("--led-listen")
    p.add_argument("--led-result")
    p.add_argument("--buzzer")
    p.add_argument("--seed", type=int, default=14)
    p.add_argument("--button-rate", type=float, default=0.4, help="share of cycles started by the button")
    p.add_argument("--cancel-rate", type=float, default=0.05, help="share of cycles the conductor cancels")
    p.add_argument("--press-cancel-rate", type=float, default=0.07, help="share of cycles with a press mid-session")
    p.add_argument("--hold-rate", type=float, default=0.03, help="share of cycles after a hold (calm mode)")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds a reply may take")
    p.add_argument("--report-every", type=int, default=50)
    a = p.parse_args()
    if a.integrity:
        sys.exit(integrity(a.integrity))
    sys.exit(min(Soak(a).run(), 100))


if __name__ == "__main__":
    main()
