#!/usr/bin/env python3
"""What a catalog costs soundtraced at start and while idle: start->ready (READY=1 on the notify
socket, measured from the spawn) and, once idle, VmRSS, RssAnon, RssFile, PSS and the pages of the
catalog's mapping that count in the RSS; then the same after one session that hears 12 s of music not
in the catalog (ALSA's file plugin, not paced in real time, with Debian's ALSA configuration less
its hooks, as on the appliance; before 2026-12-06 with the hooks), after the background check of the
catalog's content has ended (its log line), so that what a session leaves behind shows. Each start
finds the catalog file in the page cache.

    bench/daemon/catalog-start.py --binary LABEL=PATH [--binary …] --catalog LABEL=PATH [--catalog …]
                                  [--runs N]

Each binary must read each catalog's format (an older build reads the older format: give it its own
--catalog with the same label and prefix the path with the binary's label, LABEL:CATALOGLABEL=PATH).
Prints a Markdown table (docs/BENCHMARKS.md records it). python3 stdlib only, sox for the audio.
"""
import argparse, os, re, shutil, signal, socket, statistics, subprocess, sys, tempfile, time

from appliance_alsa import appliance_alsa_conf

parser = argparse.ArgumentParser()
parser.add_argument("--binary", action="append", required=True, help="LABEL=PATH of a soundtraced build")
parser.add_argument("--catalog", action="append", required=True,
                    help="LABEL=PATH of a catalog, or BINARYLABEL:LABEL=PATH for one binary only")
parser.add_argument("--runs", type=int, default=5, help="starts per binary and catalog (median and max reported)")
parser.add_argument("--outside", default=None, help="a WAV not in the catalogs (default: catalog/outside/salt-meadow-mallets.wav)")
args = parser.parse_args()

repo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
work = tempfile.mkdtemp(prefix="soundtrace-catalog-start-")
children = []


def kb(pid, keys=("VmRSS", "RssAnon", "RssFile", "VmHWM")):
    values = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in keys:
                values[key] = int(rest.split()[0])
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Pss:"):
                values["Pss"] = int(line.split()[1])
    return values


def mapping_rss(pid, path):
    """kB of the catalog file's mapping that count in the RSS."""
    total, inside = 0, False
    real = os.path.realpath(path)
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            first = line.split()[0]
            if re.match(r"^[0-9a-f]+-[0-9a-f]+$", first):
                parts = line.split()
                inside = len(parts) > 5 and parts[5] == real
            elif inside and first == "Rss:":
                total += int(line.split()[1])
    return total


def wait_for(predicate, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False


class Daemon:
    serial = 0

    def __init__(self, binary, catalog):
        Daemon.serial += 1
        self.dir = os.path.join(work, f"d{Daemon.serial}")
        os.makedirs(self.dir + "/home")
        notify_path = self.dir + "/notify"
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(notify_path)
        env = dict(os.environ, ALSA_CONFIG_PATH=alsa_conf, HOME=self.dir + "/home", NOTIFY_SOCKET=notify_path)
        env.pop("WATCHDOG_USEC", None)
        self.log_path = self.dir + "/log"
        spawned = time.monotonic()
        self.process = subprocess.Popen(
            [binary, "--config", "/dev/null", "--no-gpio", "--catalog", catalog, "--state-dir", self.dir + "/state",
             "--port", "0", "--device", "bench_outside"],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(self.log_path, "w"))
        children.append(self.process)
        self.pid = self.process.pid
        self.notify.settimeout(60)
        while "READY=1" not in self.notify.recv(4096).decode(errors="replace").split("\n"):
            pass
        self.ready_seconds = time.monotonic() - spawned
        match = None
        wait_for(lambda: re.search(r"port (\d+)", self.log()) is not None, 10)
        match = re.search(r"serving protocol \d+ on \S+ port (\d+)", self.log())
        self.port = int(match.group(1))

    def log(self):
        return open(self.log_path).read()

    def command(self, line):
        with socket.create_connection(("127.0.0.1", self.port)) as s:
            f = s.makefile("rw")
            f.readline()
            f.write(line + "\n")
            f.flush()
            lines = []
            while True:
                reply = f.readline().rstrip("\n")
                if reply == "OK" or reply.startswith("ACK"):
                    return lines, reply
                lines.append(reply)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(20)
        self.notify.close()


def session(d):
    """One listen on music not in the catalog, to its end, and the capture thread gone."""
    lines, end = d.command("listen")
    if end != "OK":
        raise SystemExit(f"listen: {end}")
    token = dict(l.split(": ", 1) for l in lines)["session"]
    wait_for(lambda: dict(l.split(": ", 1) for l in d.command(f"session {token}")[0]).get("state") != "listening", 60)
    # The capture thread closes the device and ends after the session.
    wait_for(lambda: len(os.listdir(f"/proc/{d.pid}/task")) <= 2, 10)
    time.sleep(0.5)


def row(binary, catalog):
    ready, idle, after, checks = [], [], [], []
    # A build that checks the catalog's content after ready logs when it is done; older builds
    # checked it before ready and say nothing.
    with open(os.path.realpath(binary), "rb") as f:
        checks_later = b"catalog content verified" in f.read()
    for _ in range(args.runs):
        # Every start finds the file in the page cache (as right after a build or a copy): the
        # content check of a newer build advises the pages it read out of the cache, which would
        # make the next start of an older build read it from storage.
        with open(catalog, "rb") as f:
            while f.read(1 << 20):
                pass
        d = Daemon(binary, catalog)
        ready.append(d.ready_seconds)
        if checks_later:
            wait_for(lambda: "catalog content verified" in d.log() or "catalog unusable" in d.log(), 60)
            found = re.search(r"catalog content verified against its SHA-256 in (\d+) ms", d.log())
            if found:
                checks.append(int(found.group(1)))
        time.sleep(1.0)
        idle.append(dict(kb(d.pid), Catalog=mapping_rss(d.pid, catalog)))
        session(d)
        after.append(dict(kb(d.pid), Catalog=mapping_rss(d.pid, catalog)))
        d.stop()
    return ready, idle, after, checks


def med(values):
    return statistics.median(values)


try:
    outside = args.outside or os.path.join(repo, "catalog", "outside", "salt-meadow-mallets.wav")
    raw = os.path.join(work, "outside.raw")
    subprocess.run(["sox", "-V1", "-D", outside, "-t", "raw", "-e", "signed", "-b", "16", "-c", "1", "-r", "8000", raw,
                    "trim", "2", "12", "pad", "0", "2"], check=True)
    alsa_conf = os.path.join(work, "asound.conf")
    with open(alsa_conf, "w") as f:
        f.write(appliance_alsa_conf() + "\n")
        f.write(f'pcm.bench_outside {{ type file; slave.pcm "null"; file "/dev/null"; infile "{raw}"; format "raw" }}\n')
    binaries = [tuple(b.split("=", 1)) for b in args.binary]
    catalogs = []
    for c in args.catalog:
        label, path = c.split("=", 1)
        only = None
        if ":" in label:
            only, label = label.split(":", 1)
        catalogs.append((only, label, path))
    print("| build | catalog | bytes | start→ready ms, median (max) | content check after ready, ms | idle RSS / anon / file / PSS MiB | catalog pages in RSS, idle MiB | after a session: RSS / anon MiB, catalog pages MiB | peak RSS (VmHWM) MiB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for blabel, binary in binaries:
        for only, clabel, path in catalogs:
            if only is not None and only != blabel:
                continue
            ready, idle, after, checks = row(binary, path)
            mb = lambda rows, key: f"{med([r[key] for r in rows]) / 1024:.2f}"
            print(f"| {blabel} | {clabel} | {os.path.getsize(path):,} | {med(ready) * 1000:.0f} ({max(ready) * 1000:.0f}) "
                  f"| {med(checks) if checks else '–'} | {mb(idle, 'VmRSS')} / {mb(idle, 'RssAnon')} / {mb(idle, 'RssFile')} / {mb(idle, 'Pss')} "
                  f"| {mb(idle, 'Catalog')} | {mb(after, 'VmRSS')} / {mb(after, 'RssAnon')}, {mb(after, 'Catalog')} | {mb(after, 'VmHWM')} |", flush=True)
finally:
    for p in children:
        if p.poll() is None:
            p.kill()
            p.wait()
    shutil.rmtree(work, ignore_errors=True)
