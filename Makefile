# Soundtrace — the two Quick start commands are `make run` and `make test` (see README.md).
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
SWIFT_FLAGS := -c release

.PHONY: run test test-tsan test-libgpiod2 lint format setup build catalog catalog-audio bench clean

setup:
	@scripts/setup.sh

build: setup
	swift build $(SWIFT_FLAGS)

# The main job: the appliance daemon on the bundled catalog, in the foreground, state under .state/
# (an empty configuration, /dev/null, means built-in defaults; Enter on the terminal is the button).
run: build
	.build/release/soundtrace catalog verify
	mkdir -p .state
	.build/release/soundtraced --config /dev/null --no-gpio --catalog catalog/soundtrace.catalog --state-dir .state

# First the style check (`make lint`, a few seconds). Tests run in release mode: the DSP is too slow
# unoptimized to index whole recordings quickly.
# -enable-testing lets the tests reach internal DSP stages of an optimized build.
# The ThreadSanitizer run of the same tests is `make test-tsan` (below), kept out of `make test` so
# that it stays within about 30 minutes on a fresh machine; CI (.ci/run) runs both.
# Then every fuzz harness for 20 s from its seeds, two at once (docs/RELIABILITY.md).
# Then the protocol stress test, short: 20,000 lines and 500 connection-churn operations against the
# real soundtraced over loopback (docs/RELIABILITY.md; the full run is 1,000,000 lines).
# Then 20 SIGKILLs of the real soundtraced while it writes its history, each followed by checks of
# the file (docs/RELIABILITY.md; the full run is 200); on the virtual board, 20 more, each followed
# by a power cut below the file system (vm/power-cut.sh: ext4 over dm-flakey, ~2 min).
# Then the virtual board (docs/VIRTUAL-BOARD.md): Debian's kernel in qemu with a real loopback
# sound card and gpio-sim, downloaded into a cache at run time (~3 min the first time, ~1 min after):
# the smoke test, then the real static soundtraced driving gpio-sim lines, then a short soak of it
# (50 session cycles, ~4 min: 8 protocol clients and the bouncing button at once; the long run's
# figures are in docs/RELIABILITY.md).
# GPIO goes through the installed libgpiod (1.6 on Debian 12; SOUNDTRACE_EXPECT_LIBGPIOD, the major
# pkg-config reports, makes GPIODLibraryTests check the build used it); last, test-libgpiod2 does the
# same for libgpiod 2 (docs/HARDWARE.md).
test: setup lint
	SOUNDTRACE_EXPECT_LIBGPIOD=$$(pkg-config --modversion libgpiod | cut -d. -f1) swift test $(SWIFT_FLAGS) -Xswiftc -enable-testing
	bench/fuzz/run.sh --jobs 2 20
	bench/protocol-stress/run.sh --lines 20000 --churn 500
	bench/power-loss/run.sh --cycles 20
	vm/smoke.sh
	vm/daemon-board.sh
	vm/soak.sh 50
	vm/power-cut.sh 20
	vm/systemd-unit.sh
	$(MAKE) test-libgpiod2

# Style: the toolchain's swift-format with the repository's .swift-format (4 spaces, 140 columns).
# `make format` rewrites the tree; `make lint` fails on anything it would change.
SWIFT_SOURCES := Sources Tests Package.swift
lint:
	swift format lint --strict --recursive $(SWIFT_SOURCES)
	@# A Synchronization.Mutex locks where ThreadSanitizer cannot see it (Sources/SoundtracePlatform/Guarded.swift).
	@# A document that backs a claim with a test must name one that exists.
	scripts/check-doc-tests.py
	@if grep -rn --include='*.swift' -E '\bMutex *[<(]' Sources Tests; then echo "lint: use Guarded (or an Atomic), not Synchronization.Mutex: ThreadSanitizer cannot see its lock" >&2; exit 1; fi

format:
	swift format format --in-place --recursive $(SWIFT_SOURCES)

# The whole Swift suite again under ThreadSanitizer, in its own build (.build/sanitize-thread;
# 4½–8 min on a fresh 2-core machine), failing on any report (docs/RELIABILITY.md;
# `scripts/sanitizers.sh address` is the AddressSanitizer run).
test-tsan: setup
	scripts/sanitizers.sh thread

# libgpiod 2 (Debian 13, Raspberry Pi OS trixie), which Debian 12 lacks: its C library from PyPI's
# gpiod sources, built static into a cache (scripts/build-libgpiod2.sh); the GPIO tests on a build
# against it (in .build/libgpiod2; SOUNDTRACE_EXPECT_LIBGPIOD fails them if the system's 1.6 header
# was used), then the daemon's virtual-board checks with it linked in.
test-libgpiod2: setup
	pc=$$(scripts/build-libgpiod2.sh) && PKG_CONFIG_PATH=$$pc SOUNDTRACE_EXPECT_LIBGPIOD=2 \
	  swift test $(SWIFT_FLAGS) -Xswiftc -enable-testing --scratch-path .build/libgpiod2 --filter 'GPIO|LinesPanel|HardwareCheck'
	vm/daemon-board.sh --libgpiod2

# Re-render the sample recordings (needs FluidSynth) and rebuild the catalog file.
catalog-audio:
	scripts/setup.sh catalog
	catalog/render.sh

catalog: build
	.build/release/soundtrace catalog build

bench: build
	scripts/setup.sh bench
	bench/accuracy/run.sh --soundtrace .build/release/soundtrace
	bench/sessions/run.sh --soundtrace .build/release/soundtrace

clean:
	rm -rf .build
