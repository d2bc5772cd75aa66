"""Updates and rollbacks on the A/B disk board (x86 or arm64, the kiosk's CPU): version 1 booted from slot A; version
2's bundle installed from a USB stick through the operator menu, a reboot into it with the
coins kept and the new version on the System tab (update); then a bundle whose kernel
panics, installed with `rauc install` from a second disk, and the board back on version 2
by itself (rollback: GRUB passes the unconfirmed slot); then the fleet's way (fleet): the
board enrolled with a DDI server on this machine (goosebit), version 3 assigned there,
downloaded and installed by the board's rauc-hawkbit-updater and rebooted into once the
kiosk is idle, the server told of its success; then a bundle whose kiosk cannot start
assigned, and the board back on version 3 by itself (the slot check marks the trial slot
bad and reboots), the server told of its failure."""
import os
import subprocess
import sys
import tempfile
import time
import traceback

from ..board import VirtualBoard
from ..fleet_server import FleetServer, semver
from ..images import PROFILES, REPO, as_root, binary_arch, build_disk, make_state_disk, make_stick, serial_console
from ..kiosk import save_journal_and_stop
from ..results import Failed, require
from . import step
from .ab_board import ABBoard
from .operator import OperatorMenu

# A broken trial boot ends when the disk board's slot check gives up on it: after 3 kiosk
# starts, or 900 s of uptime at most (build-disk.sh's BW_SLOT_CHECK_LIMIT); then a reboot.
TRIAL_WAIT = float(os.environ.get("BOARDWALK_VB_TRIAL_WAIT", "1200"))
# The Beat Zombies best the A/B board's state starts with (kept across update and rollback).
AB_HIGH_SCORE = 4321
# What the panicking bundle's init writes on the serial console before it exits.
PANIC_MARK = "boardwalk-test: the init of this update exits now; the kernel panics"


def panic_bundle(rootfs, outdir, version, arch, log):
    """A bundle whose kernel panics at boot: a root image (the broken kiosk's) whose
    /boot/initrd.img is an initramfs whose init (busybox) writes PANIC_MARK on the serial
    console and exits: the kernel panics ("Attempted to kill init!"; quiet loglevel=0 keeps
    the panic's own lines off the console). Made from a copy with debugfs (the busybox
    from the root's own initramfs: the board's CPU), signed with rauc.sh's development key."""
    os.makedirs(outdir, exist_ok=True)
    img = os.path.join(outdir, "rootfs.ext4")
    subprocess.run(["cp", "--sparse=always", rootfs, img], check=True)
    empty = os.path.join(outdir, "initrd-panic.img")
    with tempfile.TemporaryDirectory() as d:
        initrd = os.path.join(d, "initrd.img")
        subprocess.run(["debugfs", "-R", f"dump /boot/initrd.img {initrd}", img], check=True, stdout=log, stderr=log)
        with open(initrd, "rb") as f:
            subprocess.run(["cpio", "-i", "-d", "--quiet", "bin/busybox"], stdin=f, cwd=d, check=True)
        os.unlink(initrd)
        os.mkdir(os.path.join(d, "dev"))
        with open(os.path.join(d, "init"), "w") as f:
            f.write("#!/bin/busybox sh\n/bin/busybox mount -t devtmpfs devtmpfs /dev\n"
                    f"echo '{PANIC_MARK}' > /dev/{serial_console(arch)}\nexit 1\n")
        os.chmod(os.path.join(d, "init"), 0o755)
        with open(empty, "wb") as f:
            subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], input=b"bin\nbin/busybox\ndev\ninit\n", cwd=d,
                           stdout=f, check=True)
    subprocess.run(["debugfs", "-w", "-R", "rm /boot/initrd.img", img], check=True, stdout=log, stderr=log)
    subprocess.run(["debugfs", "-w", "-R", f"write {empty} /boot/initrd.img", img], check=True, stdout=log, stderr=log)
    out = os.path.join(outdir, "update.raucb")
    cmd = ["bash", "-c", 'set -eu; source "$1/lib.sh"; source "$1/rauc.sh"; bw_rauc_bundle "$2" "$3" "$4" "$5"', "-",
           os.path.join(REPO, "images"), img, version, "boardwalk-" + PROFILES[arch], out]
    subprocess.run(as_root(cmd), check=True, stdout=log, stderr=log, env=dict(os.environ, BOARDWALK_RAUC_DEV_KEYS="1"))
    return out


class Versions:
    """The versions of one run: `git describe` with suffixes that share no letter, so the
    on-screen check (OCR) tells one from the other; the fleet's in the semver form goosebit
    reads from a bundle."""

    def __init__(self):
        base = subprocess.run(["git", "-C", REPO, "describe", "--always", "--tags", "--dirty"],
                              capture_output=True, text=True).stdout.strip() or "unknown"
        self.v1, self.v2, self.panic = (f"{base}+{w}" for w in ("alpha", "bravo", "panic"))
        self.v3, self.broken = semver(3, base, "charlie"), semver(4, base, "broken")


def make_board(binary, arch, sub, testdata, versions, steps, fleet, log):
    """Builds the disk for arch (version 1), the bundles (2; for the rollback the panicking
    one; for the fleet 3 and the broken kiosk's, kept on `fleet`), the USB sticks and the
    state; returns the VirtualBoard."""
    tb = time.monotonic()
    disk, _, built1 = build_disk(binary, os.path.join(sub, "v1"), testdata, log=log, version=versions.v1, arch=arch)
    _, bundle2, built2 = build_disk(binary, os.path.join(sub, "v2"), testdata, log=log, version=versions.v2,
                                    bundle_only=True, arch=arch)
    bundles = [bundle2]
    require(built1 == versions.v1 and built2 == versions.v2, f"built versions {built1}, {built2}")
    if "rollback" in steps or "fleet" in steps:
        broken = os.path.join(sub, "broken-boardwalk")
        with open(broken, "w") as f:
            f.write("#!/bin/sh\n# The system test's kiosk that cannot start (the rollback check).\n"
                    "echo 'boardwalk: broken on purpose by the system test' >&2\nexit 1\n")
        os.chmod(broken, 0o755)
        _, broken_bundle, _ = build_disk(broken, os.path.join(sub, "broken"), None, log=log,
                                         version=versions.broken, bundle_only=True, arch=arch)
    if "rollback" in steps:
        bundles.append(panic_bundle(os.path.join(sub, "broken", "rootfs.ext4"), os.path.join(sub, "panic"),
                                    versions.panic, arch, log))
    if fleet:
        _, fleet.good_bundle, _ = build_disk(binary, os.path.join(sub, "v3"), testdata, log=log, version=versions.v3,
                                             bundle_only=True, arch=arch)
        fleet.broken_bundle = broken_bundle
    # Version 2 on a USB stick (the operator's path); the panicking bundle on a second disk
    # (the command line's path, `rauc install FILE`). Each under a name of its own.
    named = []
    for b, name in zip(bundles, ("boardwalk-v2.raucb", "boardwalk-panic.raucb")):
        dest = os.path.join(sub, name)
        if os.path.exists(dest):
            os.unlink(dest)
        os.link(b, dest)
        named.append(dest)
    stick = os.path.join(sub, "stick.img")
    make_stick(stick, named[:1])
    disks = []
    if len(named) > 1:
        disks = [os.path.join(sub, "bundles.img")]
        make_stick(disks[0], named[1:])
    # The cabinet's state already holds a Beat Zombies high score, which updates and
    # rollbacks must keep (and the menu's tile must show), and the operator PIN's hash
    # (build-disk.sh puts none in the root, so no bundle carries one), written by
    # boardwalk-set-pin as an image build does.
    state = os.path.join(sub, "state.img")
    with tempfile.TemporaryDirectory() as pin_dir:
        subprocess.run([os.path.join(REPO, "scripts", "boardwalk-set-pin"), pin_dir], check=True,
                       env=dict(os.environ, BW_PIN=os.environ["BOARDWALK_VB_PIN"]))
        with open(os.path.join(pin_dir, "operator-pin")) as pin_file:
            pin_hash = pin_file.read()
    make_state_disk(state, files={"scores": f"zombies.best={AB_HIGH_SCORE}\n", "operator-pin": pin_hash})
    # A stranger's USB stick holding a byte copy of this board's disk, and one of its
    # state disk: same partition UUIDs, GPT names and labels. Plugged in all along.
    clones = [os.path.join(sub, "clone-disk.img"), os.path.join(sub, "clone-state.img")]
    for src, dst in zip((disk, state), clones):
        subprocess.run(["cp", "--sparse=always", src, dst], check=True)
    served = [fleet.good_bundle, fleet.broken_bundle] if fleet else []
    print(f"{arch} A/B images built in {time.monotonic() - tb:.0f} s (v1 disk, bundles "
          f"{', '.join(f'{os.path.getsize(b) >> 20} MB' for b in bundles + served)}); booting the disk board", flush=True)
    return VirtualBoard(sub, None, None, None, arch=arch, state_disk=state, boot_disk=disk, disks=disks,
                        usb_sticks=[stick] + clones, guestfwd=fleet.guestfwd if fleet else ())


def require_kept(f, when):
    """The state a cabinet had before: the coin and the high score."""
    require(f.get("coins") == "1", f"the coins after {when}: {f.get('coins')}, not 1")
    require(f.get("zombies_best") == str(AB_HIGH_SCORE), f"the high score after {when}: {f.get('zombies_best')}")


@step("update: version 2 from a USB stick through the operator menu, rebooted into, coins kept")
def update(ab, op, v, fleet):
    """Boot 1 (version 1 on A) and its checks, a coin, the install through the menu, the
    reboot into B and its checks."""
    tboot = time.monotonic()
    ab.wait_boot()
    boot1 = time.monotonic() - tboot
    f = ab.wait_confirmed("A")
    require(f.get("slot") == "A" and f.get("version") == v.v1, f"first boot: {f}, expected slot A, {v.v1}")
    clock = ab.clock_and_watchdog()
    disk1 = ab.system_disk("ab-01")
    policy = ab.dbus_policy()
    unmounted1 = op.sticks_unmounted("before the operator menu opens", timeout=0)
    # Pressed again only if the kiosk was restarting (busy emulation: a watchdog restart)
    # and so never saw it.
    for attempt in range(3):
        ab.kiosk.wait_active(180 * ab.slow)
        ab.vb.coin()
        deadline = time.monotonic() + 40
        while ab.facts().get("coins") is None and time.monotonic() < deadline:
            time.sleep(2.0)
        if ab.facts().get("coins") is not None:
            break
    f = ab.facts()
    require(f.get("coins") == "1", f"the coin was not counted on the state disk: {f}")
    require(f.get("conf_pins") == "0" and f.get("state_pin") == "1",
            f"the PIN's hash is not on the state disk alone (root's boardwalk.conf has {f.get('conf_pins')}): {f}")
    ab.kiosk.on_screen("ab-01-v1")
    # Install version 2 from the stick through the operator menu, restart into it.
    t_install = op.install_from_menu("boardwalk-v2.raucb", v.v2)
    f = ab.facts()
    require(f.get("ORDER", "").split()[:1] == ["B"] and f.get("B_OK") == "1",
            f"after the install GRUB's environment does not prefer slot B: {f}")
    ab.reboot()
    tboot = time.monotonic()
    ab.wait_boot()
    boot2 = time.monotonic() - tboot
    f = ab.wait_confirmed("B")
    require(f.get("slot") == "B", f"after the update the board booted slot {f.get('slot')}, not B")
    require(f.get("version") == v.v2, f"after the update os-release says {f.get('version')}, not {v.v2}")
    require_kept(f, "the update")
    require(f.get("conf_pins") == "0" and f.get("state_pin") == "1", f"the PIN after the update: {f}")
    op.tap((640, 760), 2.0)  # below the tiles: wakes the attract mode, else nothing
    ab.kiosk.on_screen("ab-02-v2")
    menu = op.ocr("ab-02-v2")
    require(str(AB_HIGH_SCORE) in menu,
            f"the menu does not show the high score {AB_HIGH_SCORE} (OCR read: {menu.strip()[:300]!r})")
    shown = op.version_on_screen("ab-02-v2-system-tab", v.v2, v.v1)
    unmounted2 = op.sticks_unmounted("once the operator menu is closed")
    disk2 = ab.system_disk("ab-02")
    return (f"{v.v1} on A -> Update from USB in the operator menu (the PIN from the state disk; none in either root) "
            f"({t_install:.0f} s) -> reboot -> {v.v2} on B, marked good; "
            f"coins=1 and the high score {AB_HIGH_SCORE} kept (on the menu's tile too); its System tab read '{shown}'; "
            f"boot 1: {clock}; {policy}; USB: {unmounted1}, with the System tab open {op.mounted_for_operator}, "
            f"{unmounted2}; with a copy of the disk on USB: boot 1 {disk1}; boot 2 {disk2}; "
            f"boots {boot1:.0f} s and {boot2:.0f} s from start/reboot to READY; timeline: {ab.timeline()}")


def failed_trial(ab, slot, what):
    """A trial boot into SLOT that cannot come up (the bundle installed and the reboot on
    its way): waits for it to end by itself; returns its serial log. The board's next boot
    is the caller's (wait_boot)."""
    trial = ab.wait_failed_trial(TRIAL_WAIT)
    require(trial == slot, f"the {what} bundle's boot took slot {trial}, not {slot}")
    return ab.boot_logs()[ab.boots - 1][1]


def back_on(ab, slot, version, when):
    """The boot after a failed trial: SLOT with VERSION, marked good, state kept. Returns
    the boot loader's environment and the host's time when the boot was READY."""
    booted = ab.wait_boot()
    ready = time.monotonic()
    require(booted == slot, f"after {when} GRUB took slot {booted}, not {slot}")
    f = ab.wait_confirmed(slot)
    require(f.get("slot") == slot and f.get("version") == version, f"after {when}: {f}, expected {slot} with {version}")
    require_kept(f, when)
    return f, ready


@step("rollback: a bundle whose kernel panics; back on the old slot by itself")
def rollback(ab, op, v, fleet):
    """A bundle whose kernel panics (its initramfs's init exits): panic=10 restarts the
    board, GRUB passes the slot whose try never got confirmed, and B starts again."""
    t1 = time.monotonic()
    t_install = ab.install("boardwalk-panic.raucb")
    ab.mark("installed (panicking)")
    f = ab.facts()
    require(f.get("ORDER", "").split()[:1] == ["A"], f"after installing the panicking bundle A is not preferred: {f}")
    ab.reboot()
    log = failed_trial(ab, "A", "panicking")
    require(PANIC_MARK in log, f"slot A's boot did not start the panicking bundle's initramfs: {log[-600:]}")
    f, ready = back_on(ab, "B", v.v2, "the kernel panic")
    require(f.get("A_TRY") == "1", f"slot A's unconfirmed try is not recorded: {f}")
    ab.kiosk.on_screen("ab-03-rolled-back")
    return (f"the panicking bundle: install {t_install:.0f} s, "
            f"its init exited (the kernel panicked) and the board restarted by itself (panic=10), "
            f"back on B ({v.v2}) READY {ready - t1:.0f} s after its install began, coins=1, A_TRY=1; "
            f"timeline: {ab.timeline(t1)}")


def reboots_by_itself(ab, what):
    """The board's own reboot into an installed update (boardwalk-fleet-reboot: once the
    kiosk is idle); the command channel goes with it."""
    ab.mark(f"installed ({what}), waiting for the board's own reboot")
    ab.vb.shell.close()


@step("fleet: an update assigned on the DDI server (goosebit) is installed by the board and rebooted into once the kiosk "
      "is idle; a broken one rolls back by itself; the server shows each result")
def fleet(ab, op, v, server):
    t0 = time.monotonic()
    t_enroll = server.enroll(ab, 240 * ab.slow)
    registered = server.state()
    ab.kiosk.wait_active(180 * ab.slow)
    _, version, t_good = server.assign(server.good_bundle, 900 * ab.slow)
    require(version == v.v3, f"goosebit read the bundle's version as {version}, not {v.v3}")
    require(str(server.device().get("last_state")).lower() == "finished", f"the install of {v.v3}: {server.state()}")
    reboots_by_itself(ab, v.v3)
    slot = ab.wait_boot()
    require(slot == "A", f"after the fleet's update GRUB took slot {slot}, not A")
    f = ab.wait_confirmed("A")
    require(f.get("version") == v.v3, f"after the fleet's update os-release says {f.get('version')}, not {v.v3}")
    require_kept(f, "the fleet's update")
    reported = server.wait("the board's version after its reboot", lambda d: d.get("sw_version") == v.v3, 180 * ab.slow)
    good = f"{v.v3}: enrolled in {t_enroll:.0f} s ({registered}), installed {t_good:.0f} s after its assignment, " \
           f"booted on A, marked good, coins and the high score kept; the server: {reported.get('last_state')} {v.v3}"
    ab.kiosk.on_screen("ab-04-fleet-v3")
    # The broken kiosk's bundle: the updater reports success once RAUC wrote slot B; the
    # trial boot fails, the slot check marks B bad and reboots into A, whose
    # boardwalk-fleet-report tells the server.
    t2 = time.monotonic()
    _, broken, t_broken = server.assign(server.broken_bundle, 900 * ab.slow)
    reboots_by_itself(ab, broken)
    failed_trial(ab, "B", "broken")
    trial = ab.boots
    f, ready = back_on(ab, "A", v.v3, "the broken update")
    if ab.ended_by_watchdog(trial):
        # Under a loaded host the emulated board can miss its 15 s watchdog before the slot
        # check acts (QEMU's WATCHDOG event says so): the field's other way back. B's try is
        # spent and never confirmed, so GRUB passes B from now on.
        require(f.get("B_TRY") == "1" and f.get("B_OK") == "1" and f.get("ORDER", "").split()[:1] == ["B"],
                f"after the watchdog's reset of B's trial: {f}")
        marked = "B_TRY=1 (the hardware watchdog reset the trial before the slot check acted)"
        how = "no slot check line: the watchdog came first"
    else:
        require(f.get("B_OK") == "0", f"slot B is not marked bad: {f}")
        rc, log = ab.sh("grep 'trial boot failed' /boot/efi/boardwalk/slot-check.log | tail -1")
        require(rc == 0 and "slot B" in log, f"the slot check's log does not show slot B's failed trial: {log}")
        marked = "B_OK=0"
        how = log.split(' ', 1)[-1][:140]
    d = server.wait_failure(broken, 300 * ab.slow)
    require(d.get("sw_version") == v.v3, f"the server's version for the board after the rollback: {server.state()}")
    ab.kiosk.on_screen("ab-05-fleet-rolled-back")
    return (f"{good}; {broken}: installed {t_broken:.0f} s after its assignment, the trial boot on B failed, "
            f"back on A ({v.v3}) READY {ready - t2:.0f} s after the assignment, {marked}, coins kept; "
            f"slot check: {how}; the server: {server.state()}; "
            f"{time.monotonic() - t0:.0f} s in all; timeline: {ab.timeline(t0)}")


def run(binary, workdir, results, testdata, steps):
    """The A/B disk board's checks named in steps ("update", then "rollback" and "fleet"
    after it): each a PASS or FAIL line; after a failure the steps left are failed as not
    reached."""
    sub = os.path.join(workdir, "ab-update")
    os.makedirs(sub, exist_ok=True)
    checks = [c for c in (update, rollback, fleet) if c.__name__ in steps]
    t0 = time.monotonic()
    vb = ab = server = None
    done = 0
    try:
        versions = Versions()
        # The server first: the board's QEMU forwards the guest's 10.0.2.100 to its port.
        server = FleetServer(sub).start() if "fleet" in steps else None
        with open(os.path.join(sub, "build.log"), "w") as log:
            vb = make_board(binary, binary_arch(binary), sub, testdata, versions, steps, server, log)
        vb.start()
        ab = ABBoard(vb, sub)
        op = OperatorMenu(ab)
        for c in checks:
            ts = time.monotonic() if done else t0
            detail = c(ab, op, versions, server)
            results.record(True, c.title, detail, time.monotonic() - ts)
            done += 1
    except Exception as e:
        if not isinstance(e, Failed):
            traceback.print_exc(file=sys.stderr)
        detail = (str(e) if isinstance(e, Failed) else f"{type(e).__name__}: {e}") + \
            (f"; timeline: {ab.timeline()}" if ab else "") + (f"; the server: {server.state()}" if server else "")
        for c in checks[done:]:
            results.record(False, c.title, detail, time.monotonic() - t0)
            detail = "not reached"
    finally:
        if vb:
            try:
                with open(os.path.join(sub, "slot-check.log"), "w") as f:
                    f.write(vb.sh("cat /boot/efi/boardwalk/slot-check.log; rauc status 2>&1; "
                                  "journalctl -b -u rauc-hawkbit-updater -u 'boardwalk-fleet*' --no-pager | tail -n 80",
                                  timeout=30)[1])
            except Exception:
                pass
            save_journal_and_stop(vb, sub)
        if server:
            server.stop()
