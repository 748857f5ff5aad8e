#!/usr/bin/env python3
"""How long a protocol command waits while a session's recognizer works.

Starts soundtraced on a catalog (by default the bundled one; pass a long one, e.g. the accuracy
benchmark's blind catalog, to make the final verdict expensive) with an ALSA `file` microphone that
plays 12 s of music not in the catalog. ALSA's file plugin is not paced in real time, so the
session's capture thread analyses its whole window as fast as it can and then takes the final
verdict (every check, the wider net included) — the worst case for anything that has to wait for
it. Meanwhile a second client sends `status` back to back and times every answer.

    bench/daemon/status-latency.py [--binary PATH] [--catalog PATH] [--sessions N] [--match]

With --match the microphone plays 12 s of a bundled catalog recording instead (use the bundled
catalog): the session ends early on the match and records it in the history, so the slowest
answers include the history write (SQLite, synchronous=FULL) that still happens under the lock.

Prints, per session, how long the session took and the slowest `status` answers during it (all,
and those sent in its last 20 %, where the final verdict runs). Wall times on a shared machine:
look at the order of magnitude, not the last digit.
"""
import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(repo, ".build/release/soundtraced"))
    ap.add_argument("--catalog", default=os.path.join(repo, "catalog/soundtrace.catalog"))
    ap.add_argument("--sessions", type=int, default=5)
    ap.add_argument("--match", action="store_true", help="play a catalog recording (needs the bundled catalog)")
    args = ap.parse_args()
    for path in (args.binary, args.catalog):
        if not os.path.exists(path):
            sys.exit(f"no {path}")
    work = tempfile.mkdtemp(prefix="st-status-latency-")
    try:
        run(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(args, work):
    outside = os.path.join(repo, "catalog/audio/harbor-lights-piano.wav" if args.match else "catalog/outside/salt-meadow-mallets.wav")
    raw = os.path.join(work, "outside.raw")
    # One spare second: the file plugin repeats stale data past the end.
    subprocess.run(["sox", "-V1", "-D", outside, "-t", "raw", "-e", "signed", "-b", "16", "-c", "1", "-r", "8000",
                    raw, "trim", "2", "12", "pad", "0", "1"], check=True)
    conf = os.path.join(work, "asound.conf")
    with open(conf, "w") as f:
        f.write("</usr/share/alsa/alsa.conf>\n"
                f'pcm.latency_mic {{ type file; slave.pcm "null"; file "/dev/null"; infile "{raw}"; format "raw" }}\n')
    state = os.path.join(work, "state")
    os.makedirs(state)
    stderr_path = os.path.join(work, "stderr")
    env = dict(os.environ, ALSA_CONFIG_PATH=conf)
    env.pop("NOTIFY_SOCKET", None)
    daemon = subprocess.Popen([args.binary, "--config", "/dev/null", "--no-gpio", "--catalog", args.catalog,
                               "--state-dir", state, "--port", "0", "--device", "latency_mic"],
                              env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(stderr_path, "w"))
    try:
        port = wait_port(daemon, stderr_path)
        size = os.path.getsize(args.catalog)
        print(f"catalog {args.catalog} ({size} bytes); binary {args.binary}")
        print("| session | outcome | lasted (ms) | status answers | slowest (ms) | p99 (ms) | slowest in the last 20 % (ms) |")
        print("|---:|---|---:|---:|---:|---:|---:|")
        for n in range(1, args.sessions + 1):
            print(session_row(port, n))
    finally:
        daemon.terminate()
        daemon.wait(20)


def wait_port(daemon, stderr_path):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        match = re.search(r"serving protocol \d+ on \S+ port (\d+)", open(stderr_path).read())
        if match:
            return int(match.group(1))
        if daemon.poll() is not None:
            sys.exit("soundtraced exited:\n" + open(stderr_path).read())
        time.sleep(0.01)
    sys.exit("soundtraced did not log its port")


class Client:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.file = self.sock.makefile("rb")
        if self.file.readline().decode().strip() != "OK SOUNDTRACE 1":
            sys.exit("unexpected greeting")

    def command(self, line):
        self.sock.sendall((line + "\n").encode())
        lines = []
        while True:
            text = self.file.readline().decode().rstrip("\n")
            if text == "":
                sys.exit("soundtraced closed the connection")
            if text == "OK" or text.startswith("ACK "):
                return lines, text
            lines.append(text)


def session_row(port, number):
    control = Client(port)
    watcher = Client(port)
    samples = []  # (sent, seconds waited)
    stop = threading.Event()

    def poll():
        while not stop.is_set():
            sent = time.monotonic()
            watcher.command("status")
            samples.append((sent, time.monotonic() - sent))

    thread = threading.Thread(target=poll)
    thread.start()
    time.sleep(0.05)
    started = time.monotonic()
    lines, end = control.command("listen")
    if end != "OK":
        stop.set()
        thread.join()
        sys.exit(f"listen: {end}")
    session = next((l.split(": ", 1)[1] for l in lines if l.startswith("session: ")), None)
    while True:
        lines, _ = control.command(f"session {session}")
        if "state: listening" not in lines:
            break
        time.sleep(0.002)
    ended = time.monotonic()
    outcome = next((l.split(": ", 1)[1] for l in lines if l.startswith("state: ")), "?")
    saved = next((l.split(": ", 1)[1] for l in lines if l.startswith("saved: ")), "")
    if saved:
        outcome += f", saved: {saved}"
    stop.set()
    thread.join()
    during = [w for s, w in samples if started <= s <= ended]
    tail = [w for s, w in samples if ended - (ended - started) * 0.2 <= s <= ended]
    during.sort()
    p99 = during[min(len(during) - 1, int(len(during) * 0.99))] if during else 0
    control.sock.close()
    watcher.sock.close()
    ms = lambda x: f"{x * 1000:.1f}"
    return (f"| {number} | {outcome} | {ms(ended - started)} | {len(during)} | {ms(during[-1]) if during else '–'} | {ms(p99)} | "
            f"{ms(max(tail)) if tail else '–'} |")


if __name__ == "__main__":
    main()
