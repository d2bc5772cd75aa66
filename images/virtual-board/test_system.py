#!/usr/bin/env python3
"""The system test: the kiosk's image on the virtual board, checked the way a person would.

    images/virtual-board/test_system.py [--binary .build/release/boardwalk] [--workdir out/system-test]
                                        [--host-binary B] [--only STEPS] [--skip STEPS]

Builds the image for the binary's CPU (x86_64, or arm64 on QEMU's virt machine; cached:
only the binary's overlay is packed on a warm run), boots it under QEMU (TCG) and runs
the checks of images/boardtest/checks/, a module per concern: startup (READY and the time
to the first frame, the boot step by step), display (the kiosk on screen, a real
touchscreen's recording replayed), sound (a tap and a zombie beaten, heard in the
recording), cabinet (coins), lockdown (user, hardening, a passer-by's keyboard, the
console back), faults (SIGSEGV, a frozen loop, an unwritable, corrupt or missing state
partition, a power cut), monitoring (the node exporter, an alert fired and resolved by a
real Prometheus, the idle menu's CPU per thread), storage (SD card wear, every crash
point of the state writes) and updates (the A/B disk board of the binary's CPU, with a DDI server for the fleet's way). Screenshots, the serial log, the wav and the guest journal are left in the
workdir. The last line is 'N passed, N failed'. Python 3 and numpy.
"""
import argparse
import collections
import os
import secrets
import shutil
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from boardtest import images  # noqa: E402
from boardtest.board import VirtualBoard  # noqa: E402
from boardtest.checks import (cabinet, display, faults, lockdown, monitoring, sound, startup, storage,  # noqa: E402
                              updates)
from boardtest.kiosk import Kiosk, save_journal_and_stop  # noqa: E402
from boardtest.results import Results  # noqa: E402

BoardImage = collections.namedtuple("BoardImage", "kernel initrd cmdline arch")

# The first boot's checks, in order (each leaves the kiosk as the next one expects it).
FIRST_BOOT = [
    startup.no_clock, startup.boot_steps, display.screen, lockdown.user, lockdown.hardening, lockdown.passer_by,
    lockdown.root_readonly, monitoring.metrics, cabinet.coin, faults.state_unwritable, monitoring.idle_cpu,
    storage.wear, sound.tap_and_sound, display.evemu, sound.beat_a_zombie, faults.segv, faults.watchdog,
    monitoring.alert, lockdown.stop, lockdown.exit_to_console,
]
# The checks that run on some boards only: "arm64" on that board alone; "ledger" where the
# state disk's writes are logged (the wear and crash-point steps, ~3 min: on the x86 board,
# on arm64 only when asked with --only; systemd-analyze takes minutes under arm64
# emulation too); "exporter" where the board's profile runs the node exporter
# (qemu-x86_64; the arm64 board's profile has none, so its root stays without the
# exporter's packages).
RUNS_WHERE = {startup.no_clock: "arm64", startup.boot_steps: "ledger", storage.wear: "ledger",
              monitoring.metrics: "exporter", monitoring.alert: "exporter"}
# After the first boot: its write log replayed, then boards of their own, then the A/B
# disk board (the rollback starts from the updated board).
AFTER = [storage.crash_points, faults.broken_state, faults.coin_power_cut, updates.update, updates.rollback, updates.fleet]
MODULES = (startup, display, sound, cabinet, lockdown, faults, monitoring, storage, updates)


def steps_asked(only):
    """--only's names as step names: a module's name stands for its steps."""
    if not only:
        return None
    modules = {m.__name__.rsplit(".", 1)[-1]: m for m in MODULES}
    everything = FIRST_BOOT + AFTER
    steps = set()
    for name in only.split(","):
        if name in modules:
            steps |= {fn.__name__ for fn in everything if fn.__module__ == modules[name].__name__}
        else:
            steps.add(name)
    return steps


def first_boot(args, image, testdata, host_binary, results, only):
    """The kernel + initrd board's first boot and its checks; returns its Kiosk."""
    ledger = image.arch == "amd64" or bool(only)
    vb = VirtualBoard(args.workdir, image.kernel, image.initrd, image.cmdline, arch=image.arch,
                      state_log=os.path.join(args.workdir, "state.log") if ledger else None)
    vb.start()
    k = Kiosk(vb, os.path.abspath(host_binary), os.path.join(args.workdir, "sounds"))
    runs = {None: True, "arm64": image.arch == "arm64", "ledger": ledger, "exporter": bool(vb.exporter_port)}
    try:
        booted = results.step(startup.boot.title, startup.boot, k)
        # Working on one check (--only): a boot that failed its own figures (a restart on a
        # loaded machine) still lets the chosen checks run once the kiosk is up; the boot
        # stays counted as failed.
        if not booted and only:
            try:
                booted = k.wait_active(timeout=300).get("ActiveState") == "active"
            except (OSError, TimeoutError):
                booted = False
        if booted:
            for fn in FIRST_BOOT:
                if not runs[RUNS_WHERE.get(fn)] or (only and fn.__name__ not in only) or fn.__name__ in args.skip:
                    continue
                if fn is display.evemu and not testdata:
                    results.record(False, fn.title, "no shared/testdata/evemu beside the repo")
                    continue
                results.step(fn.title, fn, k)
    finally:
        save_journal_and_stop(vb, args.workdir)
    return k, ledger


def classic_board(args, testdata, host_binary, results, only):
    """The kernel + initrd board: the first boot and its checks, the crash points, the
    broken-state and power-cut boots. False when the image could not be built."""
    arch = images.binary_arch(args.binary)
    state_disk = os.path.join(args.workdir, "state.img")
    images.make_state_disk(state_disk)
    # The disk as it was before the boot: the crash points replay the boot's writes onto it.
    shutil.copyfile(state_disk, os.path.join(args.workdir, "state-before.img"))
    t0 = time.monotonic()
    with open(os.path.join(args.workdir, "build.log"), "w") as log:
        try:
            built = images.build(os.path.abspath(args.binary), os.path.join(args.workdir, "image"), testdata,
                                 log=log, arch=arch)
        except Exception as e:
            results.record(False, "build", f"{e} (see {log.name})")
            return False
    image = BoardImage(*built, arch)
    print(f"{arch} image built in {time.monotonic() - t0:.0f} s; booting the virtual board", flush=True)
    k, ledger = first_boot(args, image, testdata, host_binary, results, only)

    def wanted(fn):
        return (not only or fn.__name__ in only) and fn.__name__ not in args.skip
    if ledger and wanted(storage.crash_points):
        results.step(storage.crash_points.title, storage.crash_points, args.workdir, k.crash_notes())
    beside = faults.broken_state_boots(image, args.workdir, results) if wanted(faults.broken_state) else None
    if wanted(faults.coin_power_cut):
        results.step(faults.coin_power_cut.title, faults.coin_power_cut, image, args.workdir)
    if beside:
        beside.join()
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.environ.get("BOARDWALK_BIN", os.path.join(images.REPO, ".build/release/boardwalk")))
    ap.add_argument("--workdir", default=os.path.join(images.REPO, "out", "system-test"))
    ap.add_argument("--host-binary", help="the kiosk built for this machine, for host-side tools "
                    "(sound-export) when --binary is for another CPU (default: .build/release/boardwalk)")
    ap.add_argument("--only", help="comma-separated checks to run after the boot: function names "
                    "(screen,idle_cpu,beat_a_zombie,...) or modules of images/boardtest/checks (sound,faults,...); "
                    "for working on one check. update, rollback and fleet (the A/B disk board; the module "
                    "updates) alone skip the kernel + initrd board")
    ap.add_argument("--skip", help="comma-separated checks (names as for --only) left out of the run: make test's "
                    "arm64 board leaves out the boards of its own and the A/B disk board (update), which the x86 boards run (CI's time)")
    args = ap.parse_args()
    args.skip = steps_asked(args.skip) or set()

    os.makedirs(args.workdir, exist_ok=True)
    arch = images.binary_arch(args.binary)
    host_binary = args.binary
    if arch != images.binary_arch(sys.executable):
        host_binary = args.host_binary or os.path.join(images.REPO, ".build/release/boardwalk")
    testdata = images.find_testdata()
    # The operator PIN of this image: known to the test (it checks the journal never shows
    # it); typed only by the A/B board's operator steps, on the pad. Not one a passer-by would try.
    os.environ["BOARDWALK_VB_PIN"] = "".join(str(secrets.randbelow(10)) for _ in range(4)) + "80"
    only = steps_asked(args.only)
    # The A/B disk board's checks: the rollback and the fleet start from the updated
    # board, so asking for one (--only fleet) runs the update first. BOARDWALK_AB_ROLLBACK=0
    # and BOARDWALK_AB_FLEET=0 leave those out of a full run (a quicker run while working
    # on something else).
    def ab_wanted(name, env):
        return (only is None and os.environ.get(env, "1") != "0") or bool(only and name in only)
    rollback, fleet = ab_wanted("rollback", "BOARDWALK_AB_ROLLBACK"), ab_wanted("fleet", "BOARDWALK_AB_FLEET")
    update = only is None or rollback or fleet or "update" in only
    ab_steps = [k for k, wanted in (("update", update), ("rollback", rollback), ("fleet", fleet))
                if wanted and k not in args.skip]
    if "update" in args.skip:
        ab_steps = []  # the others start from the updated board
    results = Results(timed=True)
    t0 = time.monotonic()
    # A killed test (CI timeout, Ctrl-C) must not leave QEMU running.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if only is None or not only <= {"update", "rollback", "fleet"}:
        if not classic_board(args, testdata, host_binary, results, only):
            ab_steps = []  # no image: the failed build is the run's one line
    if ab_steps:
        updates.run(os.path.abspath(args.binary), args.workdir, results, testdata, ab_steps)
    print(f"artifacts in {args.workdir}; total {time.monotonic() - t0:.0f} s")
    print(f"{results.passed} passed, {results.failed} failed", flush=True)
    return 0 if results.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
