# The few commands the README names. Everything else is a script under scripts/ or images/.
SWIFT ?= swift
BUILD_FLAGS ?= -c release --static-swift-stdlib
BIN = .build/release/boardwalk
SHOTS ?= out/shots

ARM64_BIN = out/arm64/boardwalk
# cross (Debian's amd64 Swift with an arm64 sysroot) or emulated (arm64 Swift under qemu-user).
ARM64_MODE ?= cross
# The arm64 build chroots into its roots: root, or sudo.
SUDO = $(if $(filter 0,$(shell id -u)),,sudo -E)
# A line with the time before each long step, so a CI log shows where its minutes went.
STAMP = @echo "[make] $$(date -u +%T) $@:"

.PHONY: deps test-deps bench-deps build run test unit-test soak screenshots system-test system-test-lane-1 system-test-lane-2 fleet-test fleet-sim bench arm64 arm64-test arm64-checks rpi-card deb deb-test deb-arm64-test apt-repo install clean

deps:
	scripts/install-deps.sh build

test-deps:
	scripts/install-deps.sh test

build: deps
	$(STAMP) release build
	$(SWIFT) build $(BUILD_FLAGS) --product boardwalk

# Runs the kiosk: on this machine's DRM device when one is free, otherwise headless
# (writing screenshots to $(SHOTS)).
run: build
	scripts/run.sh $(BIN)

# The copy kernels' checks built for this machine too (every path its CPU has; the Swift
# tests check the same paths, but not the scan-out rows' padding). make test runs the soak
# beside it, on the release build the system test uses too.
unit-test: test-deps
	$(STAMP) unit tests
	python3 scripts/check-imports.py
	scripts/copy-kernels-check.sh
	python3 images/rpi/test_tryboot_backend.py
	python3 images/rpi/test_overlays.py
	python3 images/test_slot_check.py
	python3 images/boardtest/test_crashpoints.py
	python3 images/boardtest/test_ab_timeline.py
	python3 images/fleet/test_fleet.py
	promtool test rules fleet/prometheus/boardwalk-alerts.test.yml
	$(SWIFT) build --build-tests
	$(STAMP) swift tests
	# The test bundle itself (what `swift test --skip-build` runs): `swift test` would hold
	# SwiftPM's lock on .build all along, and make test's release build for the soak waits
	# for it.
	.build/debug/BoardwalkPackageTests.xctest

# A simulated day at three panel sizes side by side (scripts/soak-check.sh): each fails on
# a crash, a stuck scene, RSS over 40 MB or growth over 2 MB after its first report (hour 3:
# the kept surfaces' cache is full by then).
SOAK_SIZES ?= 800x480 1280x800 480x800
soak: build
	$(STAMP) soak $(SOAK_SIZES)
	scripts/soak-check.sh $(BIN) $(SOAK_SIZES)

# docs/screenshots, drawn again by the kiosk from data/scripts/play-800x480.script.
screenshots: build
	scripts/docs-screenshots.sh $(BIN)

# The system test runs the live kiosk offscreen here (scripts/offscreen-check.py: idle CPU,
# signals), then boots the kiosk's image on the virtual board (QEMU, TCG) and checks it
# from outside (images/virtual-board/test_system.py). It needs root (the image build) and a
# few minutes, so `make test` runs it on CI (CI=true) or with SYSTEM_TEST=1 (SYSTEM_TEST=0: never).
# Two lanes side by side (-j2; -O: each lane's output comes out whole when it ends), each
# about 35 minutes, as each emulated board keeps about one core of two busy. Both lanes'
# packages and apt repository are made first; the image builds take turns (images/lib.sh,
# bw_one_build_at_a_time).
system-test: deb test-deps
	$(SUDO) scripts/deb.sh apt-repo $(DEB_OUT)/apt-repo $(DEB_OUT)/boardwalk_*.deb
	$(MAKE) --no-print-directory -j2 -O system-test-lane-1 system-test-lane-2

# Lane 1: the x86 kernel + initrd board, then the packages in their roots (arm64 under
# qemu-user) and the x86 stock board.
system-test-lane-1:
	$(STAMP) x86 virtual board
	python3 images/virtual-board/test_system.py --binary $(BIN) --skip update
	$(STAMP) Debian package, arm64
	$(SUDO) scripts/deb.sh package-test $(DEB_OUT) arm64
	$(STAMP) Debian package, amd64
	$(SUDO) scripts/deb.sh package-test $(DEB_OUT) amd64
	$(STAMP) stock board, amd64
	$(SUDO) scripts/deb.sh stock-test $(DEB_OUT) amd64
	$(STAMP) done

# Lane 2: the offscreen kiosk, the fleet server, arm64 (checks, board), the x86 A/B disk
# board (update, rollback, the fleet's update and rollback) and the display board (on the
# x86 board's kernel, built by then: lane 1 builds it first, and the other builds waited
# their turn behind it). The arm64 stock board is `make arm64-test`'s.
system-test-lane-2:
	$(STAMP) offscreen check
	python3 scripts/offscreen-check.py --binary $(BIN)
	$(MAKE) --no-print-directory fleet-test
	$(MAKE) --no-print-directory arm64-checks
	$(STAMP) x86 A/B disk board
	python3 images/virtual-board/test_system.py --binary $(BIN) --only update,rollback,fleet --workdir out/system-test-ab
	$(STAMP) display board
	python3 scripts/display-board-check.py --binary $(BIN) --rotations 0,90
	$(STAMP) done

# The fleet's server side without a board: goosebit (PyPI, a virtualenv cached in
# /var/cache/boardwalk/fleet) and the cabinet's report after a rollback against it
# (images/fleet/test_fleet_server.py; 4 s once goosebit is cached).
fleet-test: test-deps
	$(STAMP) fleet server
	python3 images/fleet/test_fleet_server.py

# A fleet, simulated (docs/FLEET.md, "A simulated fleet"): goosebit and FLEET_SIM_CABINETS
# cabinets on this machine, each a real offscreen kiosk and a DDI client, through two
# staged rollouts (images/fleet/fleet_sim.py). Minutes and most of 2 cores: not in `make test`.
FLEET_SIM_CABINETS ?= 100
fleet-sim: build test-deps
	$(STAMP) fleet sim, $(FLEET_SIM_CABINETS) cabinets
	python3 images/fleet/fleet_sim.py --binary $(BIN) --cabinets $(FLEET_SIM_CABINETS)

# The kiosk for arm64 boards (Debian 13 / Raspberry Pi OS trixie), built here with Debian's
# Swift 6.0.3 (images/arm64/build.sh; the toolchain roots are cached in /var/cache/boardwalk).
arm64:
	$(STAMP) arm64 build
	scripts/install-deps.sh arm64
	$(SUDO) images/arm64/build.sh $(ARM64_MODE) $(ARM64_BIN)

# arm64 checked from this x86 machine: the copy kernels' NEON path pixel for pixel and the
# same screenshots as the x86 build (both under qemu-user) and the arm64 virtual board
# (arm64-checks, in the system test; here with every check), then the arm64 package on a
# stock Debian 13 arm64 board, upgraded from the apt repository (images/README.md has its
# time: too long for CI).
arm64-test: arm64 build deb
	$(MAKE) --no-print-directory arm64-checks ARM64_BOARD_SKIP=
	$(STAMP) stock board, arm64
	$(SUDO) scripts/deb.sh stock-test $(DEB_OUT) arm64

# The system test's arm64 board leaves out its boards of their own (the corrupt and missing
# state partition, the power cut: four emulated arm64 boots, about 10 minutes of a core)
# and its A/B disk board (update, and with it rollback and fleet: 14 min with its images,
# 2026-12-07), which the x86 boards run in the same test; make arm64-test runs every check.
ARM64_BOARD_SKIP ?= broken_state,coin_power_cut,update
arm64-checks:
	$(STAMP) arm64 checks
	scripts/copy-kernels-check.sh arm64
	python3 scripts/arm64-shots-check.py --x86 $(BIN) --arm64 $(ARM64_BIN)
	$(STAMP) arm64 virtual board
	python3 images/virtual-board/test_system.py --binary $(ARM64_BIN) --host-binary $(BIN) --workdir out/system-test-arm64 \
	    $(if $(ARM64_BOARD_SKIP),--skip $(ARM64_BOARD_SKIP))

# A Raspberry Pi SD card from Debian 13's archive with A/B slots and its RAUC bundle
# (images/rpi/build-sdcard.sh), opened and checked without loop devices
# (images/rpi/test_sdcard.py); first the tryboot backend's tests on a fake card. A card
# that starts U-Boot (Debian's kernel) is then booted on QEMU's raspi3b through an update's
# trial, its fallback and its commit (images/rpi/test_card_boot.py, about 7 minutes).
RPI_BOARD ?= rpi4-official-7in
rpi-card: arm64
	python3 images/rpi/test_tryboot_backend.py
	$(SUDO) images/rpi/build-sdcard.sh $(RPI_BOARD) $(ARM64_BIN) out/rpi/$(RPI_BOARD).img
	python3 images/rpi/test_sdcard.py out/rpi/$(RPI_BOARD).img $(RPI_BOARD)
	python3 images/rpi/test_card_boot.py out/rpi/$(RPI_BOARD).img --workdir out/rpi/card-boot

# Debian 13 packages of the kiosk, boardwalk_VERSION_{amd64,arm64}.deb in out/deb, built with
# debhelper from debian/ in trixie roots of each architecture and checked by trixie's
# lintian (scripts/deb.sh; the roots are cached in /var/cache/boardwalk/deb).
DEB_OUT = out/deb
deb: build arm64
	$(STAMP) Debian packages
	$(SUDO) scripts/deb.sh all $(BIN) $(ARM64_BIN) $(DEB_OUT)

# A signed apt repository of both packages in out/apt-repo (reprepro), for cabinets that run
# Raspberry Pi OS (docs/FLEET.md). The key: BOARDWALK_APT_GNUPGHOME=DIR (the operator's
# GnuPG home), else a development key made once in /var/cache/boardwalk/deb.
apt-repo: deb
	$(SUDO) scripts/deb.sh apt-repo out/apt-repo $(DEB_OUT)/boardwalk_*.deb

# Each package installed with apt in a fresh trixie root of its architecture (arm64 under
# qemu-user), upgraded (from a file and from a signed repository), removed and purged
# (images/deb/test_deb.py); then a stock Debian 13 system with only the package, booted on
# that architecture's virtual board and upgraded with apt from the repository served over
# HTTP (images/deb/test_stock_board.py). The amd64 half is part of system-test.
deb-test: deb
	$(STAMP) Debian package tests
	$(SUDO) scripts/deb.sh test-all $(DEB_OUT)

# The arm64 half alone: the package test under qemu-user (also in the system test) and the
# stock arm64 board (images/README.md has its time: too long for CI's budget).
deb-arm64-test: deb
	$(STAMP) Debian package tests, arm64
	$(SUDO) scripts/deb.sh test-all $(DEB_OUT) arm64

SYSTEM_TEST ?= $(if $(CI),1,0)
# The packages first, so no two apt-gets meet. Then the unit tests, the arm64 cross build
# (its own scratch path and roots) and the soak (its release build waits for SwiftPM's lock
# while the tests build, then runs beside the tests), two at a time; each one's output comes
# out whole when it ends (-O). Then, with the system test, that.
test:
	@if [ "$(SYSTEM_TEST)" = 1 ]; then \
	  scripts/install-deps.sh arm64 && \
	  $(MAKE) --no-print-directory -j2 -O unit-test arm64 soak && \
	  $(MAKE) --no-print-directory system-test; \
	else scripts/install-deps.sh test && \
	  $(MAKE) --no-print-directory -j2 -O unit-test soak && \
	  echo "make test: system test skipped (make system-test, or make test SYSTEM_TEST=1)"; fi

bench-deps:
	scripts/install-deps.sh bench

# The speed figures (docs/PERFORMANCE.md) with the SDL2 peer beside them, as JSON lines.
# The peer is a separate C program: the kiosk binary never links SDL.
bench/peers/sdl2-peer: bench/peers/sdl2-peer.c
	$(CC) -O2 -Wall -o $@ $< $$(pkg-config --cflags --libs sdl2 SDL2_ttf SDL2_image)

bench: bench-deps bench/peers/sdl2-peer
	$(SWIFT) build -c release --product boardwalk-bench
	.build/release/boardwalk-bench --json $(BENCH_ARGS)

install: build
	scripts/install.sh $(BIN)

clean:
	rm -rf .build out bench/peers/sdl2-peer
