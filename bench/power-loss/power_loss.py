"""Power loss of the real daemon (issue 14, part 5): see run.sh."""
import argparse, os, random, signal, sqlite3, struct, subprocess, sys, tempfile, threading, time, wave

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "protocol-stress"))
from stress import Conn, Daemon, Failure  # one daemon launcher and protocol client for every bench

repo = os.path.abspath(os.path.join(here, "..", ".."))


def microphone(tmp):
    """An ALSA capture device that plays 12 s of a catalog recording (the file plugin starts the
    file again at every open, so every session hears it and matches)."""
    with wave.open(os.path.join(repo, "catalog", "audio", "harbor-lights-piano.wav")) as w:
        if (w.getframerate(), w.getnchannels(), w.getsampwidth()) != (16000, 1, 2):
            raise Failure("catalog/audio/harbor-lights-piano.wav is no longer 16 kHz mono 16-bit")
        w.setpos(16000 * 20)
        data = w.readframes(16000 * 12)
    samples = struct.unpack("<%dh" % (len(data) // 2), data)
    # 16 kHz to the daemon's 8 kHz: the mean of each pair, a gentle low-pass that is enough to match.
    pairs = [(samples[i] + samples[i + 1]) // 2 for i in range(0, len(samples) - 1, 2)]
    raw = os.path.join(tmp, "mic.raw")
    with open(raw, "wb") as f:
        f.write(struct.pack("<%dh" % len(pairs), *pairs) + b"\0" * 16000)  # a second of silence at the end
    conf = os.path.join(tmp, "asound.conf")
    with open(conf, "w") as f:
        f.write('</usr/share/alsa/alsa.conf>\npcm.lossmic { type file; slave.pcm "null"; file "/dev/null"; '
                'infile "%s"; format "raw" }\n' % raw)
    return conf


def record(lines):
    return dict(l.split(": ", 1) for l in lines)


class Ledger:
    """What the daemon acknowledged, and what was in flight when it died (no claim either way)."""
    def __init__(self):
        self.saved = set()        # event ids acknowledged as saved and not deleted since
        self.deleted = set()      # event ids whose delete was acknowledged
        self.pending_delete = set()  # deletes sent but not acknowledged when the daemon died
        self.favorite = {}        # reference -> True/False as last acknowledged
        self.uncertain_refs = set()  # a favorite change sent but not acknowledged
        self.given = set()        # the session ids this daemon run has given
        self.given_lock = threading.Lock()
        self.recorded_sessions = set()  # ids of sessions whose match was acknowledged as saved
        self.sessions = 0
        self.matches = 0
        self.outcomes = {}        # how the sessions that ended before a kill ended


def client(port, ledger, rng, stop, stats, edits):
    """Listens (and, for the one client that `edits`, deletes and favorites) until the daemon dies
    under it. One editor, so that the last acknowledged change of a favorite is well defined."""
    try:
        c = Conn(port, timeout=20)
    except OSError:
        return
    try:
        while not stop.is_set():
            roll = rng.random() if edits else 0.0
            if roll < 0.6:
                c.send(b"listen\n")
                lines, term = c.reply()
                if term != "OK":
                    continue
                sid = record(lines)["session"]
                n = int(sid[2:])
                # Ids are unique while the daemon runs. After a kill it continues from the counter it
                # saves before recording a match (docs/PROTOCOL.md), so only a recorded id is never
                # reused. Not "above every id seen so far": the replies of two clients may be read
                # here in the other order than the daemon sent them.
                with ledger.given_lock:
                    if n in ledger.given:
                        raise Failure(f"session id {sid} given twice by one daemon")
                    ledger.given.add(n)
                ledger.sessions += 1
                while True:
                    c.send(f"session {sid}\n".encode())
                    lines, term = c.reply()
                    r = record(lines)
                    if r.get("state") != "listening":
                        break
                    time.sleep(0.02)
                outcome = r.get("state", "?") + ("/" + r["reason"] if "reason" in r else "")
                ledger.outcomes[outcome] = ledger.outcomes.get(outcome, 0) + 1
                if r.get("state") == "matched":
                    ledger.matches += 1
                    if r.get("reference") != "harbor-lights-piano":
                        raise Failure(f"session {sid} matched {r.get('reference')}, but harbor-lights-piano was played")
                    if r.get("saved") == "yes":
                        if sid in ledger.recorded_sessions:
                            raise Failure(f"recorded session id {sid} given again after a restart")
                        ledger.recorded_sessions.add(sid)
                        ledger.saved.add(int(r["event"]))
            elif roll < 0.8 and ledger.saved:
                victim = rng.choice(sorted(ledger.saved))
                ledger.saved.discard(victim)
                ledger.pending_delete.add(victim)
                c.send(f"delete {victim}\n".encode())
                lines, term = c.reply()
                ledger.pending_delete.discard(victim)
                if term != "OK":
                    raise Failure(f"delete {victim} of an acknowledged event: {term}")
                ledger.deleted.add(victim)
                stats["deletes"] += 1
            else:
                ref = rng.choice(["harbor-lights-piano", "lamplight-organ-trio", "summit-banners-brass"])
                verb = rng.choice(["favorite", "unfavorite"])
                ledger.uncertain_refs.add(ref)
                c.send(f"{verb} {ref}\n".encode())
                lines, term = c.reply()
                if term == "OK":
                    ledger.favorite[ref] = record(lines)["favorite"] == "yes"
                    ledger.uncertain_refs.discard(ref)
                    stats["favorites"] += 1
    except (Failure, OSError) as e:
        if isinstance(e, Failure) and not str(e).startswith("connection closed"):
            stats["errors"].append(str(e))
    finally:
        c.close()


def check_database(path, ledger, cycle):
    """The file as the kill left it, read by Python's own SQLite, not the code under test."""
    if not os.path.exists(path):
        # A cut before the daemon's first durable write may leave no file; never after an acknowledgement.
        if ledger.saved or ledger.deleted or ledger.favorite:
            raise Failure(f"cycle {cycle}: {path} is gone, but writes to it were acknowledged")
        return 0
    try:
        db = sqlite3.connect(f"file:{path}?mode=rw", uri=True)
        try:
            ok = db.execute("PRAGMA integrity_check").fetchall()
            if ok != [("ok",)]:
                raise Failure(f"cycle {cycle}: integrity_check says {ok}")
            ids = {row[0] for row in db.execute("SELECT id FROM event")}
            favorites = {row[0] for row in db.execute("SELECT reference_id FROM favorite")}
        finally:
            db.close()
    except sqlite3.Error as e:
        # A schema that vanished (a cut that took the daemon's unsynced first writes) is a loss too.
        raise Failure(f"cycle {cycle}: the history file cannot be read as the daemon left it: {e}")
    # What was in flight at the kill is settled by what the file holds.
    for victim in ledger.pending_delete:
        (ledger.saved if victim in ids else ledger.deleted).add(victim)
    ledger.pending_delete.clear()
    for ref in ledger.uncertain_refs:
        ledger.favorite[ref] = ref in favorites
    ledger.uncertain_refs.clear()
    lost = ledger.saved - ids
    if lost:
        raise Failure(f"cycle {cycle}: acknowledged events missing after the kill: {sorted(lost)[:10]}")
    back = ledger.deleted & ids
    if back:
        raise Failure(f"cycle {cycle}: events whose delete was acknowledged are back: {sorted(back)[:10]}")
    for ref, wanted in ledger.favorite.items():
        if (ref in favorites) != wanted:
            raise Failure(f"cycle {cycle}: favorite {ref} should be {'set' if wanted else 'unset'} as acknowledged")
    return len(ids)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--cycles", type=int, default=200)
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--kill-within", type=float, default=1.5, metavar="SECONDS",
                    help="each kill comes at a random moment this long after the daemon serves (default 1.5)")
    ap.add_argument("--state-dir", help="the daemon's state folder (default: one in a new temporary folder)")
    ap.add_argument("--cut", help="a shell command run after each SIGKILL, before the checks: vm/power-cut.sh "
                                  "drops every write the disk has not yet got and remounts")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    tmp = tempfile.mkdtemp(prefix="soundtrace-power-loss-")
    os.environ["ALSA_CONFIG_PATH"] = microphone(tmp)
    state = args.state_dir or os.path.join(tmp, "state")
    catalog = os.path.join(repo, "catalog", "soundtrace.catalog")
    ledger = Ledger()
    stats = {"deletes": 0, "favorites": 0, "errors": []}
    started = time.monotonic()
    events = 0
    for cycle in range(1, args.cycles + 1):
        # Each start also checks the file the last kill left (quick_check) before it serves.
        d = Daemon(args.binary, catalog, tmp, "lossmic", state=state)
        ledger.given = set()
        stop = threading.Event()
        workers = [threading.Thread(target=client, args=(d.port, ledger, random.Random(rng.random()), stop, stats, edits))
                   for edits in (True, False)]
        for w in workers:
            w.start()
        # A random moment: during a session's write, a delete, a favorite or a WAL checkpoint (most
        # cycles have several writes behind them by then). Kills during the opening checks and
        # migrations are PowerLossTests' (a writer killed before its first event).
        time.sleep(rng.uniform(0.0, args.kill_within))
        d.alive()
        os.kill(d.pid, signal.SIGKILL)
        d.process.wait()
        stop.set()
        for w in workers:
            w.join(30)
            if w.is_alive():
                raise Failure(f"cycle {cycle}: a client hung after the daemon was killed")
        if stats["errors"]:
            raise Failure(f"cycle {cycle}: " + stats["errors"][0])
        if args.cut:
            cut = subprocess.run(["sh", "-c", args.cut], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if cut.returncode != 0:
                raise Failure(f"cycle {cycle}: the cut ({args.cut}) failed with {cut.returncode}: {cut.stdout.strip()}")
        events = check_database(os.path.join(state, "history.db"), ledger, cycle)
        if cycle % 20 == 0 or cycle == args.cycles:
            print(f"[power-loss] cycle {cycle}: {ledger.sessions} sessions, {ledger.matches} matches, "
                  f"{events} events on file, {stats['deletes']} deletes, {stats['favorites']} favorite changes",
                  file=sys.stderr, flush=True)
    # The daemon must come back after the last kill and go on counting sessions.
    d = Daemon(args.binary, catalog, tmp, "lossmic", state=state)
    c = Conn(d.port, timeout=20)
    c.send(b"listen\n")
    lines, term = c.reply()
    highest_recorded = max((int(sid[2:]) for sid in ledger.recorded_sessions), default=0)
    if term != "OK" or int(record(lines)["session"][2:]) <= highest_recorded:
        raise Failure(f"after the last kill: listen gave {term} {lines}")
    c.close()
    d.stop()
    seconds = time.monotonic() - started
    what = "SIGKILLs and power cuts below the file system" if args.cut else "SIGKILLs"
    print(f"power loss: {args.cycles} {what} of soundtraced in {seconds:.0f} s; {ledger.sessions} sessions, "
          f"{ledger.matches} matches ({len(ledger.saved)} acknowledged events kept, {len(ledger.deleted)} acknowledged "
          f"deletes), {stats['favorites']} favorite changes; after every kill: integrity_check ok, every "
          f"acknowledged event present, every acknowledged delete and favorite as acknowledged; restart ok; "
          f"sessions that ended before a kill: {dict(sorted(ledger.outcomes.items()))}")
    subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    try:
        main()
    except Failure as e:
        print(f"FAIL: {e}", file=sys.stderr)
        sys.exit(1)
