#!/usr/bin/env python3
"""What the MQTT link adds to an idle soundtraced: the daemon started N times without MQTT and N
times with mqtt_host pointing at a mosquitto of its own on a loopback port (connected, Home
Assistant discovery on), each measured once idle (3 s after `mqtt: connected`, or after ready):
VmRSS, RssAnon, RssFile, PSS, and the RSS of the mappings of Debian's libmosquitto, libssl and
libcrypto (none for a plain-TCP link since the MQTT library is compiled in: its pages count with the
binary's). Then wakeups: the daemon's context switches over an idle window, both ways.

    bench/mqtt/memory.py --binary PATH [--runs N] [--idle-seconds S]

PATH is a soundtraced (or the one `soundtrace` binary through a link named soundtraced). Needs
mosquitto (the Debian package). Prints a Markdown table (docs/BENCHMARKS.md records it).
python3 stdlib only.
"""
import argparse, os, re, shutil, socket, statistics, subprocess, sys, tempfile, time

parser = argparse.ArgumentParser()
parser.add_argument("--binary", required=True)
parser.add_argument("--runs", type=int, default=5)
parser.add_argument("--idle-seconds", type=float, default=30, help="window over which idle wakeups are counted")
args = parser.parse_args()

repo = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
catalog = os.path.join(repo, "catalog", "soundtrace.catalog")
work = tempfile.mkdtemp(prefix="soundtrace-bench-mqtt-")
children = []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def memory(pid):
    values = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "RssAnon", "RssFile"):
                values[key] = int(rest.split()[0])
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Pss:"):
                values["Pss"] = int(line.split()[1])
    link, inside = 0, False
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            parts = line.split()
            if re.match(r"^[0-9a-f]+-[0-9a-f]+$", parts[0]):
                inside = len(parts) > 5 and re.search(r"lib(mosquitto|ssl|crypto)\.so", parts[5]) is not None
            elif inside and parts[0] == "Rss:":
                link += int(parts[1])
    values["Link"] = link
    return values


def switches(pid):
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/status") as f:
            for line in f:
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    total += int(line.split()[1])
    return total


def daemon(tag, mqtt_port):
    folder = os.path.join(work, f"{tag}-{len(children)}")
    os.makedirs(folder + "/home")
    config = folder + "/soundtraced.conf"
    with open(config, "w") as f:
        if mqtt_port:
            f.write(f"mqtt_host = 127.0.0.1\nmqtt_port = {mqtt_port}\nmqtt_topic_prefix = bench/{tag}\n")
    log = folder + "/log"
    process = subprocess.Popen(
        [args.binary, "--config", config, "--no-gpio", "--catalog", catalog, "--state-dir", folder + "/state",
         "--port", "0", "--device", "null"],
        env=dict(os.environ, HOME=folder + "/home"), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=open(log, "w"))
    children.append(process)
    text = lambda: open(log).read()
    if not wait_for(lambda: re.search(r"serving protocol \d+ on \S+ port \d+", text()), 20):
        raise SystemExit(f"{tag}: the daemon did not start:\n{text()}")
    if mqtt_port and not wait_for(lambda: "MQTT: connected to" in text(), 20):
        raise SystemExit(f"{tag}: the link did not connect:\n{text()}")
    time.sleep(3)
    return process


broker = None
try:
    port = free_port()
    with open(os.path.join(work, "mosquitto.conf"), "w") as f:
        f.write(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
    broker = subprocess.Popen(["/usr/sbin/mosquitto", "-c", os.path.join(work, "mosquitto.conf")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for(lambda: socket.socket().connect_ex(("127.0.0.1", port)) == 0, 10)
    rows = {}
    for tag, mqtt_port in (("off", None), ("on", port)):
        samples = []
        for _ in range(args.runs):
            process = daemon(tag, mqtt_port)
            samples.append(memory(process.pid))
            process.terminate()
            process.wait(20)
        process = daemon(tag, mqtt_port)
        before = switches(process.pid)
        time.sleep(args.idle_seconds)
        wakeups = (switches(process.pid) - before) / args.idle_seconds * 60
        process.terminate()
        process.wait(20)
        rows[tag] = ({k: statistics.median(s[k] for s in samples) for k in samples[0]}, wakeups)
    mib = lambda kb: f"{kb / 1024:.2f}"
    print(f"binary `{args.binary}`, {args.runs} starts each, medians; MiB as /proc counts\n")
    print("| MQTT | idle RSS | anon | file | PSS | libmosquitto + libssl + libcrypto RSS | context switches per idle minute |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for tag in ("off", "on"):
        m, w = rows[tag]
        print(f"| {tag} | {mib(m['VmRSS'])} | {mib(m['RssAnon'])} | {mib(m['RssFile'])} | {mib(m['Pss'])} | {mib(m['Link'])} | {w:.1f} |")
    off, on = rows["off"][0], rows["on"][0]
    print(f"| on − off | **{mib(on['VmRSS'] - off['VmRSS'])}** | {mib(on['RssAnon'] - off['RssAnon'])} | "
          f"{mib(on['RssFile'] - off['RssFile'])} | {mib(on['Pss'] - off['Pss'])} | {mib(on['Link'] - off['Link'])} | |")
finally:
    for c in children:
        if c.poll() is None:
            c.kill()
    if broker:
        broker.kill()
    shutil.rmtree(work, ignore_errors=True)
