"""soundtraced's resources: memory idle and while listening, wakeups while idle, start->ready,
listen->capture. See run.sh for the arguments; prints Markdown tables. python3 stdlib only."""
import argparse, json, os, re, shutil, signal, socket, statistics, subprocess, sys, tempfile, threading, time

from appliance_alsa import appliance_alsa_conf

parser = argparse.ArgumentParser()
parser.add_argument("--binary", action="append", required=True, help="LABEL=PATH of a soundtraced build")
parser.add_argument("--baseline", action="append", default=[], help="LABEL=PATH of a baseline program")
parser.add_argument("--repo", required=True)
parser.add_argument("--idle-seconds", type=float, default=60)
parser.add_argument("--runs", type=int, default=30)
parser.add_argument("--nice", type=int, default=-15, help="priority for this script and its children (0: leave it)")
parser.add_argument("--sessions", type=int, default=30)
parser.add_argument("--big-catalog", default=None)
parser.add_argument("--json", default=None, help="also write all raw numbers here")
args = parser.parse_args()

binaries = [tuple(b.split("=", 1)) for b in args.binary]
baselines = [tuple(b.split("=", 1)) for b in args.baseline]
repo = args.repo
catalog = os.path.join(repo, "catalog", "soundtrace.catalog")
work = tempfile.mkdtemp(prefix="soundtrace-bench-daemon-")
raw = {}
children = []


def log(text):
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def median_max(values, scale=1000.0, digits=1):
    if not values:
        return "–", "–"
    return f"{statistics.median(values) * scale:.{digits}f}", f"{max(values) * scale:.{digits}f}"


def mb(kb):
    return f"{kb / 1024:.2f}"


# ---------------------------------------------------------------- /proc

def proc_status(pid):
    values = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile", "RssShmem", "Threads"):
                values[key] = int(rest.split()[0])
    return values


def proc_pss(pid):
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Pss:"):
                return int(line.split()[1])
    return 0


def switches(pid):
    """Total voluntary and involuntary context switches of every thread, and CPU ticks."""
    voluntary = involuntary = 0
    threads = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches"):
                        voluntary += int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches"):
                        involuntary += int(line.split()[1])
            threads += 1
        except FileNotFoundError:
            pass
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime + stime
    return voluntary, involuntary, ticks, threads


def reset_peak(pid):
    with open(f"/proc/{pid}/clear_refs", "w") as f:
        f.write("5")  # resets VmHWM to the current RSS


def smaps_by_file(pid):
    totals = {}
    current = None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            first = line.split()[0]
            if re.match(r"^[0-9a-f]+-[0-9a-f]+$", first):
                parts = line.split()
                current = parts[5] if len(parts) > 5 else "[anonymous]"
                if current.startswith("/tmp/soundtrace-bench-daemon-") or current.endswith(".db-shm"):
                    current = "history.db-shm (SQLite WAL index)"
                current = re.sub(r"\.so[.0-9]*$", ".so", os.path.basename(current)) if current.startswith("/") else current
            elif first == "Rss:":
                totals[current] = totals.get(current, 0) + int(line.split()[1])
    return sorted(totals.items(), key=lambda kv: -kv[1])


# ---------------------------------------------------------------- audio and microphones

def sox(*arguments):
    subprocess.run(["sox", "-V1", "-D", *arguments], check=True)


def prepare_audio():
    audio = os.path.join(work, "audio")
    os.makedirs(audio)
    manifest = json.load(open(os.path.join(repo, "catalog", "manifest.json")))
    first = manifest["references"][0]
    reference = os.path.join(repo, "catalog", first["sourceFile"])
    outside = os.path.join(repo, "catalog", "outside", "salt-meadow-mallets.wav")
    s16 = ["-t", "raw", "-e", "signed", "-b", "16", "-c", "1", "-r", "8000"]
    # File-plugin recordings (8 kHz raw; one extra second: the plugin repeats stale data past the end).
    sox(reference, *s16, f"{audio}/match.raw", "trim", "30", "12", "pad", "0", "1")
    sox(outside, *s16, f"{audio}/outside.raw", "trim", "2", "12", "pad", "0", "2")
    sox("-n", *s16, f"{audio}/silence.raw", "trim", "0", "14")
    # What the pulse microphone hears while listening: music not in the catalog, so the session
    # does the full work (peaks, hashes, votes) for its whole window. Leading silence as advised.
    sox(outside, "-r", "16000", "-c", "1", f"{audio}/outside-play.wav", "pad", "1", "0")
    return audio, first["id"]


class Pulse:
    """A private PulseAudio server with a null sink `vmic`; its monitor is the microphone."""

    def __init__(self):
        self.dir = os.path.join(work, "pulse")
        os.makedirs(self.dir + "/config", mode=0o700)
        self.env = dict(os.environ, XDG_RUNTIME_DIR=self.dir, HOME=self.dir, XDG_CONFIG_HOME=self.dir + "/config",
                        PULSE_SERVER=f"unix:{self.dir}/pulse/native")
        self.env.pop("NOTIFY_SOCKET", None)
        self.restarts = 0
        self.start()

    def start(self):
        if os.path.exists(self.dir + "/notify"):
            os.unlink(self.dir + "/notify")
        notify = NotifySocket(self.dir + "/notify")
        env = dict(self.env, NOTIFY_SOCKET=notify.path)
        self.process = subprocess.Popen(
            ["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--system=no",
             f"--log-target=file:{self.dir}/pulseaudio.log", "--log-level=notice",
             "--load=module-native-protocol-unix auth-anonymous=1",
             "--load=module-null-sink sink_name=vmic rate=16000 channels=1"],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        children.append(self.process)
        if notify.wait_ready(10) is None:
            raise SystemExit(f"pulseaudio did not report ready; see {self.dir}/pulseaudio.log")
        notify.close()

    def ensure(self):
        """Restarts the server if it is gone (seen once: another process ended it mid-run)."""
        if self.process.poll() is not None:
            log(f"pulseaudio exited ({self.process.returncode}); restarting it")
            self.restarts += 1
            self.start()

    def alsa(self, name):
        return f'pcm.{name} {{ type pulse; server "unix:{self.dir}/pulse/native"; device "vmic.monitor" }}\n'

    def play(self, wav):
        p = subprocess.Popen(["paplay", "--latency-msec=100", "--device=vmic", wav], env=self.env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        children.append(p)
        return p

    def subscribe(self):
        return Subscription(self.env)


class Subscription:
    """`pactl subscribe`, timestamping each new capture stream (source-output) as it appears."""

    def __init__(self, env):
        self.process = subprocess.Popen(["stdbuf", "-oL", "pactl", "subscribe"], env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True)
        children.append(self.process)
        self.events = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        time.sleep(0.3)

    def _read(self):
        for line in self.process.stdout:
            if "'new' on source-output" in line:
                with self.lock:
                    self.events.append(time.monotonic())

    def first_after(self, instant, timeout=2.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                later = [t for t in self.events if t >= instant]
            if later:
                return later[0]
            time.sleep(0.002)
        return None

    def stop(self):
        self.process.terminate()
        self.process.wait()


# ---------------------------------------------------------------- the daemon and its protocol

class NotifySocket:
    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.watchdogs = 0
        self.ready_at = None

    def wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.sock.settimeout(max(0.001, deadline - time.monotonic()))
            try:
                message = self.sock.recv(4096).decode(errors="replace")
            except socket.timeout:
                break
            now = time.monotonic()
            if "WATCHDOG=1" in message.split("\n"):
                self.watchdogs += 1
            if "READY=1" in message.split("\n"):
                self.ready_at = now
                return now
        return None

    def count_watchdogs(self):
        """Drains the socket; returns how many WATCHDOG=1 arrived so far."""
        self.sock.setblocking(False)
        try:
            while True:
                if "WATCHDOG=1" in self.sock.recv(4096).decode(errors="replace").split("\n"):
                    self.watchdogs += 1
        except BlockingIOError:
            pass
        return self.watchdogs

    def close(self):
        self.sock.close()
        os.unlink(self.path)


class Daemon:
    serial = 0

    def __init__(self, binary, device, env_extra=None, catalog_path=None, state=None, notify=True, conf=None):
        Daemon.serial += 1
        self.dir = os.path.join(work, f"daemon-{Daemon.serial}")
        os.makedirs(self.dir + "/home", exist_ok=True)
        self.state = state or self.dir + "/state"
        os.makedirs(self.state, exist_ok=True)
        env = dict(os.environ, ALSA_CONFIG_PATH=conf or alsa_conf, HOME=self.dir + "/home",
                   XDG_CONFIG_HOME=self.dir + "/home/.config", XDG_RUNTIME_DIR=self.dir + "/home")
        for key in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "PULSE_SERVER"):
            env.pop(key, None)
        env.update(env_extra or {})
        self.notify = NotifySocket(self.dir + "/notify") if notify else None
        if self.notify:
            env["NOTIFY_SOCKET"] = self.notify.path
        self.stderr_path = self.dir + "/stderr"
        command = [binary, "--config", "/dev/null", "--no-gpio", "--catalog", catalog_path or catalog,
                   "--state-dir", self.state, "--port", "0", "--device", device]
        self.spawned_at = time.monotonic()
        self.process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=open(self.stderr_path, "w"))
        children.append(self.process)
        self.pid = self.process.pid
        self.ready_seconds = None
        if self.notify:
            ready = self.notify.wait_ready(30)
            if ready is None:
                raise SystemExit(f"{binary} did not report READY=1 within 30 s:\n{open(self.stderr_path).read()}")
            self.ready_seconds = ready - self.spawned_at
        self.port = self._port()

    def _port(self):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            match = re.search(r"serving protocol \d+ on \S+ port (\d+)", open(self.stderr_path).read())
            if match:
                return int(match.group(1))
            if self.process.poll() is not None:
                raise SystemExit(f"soundtraced exited:\n{open(self.stderr_path).read()}")
            time.sleep(0.005)
        raise SystemExit("soundtraced did not log its port")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            log(f"soundtraced {self.pid} did not stop on SIGTERM within 20 s")
        if self.notify:
            self.notify.close()


class Client:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.file = self.sock.makefile("rb")
        greeting = self.file.readline().decode().strip()
        if greeting != "OK SOUNDTRACE 1":
            raise SystemExit(f"unexpected greeting {greeting!r}")

    def send(self, line):
        self.sock.sendall((line + "\n").encode())

    def reply(self):
        lines = []
        while True:
            line = self.file.readline().decode().rstrip("\n")
            if line == "":
                raise SystemExit("soundtraced closed the connection")
            if line == "OK" or line.startswith("ACK "):
                return lines, line
            lines.append(line)

    def command(self, line):
        self.send(line)
        return self.reply()

    def close(self):
        self.sock.close()


def fields(lines):
    result = {}
    for line in lines:
        key, _, value = line.partition(": ")
        result.setdefault(key, value)
    return result


def listen(client, on_pulse):
    """`listen`, retried once after restarting PulseAudio if the pulse microphone's server is gone."""
    if on_pulse:
        pulse.ensure()
    sent = time.monotonic()
    client.send("listen")
    lines, end = client.reply()
    answered = time.monotonic()
    if end != "OK" and on_pulse and "sound server" in end:
        log(f"listen: {end}")
        time.sleep(0.5)
        pulse.ensure()
        sent = time.monotonic()
        client.send("listen")
        lines, end = client.reply()
        answered = time.monotonic()
    if end != "OK":
        raise SystemExit(f"listen failed: {end}")
    return lines, sent, answered


def wait_session_end(client, session, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines, end = client.command(f"session {session}")
        record = fields(lines)
        if record.get("state") != "listening":
            return record
        time.sleep(0.05)
    raise SystemExit(f"session {session} still listening after {timeout} s")


def wait_capture_closed(pid, timeout=5):
    """The capture thread closes the device and exits after the session ends."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc_status(pid)["Threads"] <= 2:
            return True
        time.sleep(0.01)
    return False


class Sampler:
    """Samples VmRSS and RssAnon every 5 ms until stopped."""

    def __init__(self, pid):
        self.pid = pid
        self.peak_rss = self.peak_anon = 0
        self.samples = 0
        self.running = True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while self.running:
            try:
                s = proc_status(self.pid)
            except (FileNotFoundError, ProcessLookupError):
                return
            self.peak_rss = max(self.peak_rss, s["VmRSS"])
            self.peak_anon = max(self.peak_anon, s["RssAnon"])
            self.samples += 1
            time.sleep(0.005)

    def stop(self):
        self.running = False
        self.thread.join()


# ---------------------------------------------------------------- the measurements

COMMANDS = ["ping", "commands", "status", "catalog", "catalog 0:3", "history", "favorites", "guide",
            "session s-999", "reference {ref}", "share 1", "show 1"]


def memory(label, binary):
    """Idle after start, idle after commands, peak while a pulse session listens, after it."""
    log(f"{label}: memory idle and while listening")
    d = Daemon(binary, "bench_pulse")
    time.sleep(1.0)
    row = {"start": proc_status(d.pid), "start_pss": proc_pss(d.pid)}
    c = Client(d.port)
    for command in COMMANDS:
        c.command(command.format(ref=reference_id))
    time.sleep(0.5)
    row["commands"] = proc_status(d.pid)
    row["smaps_idle"] = smaps_by_file(d.pid)
    pulse.ensure()
    player = pulse.play(audio_dir + "/outside-play.wav")
    time.sleep(1.2)
    reset_peak(d.pid)
    before = proc_status(d.pid)
    sampler = Sampler(d.pid)
    lines, _, _ = listen(c, True)
    session = fields(lines)["session"]
    started = time.monotonic()
    time.sleep(5)
    # Libraries the pulse plugin brought in (libpulse and its dependencies): the simulated
    # microphone's cost, which a hw: device on the appliance does not have.
    idle_files = {name for name, _ in row["smaps_idle"]}
    row["pulse_libraries"] = sum(kb for name, kb in smaps_by_file(d.pid) if name not in idle_files and name.endswith(".so"))
    record = wait_session_end(c, session)
    row["listen_seconds"] = time.monotonic() - started
    sampler.stop()
    row["session_state"] = record.get("state")
    row["session_reason"] = record.get("reason", "")
    row["listen_hwm"] = proc_status(d.pid)["VmHWM"]
    row["listen_peak_rss"] = max(sampler.peak_rss, row["listen_hwm"])
    row["listen_peak_anon"] = sampler.peak_anon
    row["listen_before"] = before
    player.terminate()
    player.wait()
    wait_capture_closed(d.pid)
    time.sleep(0.5)
    row["after"] = proc_status(d.pid)
    row["after_pss"] = proc_pss(d.pid)
    c.close()
    d.stop()
    return row


def catalog_cost(binary):
    """RSS with the sample catalog, with none, and (if given) with the large benchmark catalog."""
    result = {}
    for name, path in [("sample", catalog), ("none", "/nonexistent/none.catalog"), ("big", args.big_catalog)]:
        if path is None:
            continue
        d = Daemon(binary, "bench_silence", catalog_path=path)
        time.sleep(1.0)
        result[name] = proc_status(d.pid)
        result[name]["ready_seconds"] = d.ready_seconds
        result[name]["catalog_bytes"] = os.path.getsize(path) if os.path.exists(path) else 0
        d.stop()
    return result


def sessions(label, binary, count, env=None, conf=None):
    """`count` sessions on the file microphones (not paced: quick), RSS after each. The first one
    hears music that is not in the catalog for its whole window: its peak is "while listening"."""
    log(f"{label}: {count} sessions (file plugin) for growth {env or ''} {conf or ''}")
    d = Daemon(binary, "bench_switch", env_extra=env, conf=conf)
    c = Client(d.port)
    c.command("status")
    devices = ["outside", "match", "silence"]
    rows = []
    time.sleep(0.5)
    start = proc_status(d.pid)
    reset_peak(d.pid)
    for i in range(count):
        # The device is fixed per daemon: switch the recording behind the one file PCM instead
        # (the file plugin opens its infile at every session start).
        link = audio_dir + "/switch.raw"
        if os.path.lexists(link):
            os.unlink(link)
        os.symlink(f"{audio_dir}/{devices[i % 3]}.raw", link)
        lines, _, _ = listen(c, False)
        record = wait_session_end(c, fields(lines)["session"])
        wait_capture_closed(d.pid)
        s = proc_status(d.pid)
        rows.append({"n": i + 1, "kind": devices[i % 3], "state": record.get("state"), "rss": s["VmRSS"],
                     "anon": s["RssAnon"], "hwm": s["VmHWM"], "reason": record.get("reason", ""),
                     "heard": record.get("heard", "")})
    c.close()
    d.stop()
    return start, rows


def wakeups(seconds):
    """Every binary × {no watchdog, watchdog, a client waiting in `idle`}, all at once (independent
    processes): context switches and CPU ticks over `seconds`, then strace -f -c over `seconds`."""
    configs = []
    for label, binary in binaries:
        configs.append((label, "no watchdog", binary, {}, False))
        configs.append((label, "WATCHDOG_USEC=20 s (ping every 10 s)", binary, {"WATCHDOG_USEC": "20000000"}, False))
        configs.append((label, "no watchdog, 1 client waiting in `idle`", binary, {}, True))
    running = []
    for label, name, binary, env, idle_client in configs:
        d = Daemon(binary, "bench_silence", env_extra=env)
        c = None
        if idle_client:
            c = Client(d.port)
            c.command("status")
            c.send("idle")
        running.append((label, name, d, c))
    time.sleep(2.0)
    log(f"wakeups: counting context switches over {seconds:.0f} s ({len(running)} daemons at once)")
    before = [(switches(d.pid), d.notify.count_watchdogs()) for _, _, d, _ in running]
    time.sleep(seconds)
    after = [(switches(d.pid), d.notify.count_watchdogs()) for _, _, d, _ in running]
    rows = []
    for (label, name, d, c), (b, wb), (a, wa) in zip(running, before, after):
        rows.append({"binary": label, "config": name, "voluntary": a[0] - b[0], "involuntary": a[1] - b[1],
                     "ticks": a[2] - b[2], "threads": a[3], "watchdogs": wa - wb})
    log(f"wakeups: strace -f -c over {seconds:.0f} s")
    traces = []
    for i, (label, name, d, c) in enumerate(running):
        out = f"{work}/strace-{i}.txt"
        p = subprocess.Popen(["strace", "-f", "-c", "-o", out, "-p", str(d.pid)], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        children.append(p)
        traces.append((p, out))
    time.sleep(0.5)
    watch_before = [d.notify.count_watchdogs() for _, _, d, _ in running]
    time.sleep(seconds)
    for (p, out), row, (label, name, d, c), wb in zip(traces, rows, running, watch_before):
        p.send_signal(signal.SIGINT)
        p.wait()
        row["strace_watchdogs"] = d.notify.count_watchdogs() - wb
        row["strace"] = parse_strace(out)
    for label, name, d, c in running:
        if c:
            c.send("noidle")
            c.close()
        d.stop()
    return rows


def parse_strace(path):
    calls = {}
    for line in open(path):
        parts = line.split()
        # % time, seconds, usecs/call, calls, [errors], syscall
        if len(parts) >= 5 and parts[0][0].isdigit() and parts[-1] != "total":
            try:
                calls[parts[-1]] = int(parts[3])
            except ValueError:
                pass
    return calls


def start_to_ready(label, binary, runs):
    log(f"{label}: start to ready, {runs} runs")
    state = os.path.join(work, f"ready-state-{label}")
    first = Daemon(binary, "bench_silence", state=state)
    first_seconds = first.ready_seconds
    first.stop()
    times = []
    for _ in range(runs):
        d = Daemon(binary, "bench_silence", state=state)
        times.append(d.ready_seconds)
        d.stop()
    big = []
    if args.big_catalog:
        for _ in range(max(3, runs // 3)):
            d = Daemon(binary, "bench_silence", state=state, catalog_path=args.big_catalog)
            big.append(d.ready_seconds)
            d.stop()
    return {"first": first_seconds, "times": times, "big": big}


def listen_to_capture(label, binary, runs):
    log(f"{label}: listen to capture, {runs} runs each on the pulse and the file microphone")
    result = {}
    for device in ["bench_pulse", "bench_match"]:
        d = Daemon(binary, device)
        c = Client(d.port)
        c.command("status")
        subscription = pulse.subscribe() if device == "bench_pulse" else None
        replies, streams, rss = [], [], []
        for _ in range(runs):
            wait_capture_closed(d.pid)
            time.sleep(0.2)
            lines, sent, answered = listen(c, device == "bench_pulse")
            replies.append(answered - sent)
            if subscription:
                appeared = subscription.first_after(sent)
                if appeared is not None:
                    streams.append(appeared - sent)
            c.command("cancel")
            wait_capture_closed(d.pid)
            rss.append(proc_status(d.pid)["VmRSS"])
        if subscription:
            subscription.stop()
        c.close()
        d.stop()
        result[device] = {"reply": replies, "stream": streams, "rss_after_each": rss}
    return result


def baseline_memory():
    rows = []
    for label, path in baselines:
        p = subprocess.Popen([path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        children.append(p)
        time.sleep(0.5)
        rows.append((label, proc_status(p.pid), proc_pss(p.pid)))
        p.kill()
        p.wait()
    return rows


# ---------------------------------------------------------------- main

def report(results, wake, base, load_before, load_after, niced):
    labels = [label for label, _ in binaries]
    results = dict(results)
    print("## soundtraced: memory, wakeups, start-up\n")
    print(f"Sample catalog {os.path.getsize(catalog)} bytes ({os.path.relpath(catalog, repo)}); wakeups over {args.idle_seconds:.0f} s; "
          f"{args.runs} runs for each timing; {args.sessions} sessions for growth. Wall times are from a shared "
          f"2-core machine (other builds running): noisy. PulseAudio restarts during the run: {pulse.restarts}. "
          f"Load average before / after: {' '.join(load_before)} / {' '.join(load_after)}; "
          + (f"everything ran at nice {args.nice}." if niced else "normal priority.") + "\n")

    print("### Memory (MiB; RSS = VmRSS, anon = RssAnon; the rest of RSS is file-backed code and data)\n")
    print("| | " + " | ".join(labels) + " |")
    print("|---|" + "---:|" * len(labels))
    m = {l: results[l]["memory"] for l in labels}
    def row(name, f):
        print(f"| {name} | " + " | ".join(f(m[l]) for l in labels) + " |")
    row("idle after start: RSS (anon)", lambda r: f"{mb(r['start']['VmRSS'])} ({mb(r['start']['RssAnon'])})")
    def spread(l):
        values = [results[l]["memory"]["start"]["VmRSS"], results[l]["catalog"]["sample"]["VmRSS"],
                  results[l]["sessions"][0]["VmRSS"]]
        values += [v[0]["VmRSS"] for k, v in results.get("_variants", {}).items() if k.startswith(l + ",")]
        return f"{mb(min(values))}–{mb(max(values))} ({len(values)} starts)"
    print("| idle after start: RSS range over this run's daemons with the sample catalog | "
          + " | ".join(spread(l) for l in labels) + " |")
    row("idle after start: PSS", lambda r: mb(r["start_pss"]))
    row("start-up peak (VmHWM before any session)", lambda r: mb(r["commands"]["VmHWM"]))
    row(f"idle after {len(COMMANDS)} protocol commands: RSS (anon)", lambda r: f"{mb(r['commands']['VmRSS'])} ({mb(r['commands']['RssAnon'])})")
    row("just before `listen` (player running): RSS", lambda r: mb(r["listen_before"]["VmRSS"]))
    row("pulse microphone, first session (10 s window, music not in the catalog): peak RSS", lambda r: mb(r["listen_peak_rss"]))
    row("… of it the PulseAudio client libraries the pulse plugin loads (simulation only)", lambda r: mb(r["pulse_libraries"]))
    row("… peak RSS − RSS before `listen`", lambda r: f"+{mb(r['listen_peak_rss'] - r['listen_before']['VmRSS'])}")
    row("**… the same without the PulseAudio libraries (as with a hw: device)**", lambda r: f"+{mb(r['listen_peak_rss'] - r['listen_before']['VmRSS'] - r['pulse_libraries'])}")
    row("… anon peak − anon before `listen`", lambda r: f"+{mb(r['listen_peak_anon'] - r['listen_before']['RssAnon'])}")
    row("… outcome / seconds listened", lambda r: f"{r['session_state']} {r['session_reason']} / {r['listen_seconds']:.1f} s")
    row("… after the session: RSS (anon)", lambda r: f"{mb(r['after']['VmRSS'])} ({mb(r['after']['RssAnon'])})")
    g = {l: results[l]["sessions"] for l in labels}
    print("| file microphone, first session (same music, whole window, not paced): RSS before → peak (VmHWM) | "
          + " | ".join(f"{mb(g[l][0]['VmRSS'])} → {mb(g[l][1][0]['hwm'])}" for l in labels) + " |")
    print("| **… peak − before (no PulseAudio involved)** | "
          + " | ".join(f"+{mb(g[l][1][0]['hwm'] - g[l][0]['VmRSS'])}" for l in labels) + " |")
    print()

    print("### Catalog cost (RSS and anon right after start, MiB)\n")
    print("| catalog | " + " | ".join(labels) + " |")
    print("|---|" + "---:|" * len(labels))
    names = [("none", "none (missing file)"), ("sample", "sample catalog"), ("big", "benchmark catalog")]
    for key, name in names:
        if key not in results[labels[0]]["catalog"]:
            continue
        size = results[labels[0]]["catalog"][key]["catalog_bytes"]
        cells = []
        for l in labels:
            r = results[l]["catalog"][key]
            cells.append(f"{mb(r['VmRSS'])} ({mb(r['RssAnon'])}), ready {r['ready_seconds'] * 1000:.0f} ms")
        print(f"| {name}, {size} bytes | " + " | ".join(cells) + " |")
    print()

    print("### Where the idle RSS is (kB, largest mappings, after the protocol commands)\n")
    print("| " + " | ".join(labels) + " |")
    print("|" + "---|" * len(labels))
    tops = [results[l]["memory"]["smaps_idle"][:10] for l in labels]
    for i in range(10):
        print("| " + " | ".join(f"{t[i][0]}: {t[i][1]}" if i < len(t) else "" for t in tops) + " |")
    print()

    if base:
        print("### Baselines: programs that do nothing (MiB)\n")
        print("| program | RSS | anon | file-backed | PSS |")
        print("|---|---:|---:|---:|---:|")
        for label, s, pss in base:
            print(f"| {label} | {mb(s['VmRSS'])} | {mb(s['RssAnon'])} | {mb(s['RssFile'])} | {mb(pss)} |")
        print()

    print(f"### Wakeups while idle over {args.idle_seconds:.0f} s\n")
    print("| binary | configuration | threads | context switches (voluntary + involuntary) | CPU ticks | WATCHDOG=1 received | syscalls under strace -f -c |")
    print("|---|---|---:|---:|---:|---:|---|")
    for r in wake:
        calls = ", ".join(f"{k} {v}" for k, v in sorted(r["strace"].items(), key=lambda kv: -kv[1])) or "none"
        print(f"| {r['binary']} | {r['config']} | {r['threads']} | {r['voluntary']} + {r['involuntary']} | {r['ticks']} | "
              f"{r['watchdogs']} (under strace {r['strace_watchdogs']}) | {calls} |")
    print()

    print("### Start → ready (spawn to READY=1 on the notify socket, ms)\n")
    print("| binary | first start (new history.db) | median | p90 | max | runs | benchmark catalog median / max |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for l in labels:
        r = results[l]["ready"]
        med, mx = median_max(r["times"])
        bmed, bmx = median_max(r["big"])
        p90 = sorted(r["times"])[int(0.9 * (len(r["times"]) - 1))] * 1000
        print(f"| {l} | {r['first'] * 1000:.1f} | {med} | {p90:.1f} | {mx} | {len(r['times'])} | {bmed} / {bmx} |")
    print()

    print("### listen → capture (ms, client side)\n")
    print("| binary | microphone | `listen` sent → reply `OK`: median / p90 / max | first `listen` of the daemon | sent → PulseAudio shows the capture stream: median / max | runs |")
    print("|---|---|---:|---:|---:|---:|")
    for l in labels:
        for device, name in [("bench_pulse", "PulseAudio null sink (ALSA pulse plugin)"), ("bench_match", "ALSA file plugin")]:
            r = results[l]["capture"][device]
            med, mx = median_max(r["reply"])
            smed, smx = median_max(r["stream"])
            stream = f"{smed} / {smx} ({len(r['stream'])} seen)" if device == "bench_pulse" else "–"
            p90 = sorted(r["reply"])[int(0.9 * (len(r["reply"]) - 1))] * 1000
            print(f"| {l} | {name} | {med} / {p90:.1f} / {mx} | {r['reply'][0] * 1000:.1f} | {stream} | {len(r['reply'])} |")
    print()

    print(f"### Growth across sessions (file plugin; cycle: music not in the catalog, a catalog excerpt, silence; MiB)\n")
    print("| binary | before any session RSS (anon) | after session 1 | after 2 | after 5 | after 10 | after last | last − after 1 | outcomes |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    variants = [(l, l) for l in labels] + [(k, k) for k in results.get("_variants", {})]
    for l, name in variants:
        start, rows = results[l]["sessions"] if l in labels else results["_variants"][l]
        def at(n):
            r = rows[min(n, len(rows)) - 1]
            return f"{mb(r['rss'])} ({mb(r['anon'])})"
        outcomes = {}
        for r in rows:
            outcomes[f"{r['kind']}→{r['state']}"] = outcomes.get(f"{r['kind']}→{r['state']}", 0) + 1
        last, first = rows[-1], rows[0]
        print(f"| {name} | {mb(start['VmRSS'])} ({mb(start['RssAnon'])}) | {at(1)} | {at(2)} | {at(5)} | {at(10)} | {at(len(rows))} "
              f"| {last['rss'] - first['rss']:+d} kB ({last['anon'] - first['anon']:+d} anon) | "
              + ", ".join(f"{k} {v}" for k, v in outcomes.items()) + " |")
    for l, name in variants:
        rows = (results[l]["sessions"] if l in labels else results["_variants"][l])[1]
        print(f"\n{name}: RSS kB after each session: " + " ".join(str(r["rss"]) for r in rows))
    for l in labels:
        print(f"{l}: RSS kB after each pulse listen/cancel: " + " ".join(str(x) for x in results[l]["capture"]["bench_pulse"]["rss_after_each"]))
    print()


try:
    audio_dir, reference_id = prepare_audio()
    load_before = open("/proc/loadavg").read().split()[:3]
    # The machine is shared with other builds: run the daemon, the client and PulseAudio at a
    # higher priority so that the timings come closer to a board that runs nothing else.
    niced = False
    if args.nice:
        try:
            os.setpriority(os.PRIO_PROCESS, 0, args.nice)
            niced = True
        except PermissionError:
            log("cannot raise the priority (not root?): timings run at normal priority")
    pulse = Pulse()
    # Two ALSA configurations with the same microphones. "appliance": Debian's alsa.conf without
    # its first hook, which loads /etc/alsa/conf.d and ~/.asoundrc — there libasound2-plugins and
    # pulseaudio (installed here for the simulated microphone, not on the appliance) make every
    # capture open load libpulse and ~20 libraries through the pulse conf hook. "debian": as is.
    definitions = ""
    for name in ["match", "outside", "silence", "switch"]:
        definitions += (f'pcm.bench_{name} {{ type file; slave.pcm "null"; file "/dev/null"; '
                        f'infile "{audio_dir}/{name}.raw"; format "raw" }}\n')
    definitions += pulse.alsa("bench_pulse")
    alsa_conf = os.path.join(work, "asound-appliance.conf")
    with open(alsa_conf, "w") as f:
        f.write(appliance_alsa_conf() + "\n" + definitions)
    debian_conf = os.path.join(work, "asound-debian.conf")
    with open(debian_conf, "w") as f:
        f.write("</usr/share/alsa/alsa.conf>\n" + definitions)

    results = {label: {} for label, _ in binaries}
    results["_variants"] = {}
    for label, binary in binaries:
        results[label]["memory"] = memory(label, binary)
        results[label]["sessions"] = sessions(label, binary, args.sessions)
        if label == binaries[0][0]:
            tunable = "glibc.malloc.mmap_threshold=131072"
            results["_variants"][f"{label}, GLIBC_TUNABLES={tunable}"] = \
                sessions(label, binary, args.sessions, env={"GLIBC_TUNABLES": tunable})
            results["_variants"][f"{label}, Debian's full ALSA configuration (loads the pulse conf hook)"] = \
                sessions(label, binary, 3, conf=debian_conf)
        results[label]["capture"] = listen_to_capture(label, binary, args.runs)
        results[label]["ready"] = start_to_ready(label, binary, args.runs)
        log(f"{label}: catalog cost")
        results[label]["catalog"] = catalog_cost(binary)
    wake = wakeups(args.idle_seconds)
    base = baseline_memory()
    load_after = open("/proc/loadavg").read().split()[:3]
    report(results, wake, base, load_before, load_after, niced)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": results, "wakeups": wake, "baselines": base}, f, indent=1, default=str)
finally:
    for p in children:
        if p.poll() is None:
            p.kill()
            p.wait()
    if os.environ.get("KEEP_WORK"):
        log(f"kept {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
