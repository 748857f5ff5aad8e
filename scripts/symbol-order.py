#!/usr/bin/env python3
"""Writes scripts/soundtrace.symbol-order: the functions of the packaged binary (`soundtrace`, which
is the daemon when started as `soundtraced`) that a day of kiosk use runs, in the order they first
run: first what the companion CLI runs for `--version`, `status`, `history` and `listen`, then what
the daemon runs besides (start-up, protocol commands, sessions that match and that do not,
shutdown). The deployed build (scripts/swift-build-static.sh) hands it to the linker, which places
those functions side by side: the kernel maps a program's code around every page it faults in
(fault-around, 64 KiB), so code that is used together but scattered over a 9 MB binary costs far
more resident memory than the same code packed together. The CLI's short list goes first so that a
`soundtrace status` touches one compact stretch; the daemon's start-up runs most of it too. See
docs/BENCHMARKS.md.

    scripts/symbol-order.py BINARY [--out PATH]

BINARY: a `soundtrace` of this checkout with its symbol table (any recent build; `nm` must list its
functions). Needs valgrind and sox. Runs the daemon under callgrind (a minute or two): an ALSA
file-plugin microphone plays a catalog excerpt, then an outside piece; then the CLI's commands,
each under callgrind too. Regenerate after large code changes: a stale list only packs less well,
it never breaks the build (missing names are ignored)."""
import argparse, glob, os, re, shutil, signal, socket, subprocess, sys, tempfile, time

repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("binary")
parser.add_argument("--out", default=os.path.join(repo, "scripts", "soundtrace.symbol-order"))
args = parser.parse_args()
for tool in ("valgrind", "sox", "nm", "objcopy"):
    if subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True).returncode != 0:
        sys.exit(f"symbol-order.py: {tool} is missing: apt-get install valgrind sox binutils")

if not os.access(args.binary, os.X_OK) or os.path.isdir(args.binary):
    sys.exit(f"symbol-order.py: {args.binary} is not an executable file: give a soundtrace built from this checkout")

work = tempfile.mkdtemp(prefix="soundtrace-symbol-order-")
# valgrind 3.19 (Debian 12) gives up on the DWARF 5 debug information of a Swift 6.3 build
# ("Possibly corrupted debuginfo file"); the symbol table is all callgrind needs for names.
profiled = os.path.join(work, "soundtrace")
copied = subprocess.run(["objcopy", "--strip-debug", args.binary, profiled], capture_output=True, text=True)
if copied.returncode != 0:
    shutil.rmtree(work, ignore_errors=True)
    sys.exit(f"symbol-order.py: objcopy could not read {args.binary} ({copied.stderr.strip()}): give a soundtrace built from this checkout")
s16 = ["-t", "raw", "-e", "signed", "-b", "16", "-c", "1", "-r", "8000"]
reference = os.path.join(repo, "catalog", "audio", sorted(os.listdir(os.path.join(repo, "catalog", "audio")))[0])
outside = os.path.join(repo, "catalog", "outside", "salt-meadow-mallets.wav")
subprocess.run(["sox", "-V1", "-D", reference, *s16, f"{work}/match.raw", "trim", "30", "8", "pad", "0", "1"], check=True)
subprocess.run(["sox", "-V1", "-D", outside, *s16, f"{work}/outside.raw", "trim", "2", "12", "pad", "0", "2"], check=True)

# Debian's alsa.conf without its hooks (they would read the machine's own configuration), plus a
# file-plugin capture device reading whatever the `mic.raw` link points at.
debian = open("/usr/share/alsa/alsa.conf").read()
start = debian.index("@hooks [")
end = debian.index("\n]\n", start) + 3
with open(f"{work}/asound.conf", "w") as f:
    f.write(debian[:start] + debian[end:] + "\n" +
            f'pcm.ordermic {{ type file; slave.pcm "null"; file "/dev/null"; infile "{work}/mic.raw"; format "raw" }}\n')

state = os.path.join(work, "state")
os.mkdir(state)
# The daemon is the binary started under the name soundtraced (the packaged link).
daemon_link = os.path.join(work, "soundtraced")
os.symlink(profiled, daemon_link)
profile = os.path.join(work, "callgrind.out")
stderr = open(os.path.join(work, "stderr"), "w")
daemon = subprocess.Popen(
    ["valgrind", "-q", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={profile}", daemon_link,
     "--config", "/dev/null", "--no-gpio", "--catalog", os.path.join(repo, "catalog", "soundtrace.catalog"),
     "--state-dir", state, "--port", "0", "--device", "ordermic"],
    env=dict(os.environ, ALSA_CONFIG_PATH=f"{work}/asound.conf", HOME=state), stdin=subprocess.DEVNULL,
    stdout=subprocess.DEVNULL, stderr=stderr)


def fail(message):
    daemon.kill()
    sys.exit(f"symbol-order.py: {message} (files in {work})")


port = None
for _ in range(1200):
    found = re.search(r"serving protocol \d+ on \S+ port (\d+)", open(os.path.join(work, "stderr")).read())
    if found:
        port = int(found.group(1))
        break
    if daemon.poll() is not None:
        fail("soundtraced exited during start-up")
    time.sleep(0.1)
if port is None:
    fail("soundtraced did not report its port within 2 minutes")

connection = socket.create_connection(("127.0.0.1", port), timeout=120)
replies = connection.makefile("rb")
replies.readline()  # greeting


def command(line):
    connection.sendall((line + "\n").encode())
    record = {}
    while True:
        reply = replies.readline().decode().rstrip("\n")
        if reply == "OK" or reply.startswith("ACK ") or reply == "":
            return record, reply
        key, _, value = reply.partition(": ")
        record[key] = value


for line in ("ping", "commands", "status", "catalog", "catalog 0:3", "history", "favorites", "guide"):
    command(line)
outcomes = []
for recording in ("match", "outside", "match"):
    link = f"{work}/mic.raw"
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(f"{work}/{recording}.raw", link)
    started, reply = command("listen")
    if "session" not in started:
        fail(f"listen was refused: {reply}")
    deadline = time.monotonic() + 300
    while (session := command(f"session {started['session']}")[0]).get("state") == "listening":
        if time.monotonic() > deadline:
            fail("a session did not end within 5 minutes")
        time.sleep(0.2)
    outcomes.append(session.get("state", "?"))
if outcomes != ["matched", "noMatch", "matched"]:
    fail(f"the sessions ended {outcomes}, not matched, noMatch, matched")
for line in ("history", "show 1", "share 1", "favorite 1", "favorites", "unfavorite 1", "status"):
    command(line)
connection.close()

# The companion CLI, as a user or a script on the box runs it, against the running daemon.
cli_profiles = []
for number, arguments in enumerate((["--version"], ["status", "--port", str(port)], ["history", "--port", str(port)],
                                    ["listen", "--port", str(port)], ["status", "--port", str(port)])):
    cli_profiles.append(os.path.join(work, f"callgrind.cli.{number}"))
    run = subprocess.run(["valgrind", "-q", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={cli_profiles[-1]}",
                          profiled, *arguments], env=dict(os.environ, HOME=state), stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, timeout=600)
    if run.returncode != 0:
        fail(f"soundtrace {' '.join(arguments)} exited with status {run.returncode}: {run.stderr.strip()[-300:]}")
daemon.send_signal(signal.SIGTERM)
if daemon.wait(timeout=120) != 0:
    fail(f"soundtraced exited with status {daemon.returncode}")


def functions_in_order(paths):
    """Function names in the order callgrind first met them, over the profiles in turn."""
    names, seen = [], set()
    for path in paths:
        for line in open(path, errors="replace"):
            found = re.match(r"^c?fn=\(\d+\) (.+)$", line.rstrip("\n"))
            if found:
                name = re.sub(r"'\d+$", "", found.group(1))  # callgrind marks recursion levels
                if name not in seen:
                    seen.add(name)
                    names.append(name)
    return names


# Only functions defined in the binary's text; the CLI's first, then the daemon's others.
symbols = subprocess.run(["nm", profiled], capture_output=True, text=True, check=True).stdout.splitlines()
defined = {fields[2] for fields in (line.split() for line in symbols) if len(fields) == 3 and fields[1] in "tTwW"}
cli = [name for name in functions_in_order(cli_profiles) if name in defined]
cli_set = set(cli)
daemon_only = [name for name in functions_in_order([profile]) if name in defined and name not in cli_set]
if len(cli) < 100 or len(daemon_only) < 200:
    fail(f"only {len(cli)} functions of the CLI and {len(daemon_only)} more of the daemon ran: is the binary stripped?")
with open(args.out, "w") as f:
    f.write("\n".join(cli + daemon_only) + "\n")
print(f"{args.out}: {len(cli)} functions of the CLI, then {len(daemon_only)} more of the daemon (sessions: {', '.join(outcomes)})")
