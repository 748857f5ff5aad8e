#!/usr/bin/env python3
"""Protocol stress for soundtraced (issue 14, part 4): random, mutated and valid lines against the
real daemon over loopback, each with the answer docs/PROTOCOL.md says it gets (a reply ending in OK,
an ACK with its code and command, no reply at all, or an ACK and a close), then connection churn
(connect/close, resets, half-closes, slow writers, clients beyond the cap). Fails (exit 1) on a
crash, a hang (no answer within --timeout), an unexpected answer, fd growth or RSS beyond a bound.
Standard library only."""

import argparse
import os
import random
import re
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unicodedata

MAX_LINE = 1024
MAX_ARGS = 8
SUBSYSTEMS = ["state", "history", "favorites", "catalog"]
# name: (min args, max args)
TABLE = {
    "ping": (0, 0), "commands": (0, 0), "token": (1, 1), "status": (0, 0), "idle": (0, 4),
    "noidle": (0, 0), "session": (1, 1), "listen": (0, 0), "cancel": (0, 1), "history": (0, 1),
    "show": (1, 1), "share": (1, 1), "favorite": (1, 1), "unfavorite": (1, 1), "favorites": (0, 0),
    "delete": (1, 1), "catalog": (0, 1), "reference": (1, 1), "guide": (0, 0),
}
# What a well-formed command (known, right number of arguments) may be answered, by PROTOCOL.md's
# reply sections, for a loopback client (control permission) of a daemon with no token configured,
# a usable catalog, an open history and a capture device that cannot be opened. "OK" is a reply.
OUTCOMES = {
    "ping": {"OK"}, "commands": {"OK"}, "token": {"OK"}, "status": {"OK"}, "favorites": {"OK"},
    "guide": {"OK"},
    "session": {"OK", 2, 50},             # a recent session; not an id (x, s-0); no such session
    "listen": {"OK", 54},                 # a session (failed at once: no device), or busy
    "cancel": {"OK", 2, 50},              # state: idle / the session; not an id; an unknown session id
    "history": {"OK", 2},                 # a page; a bad range
    "catalog": {"OK", 2},
    "show": {"OK", 2, 50}, "share": {"OK", 2, 50}, "delete": {"OK", 2, 50},
    "favorite": {"OK", 2, 50}, "unfavorite": {"OK", 2, 50}, "reference": {"OK", 2, 50},
}
ACK_RE = re.compile(r"^ACK \[(\d+)@0\] \{([^}]*)\} (.+)$")


class Failure(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# The grammar (docs/PROTOCOL.md, "Lines"): what one line gets.
#   ("none",)                     no reply (a blank line; a noidle with no idle waiting)
#   ("reply", allowed, command)   a reply: OK or ACK [code@0] {command} with code in allowed
#   ("close", code)               ACK [code@0] {} ..., then the connection closes
#   ("idle", subsystems)          an idle that may wait (the driver follows it with ping + noidle)

def expect(line):
    body = line[:-1] if line.endswith(b"\r") else line
    if len(body) > MAX_LINE:
        return ("close", 2)                             # line longer than 1024 bytes
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return ("close", 5)                             # not UTF-8 text
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        return ("close", 5)                             # control characters
    words, current, in_word, quoted, escaped, closed = [], [], False, False, False, False
    for c in text:                                      # Python iterates code points (scalars)
        if closed:
            closed = False
            if c != " ":
                return ("reply", {2}, "")               # a closing quote must end its word
        if escaped:
            current.append(c)
            escaped = False
        elif quoted:
            if c == "\\":
                escaped = True
            elif c == '"':
                quoted = False
                closed = True
            else:
                current.append(c)
        elif c == " ":
            if in_word:
                words.append("".join(current))
                current, in_word = [], False
        elif c == '"':
            if in_word:
                return ("reply", {2}, "")               # a quote inside a word
            quoted = in_word = True
        else:
            current.append(c)
            in_word = True
    if quoted or escaped:
        return ("reply", {2}, "")                       # unterminated quoted argument
    if in_word:
        words.append("".join(current))
    if not words:
        return ("none",)
    command = words[0]
    if not all("a" <= c <= "z" or "A" <= c <= "Z" for c in command) or len(command) > 32:
        return ("close", 5)                             # not a Soundtrace command
    if len(words) >= 3 and words[-1].startswith("HTTP/"):
        rest = words[-1][5:]
        if rest and (unicodedata.combining(rest[0]) or ord(rest[0]) in (0x200D, 0x200C) or 0xFE00 <= ord(rest[0]) <= 0xFE0F):
            return ("either",)                          # a mark glued to the '/': Swift's hasPrefix compares characters
        return ("close", 5)                             # an HTTP request line
    args = words[1:]
    if len(args) > MAX_ARGS:
        return ("reply", {2}, "")                       # more than 8 arguments
    if command not in TABLE:
        return ("reply", {5}, command)
    low, high = TABLE[command]
    if not low <= len(args) <= high:
        return ("reply", {2}, command)
    if command == "noidle":
        return ("none",)
    if command == "idle":
        if all(a in SUBSYSTEMS for a in args):
            return ("idle", args)
        return ("reply", {2}, "idle")
    return ("reply", OUTCOMES[command], command)


# ---------------------------------------------------------------------------------------------
# Lines: valid commands, mutations of them, random bytes.

REFERENCES = []       # filled from the daemon's catalog
SESSIONS = ["s-1"]    # ids seen in listen replies


def quote(word):
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


def valid_command(r):
    c = r.choices(
        ["ping", "status", "commands", "idle", "session", "listen", "cancel", "history", "show",
         "share", "favorite", "unfavorite", "favorites", "delete", "catalog", "reference", "guide",
         "token", "noidle"],
        [10, 10, 3, 3, 4, 2, 3, 6, 3, 2, 1, 1, 3, 2, 5, 5, 1, 2, 1])[0]
    args = []
    if c == "idle":
        args = r.sample(SUBSYSTEMS, r.randint(0, 4))
    elif c == "session":
        args = [r.choice(SESSIONS[-40:] + ["s-0", "s-999999", "x"])]
    elif c == "cancel" and r.random() < 0.5:
        args = [r.choice(SESSIONS[-5:] + ["s-424242", "s-0x"])]
    elif c in ("history", "catalog") and r.random() < 0.8:
        a = r.randint(0, 120)
        args = [r.choice([f"{a}:{a + r.randint(0, 100)}", f"{a}:", f"{a}:{a + 101}", f"{a + 5}:{a}", "x:y", f"-{a}:"])]
    elif c in ("show", "share", "delete"):
        args = [r.choice([str(r.randint(1, 50)), "0", "-3", "abc", "99999999999999999999"])]
    elif c in ("favorite", "unfavorite", "reference"):
        args = [r.choice(REFERENCES + ["no-such-ref", "X", "ab", "a" * 65, "has space"])]
    elif c == "token":
        args = [r.choice(["s3cret", "x", "a b"])]
    words = [c] + args
    out = []
    for i, w in enumerate(words):
        needs = w == "" or " " in w or '"' in w
        out.append(quote(w) if needs or r.random() < 0.05 else w)
    sep = " " if r.random() < 0.9 else "  "
    line = sep.join(out)
    if r.random() < 0.05:
        line = " " + line
    if r.random() < 0.05:
        line += " "
    data = line.encode()
    if r.random() < 0.1:
        data += b"\r"
    return data


CONTROL = [bytes([b]) for b in list(range(0, 0x20)) + [0x7F] if b != 0x0A]
BAD_UTF8 = [b"\xff", b"\xc3", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80", b"\xe2\x82"]
GOOD_UNICODE = ["é", "\u0301", "\u00a0", "\u0085", "\u200d", "日本", "\U0001F600", "\u2028"]


def mutate(r, data):
    kind = r.randrange(16)
    pos = r.randint(0, len(data))
    if kind == 0:    # overlong
        return data + b" " + b"x" * r.randint(MAX_LINE - len(data), MAX_LINE + 600)
    if kind == 1:    # right at the limit (valid length), maybe with \r
        body = (b"ping " + b"a" * MAX_LINE)[:MAX_LINE] if r.random() < 0.5 else (data + b" " + b"z" * MAX_LINE)[:MAX_LINE]
        return body + (b"\r" if r.random() < 0.5 else b"")
    if kind == 2:    # a control character
        return data[:pos] + r.choice(CONTROL) + data[pos:]
    if kind == 3:    # invalid UTF-8
        return data[:pos] + r.choice(BAD_UTF8) + data[pos:]
    if kind == 4:    # too many arguments (wrong arity)
        return data + b" a" * r.randint(1, 10)
    if kind == 5:    # drop the arguments
        return data.split(b" ")[0]
    if kind == 6:    # an unknown command
        return r.choice([b"pong", b"listenx", b"Ping", b"STATUS", b"q", b"a" * 33, b"x" * 32]) + data[len(data.split(b" ")[0]):]
    if kind == 7:    # a quote inside a word / an unterminated quote / a trailing backslash
        return r.choice([data + b' ab"c', data + b' "open', data + b' "end\\', data[:pos] + b'"' + data[pos:]])
    if kind == 8:    # non-ASCII text, combining marks
        return data[:pos] + r.choice(GOOD_UNICODE).encode() + data[pos:]
    if kind == 9:    # an HTTP request
        return r.choice([b"GET / HTTP/1.1", b"POST /listen HTTP/1.0", b"get x HTTP/2", b"GET HTTP/1.1"])
    if kind == 10:   # a non-letter command word
        return r.choice([b"1ping", b"/etc/passwd", b"ping2", b"-", b"status!", b"\xc3\xa9t\xc3\xa9", b"listen\xcc\x81"]) + data[len(data.split(b" ")[0]):]
    if kind == 11:   # a random byte flipped
        if not data:
            return data
        i = r.randrange(len(data))
        b = r.randrange(256)
        return data[:i] + bytes([b if b != 0x0A else 0x0B]) + data[i + 1:]
    if kind == 12:   # truncated
        return data[:pos]
    if kind == 13:   # blank lines, spaces only
        return r.choice([b"", b" ", b"   ", b"\r", b' ""'])
    if kind == 14:   # empty quoted arguments, escapes
        return data + r.choice([b' ""', b' "\\""', b' "a\\\\b"', b' "x y"'])
    return data + b"\r\r"   # a \r not at the end


def random_line(r):
    n = r.choice([1, 2, 5, 20, 100, 400, 1100])
    return bytes(b if b != 0x0A else 0x20 for b in r.randbytes(r.randint(0, n)))


def next_line(r):
    roll = r.random()
    if roll < 0.55:
        data = valid_command(r)
        kind = "valid"
    elif roll < 0.90:
        data = mutate(r, valid_command(r))
        kind = "mutated"
    else:
        data = random_line(r)
        kind = "random"
    return kind, data


# ---------------------------------------------------------------------------------------------
# The daemon.

class Daemon:
    def __init__(self, binary, catalog, workdir, device, state=None):
        """The daemon's logs and home in WORKDIR; its state in STATE (default WORKDIR/state)."""
        self.dir = workdir
        state = state or os.path.join(workdir, "state")
        os.makedirs(state, exist_ok=True)
        os.makedirs(os.path.join(workdir, "home"), exist_ok=True)
        env = dict(os.environ, HOME=workdir + "/home", XDG_RUNTIME_DIR=workdir + "/home")
        for key in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "PULSE_SERVER"):
            env.pop(key, None)
        self.stderr_path = os.path.join(workdir, "stderr")
        self.process = subprocess.Popen(
            [binary, "--config", "/dev/null", "--no-gpio", "--catalog", catalog, "--state-dir", state,
             "--port", "0", "--device", device],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(self.stderr_path, "w"))
        self.pid = self.process.pid
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            m = re.search(r"serving protocol \d+ on \S+ port (\d+)", open(self.stderr_path, errors="replace").read())
            if m:
                self.port = int(m.group(1))
                return
            if self.process.poll() is not None:
                raise Failure("soundtraced exited at start:\n" + self.tail())
            time.sleep(0.01)
        raise Failure("soundtraced did not log its port within 60 s")

    def tail(self):
        return "".join(open(self.stderr_path, errors="replace").readlines()[-20:])

    def alive(self):
        if self.process.poll() is not None:
            raise Failure(f"CRASH: soundtraced exited with {self.process.returncode}:\n{self.tail()}")

    def fds(self):
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def rss_kb(self):
        for line in open(f"/proc/{self.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise Failure("soundtraced did not stop on SIGTERM within 20 s")
        if self.process.returncode not in (0, -signal.SIGTERM):
            raise Failure(f"soundtraced exited with {self.process.returncode} on SIGTERM:\n{self.tail()}")


class Conn:
    def __init__(self, port, timeout, greet=True):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buf = b""
        if greet:
            g = self.readline()
            if g != "OK SOUNDTRACE 1":
                raise Failure(f"unexpected greeting {g!r}")

    def send(self, data):
        self.sock.sendall(data)

    def readline(self, allow_eof=False):
        while b"\n" not in self.buf:
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                raise Failure("HANG: no answer within the timeout")
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                if allow_eof:
                    return None
                raise Failure(f"connection closed unexpectedly (pending {self.buf[:80]!r})")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            raise Failure(f"reply line is not UTF-8: {line[:120]!r}")
        if any(ord(c) < 0x20 or ord(c) == 0x7F or 0x80 <= ord(c) <= 0x9F for c in text):
            raise Failure(f"control character in a reply line: {line[:120]!r}")
        return text

    def reply(self):
        """Lines up to OK or ACK: (lines, terminator)."""
        lines = []
        while True:
            t = self.readline()
            if t == "OK" or t.startswith("ACK "):
                return lines, t
            if ": " not in t:
                raise Failure(f"reply line is not 'key: value': {t!r}")
            lines.append(t)

    def expect_eof(self):
        extra = self.readline(allow_eof=True)
        if extra is not None:
            raise Failure(f"expected the connection to close, got {extra!r}")

    def close(self):
        self.sock.close()


def check_ack(term, allowed, command, line):
    if term == "OK":
        if "OK" not in allowed:
            raise Failure(f"line {line[:120]!r}: got OK, expected ACK {sorted(a for a in allowed if a != 'OK')}")
        return "OK"
    m = ACK_RE.match(term)
    if not m:
        raise Failure(f"line {line[:120]!r}: malformed ACK {term!r}")
    code, cmd = int(m.group(1)), m.group(2)
    if code not in allowed:
        raise Failure(f"line {line[:120]!r}: got {term!r}, expected one of {sorted(map(str, allowed))}")
    if cmd != command:
        raise Failure(f"line {line[:120]!r}: ACK names {{{cmd}}}, expected {{{command}}}")
    return code


# ---------------------------------------------------------------------------------------------
# Phase 1: lines.

def run_lines(d, args, r, stats):
    conn = None
    sent = 0
    start = time.monotonic()
    next_sample = args.sample_every
    batch = []
    while sent < args.lines:
        if conn is None:
            conn = Conn(d.port, args.timeout)
            stats["connections"] += 1
        # One batch: up to --batch lines pipelined, ending at the first that closes the connection.
        batch = []
        closing = False
        while len(batch) < args.batch and sent + len(batch) < args.lines:
            kind, data = next_line(r)
            e = expect(data)
            if e[0] == "either":
                continue
            if e[0] == "idle" and batch:
                break
            batch.append((kind, data, e))
            if e[0] in ("close", "idle"):
                closing = e[0] == "close"
                break
        if batch and batch[-1][2][0] == "none":
            batch.append(("sync", b"ping", ("reply", {"OK"}, "ping")))
        payload = b"".join(data + b"\n" for _, data, _ in batch)
        if batch[-1][2][0] == "idle":
            payload += b"ping\nnoidle\n"
        conn.send(payload)
        for kind, data, e in batch:
            stats[kind] += 1
            if e[0] == "none":
                stats["none"] += 1
                continue
            if e[0] == "reply":
                lines, term = conn.reply()
                out = check_ack(term, e[1], e[2], data)
                stats["ok" if out == "OK" else "ack"] += 1
                if out == "OK" and e[2] == "listen":
                    for l in lines:
                        if l.startswith("session: "):
                            SESSIONS.append(l[9:])
            elif e[0] == "close":
                t = conn.readline(allow_eof=True)
                if t is None:
                    raise Failure(f"line {data[:120]!r}: closed without the ACK")
                check_ack(t, {e[1]}, "", data)
                conn.expect_eof()
                conn.close()
                conn = None
                stats["closes"] += 1
            elif e[0] == "idle":
                # Either it answered at once (changed lines, OK), then ping's OK and noidle is
                # ignored; or it waited: ping is refused while idle, then noidle ends it.
                lines, term = conn.reply()
                if term == "OK":
                    if any(not l.startswith("changed: ") for l in lines):
                        raise Failure(f"idle answered {lines!r}")
                    _, t2 = conn.reply()
                    if t2 != "OK":
                        raise Failure(f"ping after an answered idle got {t2!r}")
                else:
                    check_ack(term, {2}, "ping", b"ping (while idle)")
                    lines, t2 = conn.reply()
                    if t2 != "OK" or any(not l.startswith("changed: ") for l in lines):
                        raise Failure(f"noidle got {lines!r} {t2!r}")
                stats["idles"] += 1
                stats["ok"] += 1
        sent += sum(1 for k, _, _ in batch if k != "sync") + (2 if batch[-1][2][0] == "idle" else 0)
        d.alive()
        if sent >= next_sample:
            next_sample += args.sample_every
            sample(d, stats, sent, start)
    if conn:
        conn.close()
    stats["lines"] = sent
    stats["seconds"] = time.monotonic() - start


def sample(d, stats, sent, start):
    fds, rss = d.fds(), d.rss_kb()
    stats["max_fds"] = max(stats.get("max_fds", 0), fds)
    stats["max_rss"] = max(stats.get("max_rss", 0), rss)
    now = time.monotonic()
    last_sent, last_time = stats.get("last_sample", (0, start))
    stats["last_sample"] = (sent, now)
    recent = (sent - last_sent) / (now - last_time) if now > last_time else 0
    print(f"  {sent:>9} lines  {sent / (now - start):8.0f} lines/s ({recent:.0f} since the last sample)  "
          f"fds {fds}  VmRSS {rss / 1024:.1f} MiB", flush=True)
    if rss > stats["rss_limit_kb"]:
        raise Failure(f"RSS {rss} kB beyond the bound {stats['rss_limit_kb']} kB")


# ---------------------------------------------------------------------------------------------
# Phase 2: churn.

def churn(d, args, r, stats):
    port = d.port
    start = time.monotonic()
    watcher = Conn(port, args.timeout)     # a steady client, checked throughout
    for i in range(args.churn):
        stats["churn_op"] = i
        k = i % 100
        if k == 0:
            cap(d, args, stats)
        elif k == 50:
            idle_gives_way(d, args, stats)
        elif k % 10 == 1:     # a reset (SO_LINGER 0), sometimes mid-line or with replies unread
            c = Conn(port, args.timeout)
            c.send(r.choice([b"", b"stat", b"commands\n" * 20, b"guide\nstatus\n"]))
            c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            c.close()
            stats["resets"] += 1
        elif k % 10 == 2:     # a half-close after a batch: every reply, then the close
            c = Conn(port, args.timeout)
            c.send(b"ping\nstatus\ncatalog 0:3\nnoidle\n")
            c.sock.shutdown(socket.SHUT_WR)
            for _ in range(3):
                _, term = c.reply()
                if term != "OK":
                    raise Failure(f"half-closed client got {term!r}")
            c.expect_eof()
            c.close()
            stats["half_closes"] += 1
        elif k % 10 == 3 and k < 40:   # a slow writer, a byte at a time
            c = Conn(port, args.timeout)
            for b in b"status\r\n":
                c.send(bytes([b]))
                time.sleep(0.002)
            _, term = c.reply()
            if term != "OK":
                raise Failure(f"slow writer got {term!r}")
            c.close()
            stats["slow_writers"] += 1
        elif k % 10 == 4:     # a close with replies unread, a close mid-line
            c = Conn(port, args.timeout)
            c.send(r.choice([b"commands\nguide\n" * 10, b"ping", b"\"unterminated"]))
            c.close()
            stats["connect_close"] += 1
        else:                 # connect, maybe without reading the greeting, close
            c = Conn(port, args.timeout, greet=r.random() < 0.5)
            c.close()
            stats["connect_close"] += 1
        if i % 200 == 0:
            d.alive()
            watcher.send(b"ping\n")
            _, term = watcher.reply()
            if term != "OK":
                raise Failure(f"watcher got {term!r}")
    watcher.close()
    stats["churn_seconds"] = time.monotonic() - start


def open_slots(d, args, n):
    """n more clients holding a slot each: every slot freed by an earlier close must be free by now
    (LineServer frees the slot of a client that closed before it admits the next one)."""
    held = []
    for _ in range(n):
        c = Conn(d.port, args.timeout, greet=False)
        g = c.readline()
        if g != "OK SOUNDTRACE 1":
            raise Failure(f"a client taking a free slot got {g!r}")
        held.append(c)
    return held


def cap(d, args, stats):
    # Every slot taken by clients that do not idle: the next local client is refused and closed.
    held = open_slots(d, args, 8 - 1)      # the churn's watcher holds one
    c = Conn(d.port, args.timeout, greet=False)
    t = c.readline(allow_eof=True)
    if t != "ACK [56@0] {} too many clients (8); try again later":
        raise Failure(f"client beyond the cap got {t!r}")
    c.expect_eof()
    c.close()
    for h in held:                         # the holders still work
        h.send(b"ping\n")
        if h.reply()[1] != "OK":
            raise Failure("a holder lost its slot")
        h.close()
    stats["beyond_cap"] += 1


def idle_gives_way(d, args, stats):
    # All slots taken, one waiting in idle: a new local client takes its slot, the idler is told.
    held = open_slots(d, args, 8 - 1)
    held[0].send(b"idle catalog\n")
    time.sleep(0.05)
    c = Conn(d.port, args.timeout)
    t = held[0].readline()
    if not t.startswith("ACK [56@0] {} every slot (8) is taken"):
        raise Failure(f"the idler got {t!r}")
    held[0].expect_eof()
    c.send(b"ping\n")
    if c.reply()[1] != "OK":
        raise Failure("the newcomer was not served")
    for h in held:
        h.close()
    c.close()
    stats["idle_gave_way"] += 1


# ---------------------------------------------------------------------------------------------

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--binary", default=os.path.join(repo, ".build/release/soundtraced"))
    p.add_argument("--catalog", default=os.path.join(repo, "catalog/soundtrace.catalog"))
    p.add_argument("--lines", type=int, default=1_000_000)
    p.add_argument("--churn", type=int, default=10_000, help="churn operations")
    p.add_argument("--seed", type=int, default=14)
    p.add_argument("--batch", type=int, default=32, help="lines pipelined per round trip")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds an answer may take")
    p.add_argument("--sample-every", type=int, default=100_000)
    p.add_argument("--rss-growth-mb", type=float, default=16.0, help="allowed VmRSS growth over the baseline")
    p.add_argument("--device", default="soundtrace-stress-absent", help="capture device (absent: listen fails at once)")
    p.add_argument("--work-dir", default="/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None,
                   help="where the daemon's state folder is made (default /dev/shm)")
    p.add_argument("--keep", action="store_true", help="keep the work folder")
    args = p.parse_args()

    r = random.Random(args.seed)
    # The history lives in memory when it can (/dev/shm): a favorite's fsync would otherwise set the
    # pace, and the disk is not what this measures.
    work = tempfile.mkdtemp(prefix="soundtrace-stress-", dir=args.work_dir)
    stats = {k: 0 for k in ("valid", "mutated", "random", "sync", "ok", "ack", "none", "closes", "idles",
                            "connections", "resets", "half_closes", "slow_writers", "connect_close",
                            "beyond_cap", "idle_gave_way")}
    d = None
    code = 0
    try:
        d = Daemon(args.binary, args.catalog, work, args.device)
        # Warm up: every command once, so that lazily opened files (the history's WAL) are open.
        c = Conn(d.port, args.timeout)
        for line in (b"status", b"history", b"favorites", b"catalog", b"guide", b"commands", b"listen",
                     b"cancel", b"favorite x-x-x", b"show 1"):
            c.send(line + b"\n")
            lines, _ = c.reply()
            if line == b"catalog":
                REFERENCES.extend(l[11:] for l in lines if l.startswith("reference: "))
        c.close()
        if not REFERENCES:
            raise Failure("the catalog lists no references")
        time.sleep(0.3)
        fd0, rss0 = d.fds(), d.rss_kb()
        stats["rss_limit_kb"] = rss0 + int(args.rss_growth_mb * 1024)
        print(f"soundtraced {d.pid} on port {d.port}: fds {fd0}, VmRSS {rss0 / 1024:.1f} MiB; seed {args.seed}, "
              f"{args.lines} lines, {args.churn} churn operations", flush=True)

        run_lines(d, args, r, stats)
        if stats["lines"] % args.sample_every:
            sample(d, stats, stats["lines"], time.monotonic() - stats["seconds"])
        churn(d, args, r, stats)
        d.alive()
        # Closed connections are reaped by the server's loop: give it a moment, then compare.
        deadline = time.monotonic() + 10
        while d.fds() > fd0 and time.monotonic() < deadline:
            time.sleep(0.05)
        fd1, rss1 = d.fds(), d.rss_kb()
        c = Conn(d.port, args.timeout)
        c.send(b"ping\n")
        if c.reply()[1] != "OK":
            raise Failure("not answering after the run")
        c.close()
        s = stats
        print(f"lines: {s['lines']} ({s['valid']} valid, {s['mutated']} mutated, {s['random']} random; "
              f"+{s['sync']} sync pings) in {s['seconds']:.1f} s: {s['lines'] / s['seconds']:.0f} lines/s")
        print(f"answers: {s['ok']} OK, {s['ack']} ACK, {s['none']} none, {s['closes']} closes, "
              f"{s['idles']} idle waits; {s['connections']} connections")
        print(f"churn: {args.churn} operations in {s['churn_seconds']:.1f} s: {s['connect_close']} connect/close, "
              f"{s['resets']} resets, {s['half_closes']} half-closes, {s['slow_writers']} slow writers, "
              f"{s['beyond_cap']} beyond the cap, {s['idle_gave_way']} idlers giving way")
        print(f"fds {fd0} -> {fd1} (max {s.get('max_fds', fd1)}); VmRSS {rss0 / 1024:.1f} -> {rss1 / 1024:.1f} MiB "
              f"(max {s.get('max_rss', rss1) / 1024:.1f}, bound {s['rss_limit_kb'] / 1024:.1f})")
        if fd1 > fd0:
            raise Failure(f"fd growth: {fd0} -> {fd1}: " + " ".join(sorted(
                os.readlink(f"/proc/{d.pid}/fd/{f}") for f in os.listdir(f"/proc/{d.pid}/fd"))))
        if rss1 > s["rss_limit_kb"]:
            raise Failure(f"RSS {rss1} kB beyond the bound")
        d.stop()
        print("PASS: 0 crashes, 0 hangs, 0 unexpected answers, no fd growth, RSS bounded")
    except Failure as f:
        where = f" (churn operation {stats['churn_op']})" if "churn_op" in stats else ""
        print(f"FAIL: {f}{where}", file=sys.stderr)
        code = 1
    finally:
        if d and d.process.poll() is None:
            d.process.kill()
            d.process.wait()
        if code == 0 and not args.keep:
            subprocess.run(["rm", "-rf", work])
        else:
            print(f"work folder kept: {work}", file=sys.stderr)
    sys.exit(code)


if __name__ == "__main__":
    main()
