#!/usr/bin/env python3
"""Boots a Raspberry Pi card with Debian's kernel (images/rpi/build-sdcard.sh, TRIAL=uboot)
on QEMU's raspi3b, a Pi 3 with the card's own U-Boot, boot script, kernel and initramfs, and
follows its A/B slots through the boots an update makes:

  1. a new card starts slot A (U-Boot on the card's uboot.env: no autoboot delay, no USB
     scan, on every boot);
  2. an update armed for slot B (the card's rauc-tryboot-backend, as RAUC calls it) whose
     root partition holds no file system: U-Boot starts B once, its initramfs cannot mount
     the root and panics (panic=10), and the reset (the kernel's bcm2835-wdt) starts A
     again, with the trial taken off;
  3. slot B given a root and tried again: it starts once; a reset before it is marked good
     goes back to A;
  4. marked good from B (the slot check's mark-good): from then on B is what starts.

QEMU's raspi3b has no firmware: it loads U-Boot and the device tree itself (what the firmware
does from the committed slot's boot partition on a Pi). The test reads the boots on the
serial port, so it adds console=ttyS1 ignore_loglevel to its copy's kernel command lines;
the card itself is not changed.

    python3 images/rpi/test_card_boot.py CARD.img [--workdir DIR]

Needs qemu-system-arm (qemu-system-aarch64) and mtools. About 7 minutes here (each
boot is about a minute of an emulated Pi 3).
"""
import argparse
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cardimage import partitions  # noqa: E402

BACKEND = os.path.join(HERE, "rauc-tryboot-backend")
SERIAL_CONSOLE = "console=ttyS1,115200 ignore_loglevel"
DTB = "bcm2837-rpi-3-b.dtb"
# What the backend reads and writes on partition 1 (U-Boot mode).
BOOTSEL_FILES = ("autoboot.txt", "boardwalk/slots", "boardwalk/boot.env", "boardwalk/trial.env")


class Card:
    """A copy of the card, its FAT partitions read and written with mtools."""

    def __init__(self, src, workdir):
        self.path = os.path.join(workdir, "card.img")
        subprocess.run(["cp", "--sparse=always", src, self.path], check=True)
        # QEMU's SD card is a power of two in size.
        size = os.path.getsize(self.path)
        os.truncate(self.path, 1 << (size - 1).bit_length())
        self.disk_id, parts = partitions(self.path)
        self.parts = {n: (p["offset"], p["size"]) for n, p in parts.items()}
        self.env = dict(os.environ, MTOOLS_SKIP_CHECK="1")

    def fat(self, part):
        return f"{self.path}@@{self.parts[part][0]}"

    def read(self, part, name):
        r = subprocess.run(["mtype", "-i", self.fat(part), f"::/{name}"], capture_output=True, env=self.env)
        return r.stdout.decode() if r.returncode == 0 else None

    def get(self, part, name, dest):
        subprocess.run(["mcopy", "-n", "-o", "-i", self.fat(part), f"::/{name}", dest], check=True, env=self.env)

    def put(self, part, src, name):
        subprocess.run(["mcopy", "-o", "-i", self.fat(part), src, f"::/{name}"], check=True, env=self.env)

    def copy_partition(self, src, dst):
        """Partition src's bytes into partition dst (an update writing slot B's root)."""
        (s_off, s_size), (d_off, d_size) = self.parts[src], self.parts[dst]
        assert s_size <= d_size
        with open(self.path, "r+b") as f:
            for off in range(0, s_size, 1 << 24):
                f.seek(s_off + off)
                block = f.read(min(1 << 24, s_size - off))
                f.seek(d_off + off)
                f.write(block)


class Board:
    """One power-on of QEMU's raspi3b; serial lines read as they come."""
    running = []   # every board not yet off: a failed check leaves none behind

    def __init__(self, card, uboot, dtb, log):
        self.log = open(log, "a")
        self.lines = queue.Queue()
        self.proc = subprocess.Popen(
            ["qemu-system-aarch64", "-M", "raspi3b", "-kernel", uboot, "-dtb", dtb,
             "-drive", f"file={card.path},if=sd,format=raw", "-serial", "null", "-serial", "stdio",
             "-display", "none", "-monitor", "none"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        threading.Thread(target=self._read, daemon=True).start()
        self.seen = []
        Board.running.append(self)

    def _read(self):
        buf = b""
        while True:
            chunk = self.proc.stdout.read1(4096)
            if not chunk:
                self.lines.put(None)
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                text = line.decode(errors="replace").rstrip("\r")
                self.log.write(text + "\n"); self.log.flush()
                self.lines.put(text)

    def expect(self, pattern, timeout, fail=None):
        """The first serial line matching pattern within timeout s; fail: a pattern that
        must not come first."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no line matching {pattern!r} within {timeout} s; last lines:\n  " +
                                     "\n  ".join(self.seen[-15:]))
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError(f"QEMU ended before {pattern!r}; last lines:\n  " + "\n  ".join(self.seen[-15:]))
            self.seen.append(line)
            m = re.search(pattern, line)
            if m:
                return m
            if fail and re.search(fail, line):
                raise AssertionError(f"{line!r} before {pattern!r}")

    def off(self):
        self.proc.kill()
        self.proc.wait()
        self.log.close()
        if self in Board.running:
            Board.running.remove(self)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("card")
    ap.add_argument("--workdir")
    args = ap.parse_args()
    for tool in ("qemu-system-aarch64", "mcopy"):
        if not shutil.which(tool):
            sys.exit(f"test_card_boot: {tool} is missing (scripts/install-deps.sh arm64)")
    workdir = args.workdir or tempfile.mkdtemp(prefix="bw-card-boot.")
    os.makedirs(workdir, exist_ok=True)
    log = os.path.join(workdir, "serial.log")
    open(log, "w").close()
    card = Card(args.card, workdir)
    results = []

    def check(name, fn):
        start = time.monotonic()
        try:
            detail = fn()
            results.append(True)
            print(f"ok   {name} ({time.monotonic() - start:.0f} s): {detail}", flush=True)
        except AssertionError as e:
            results.append(False)
            print(f"FAIL {name} ({time.monotonic() - start:.0f} s): {e}", flush=True)
            raise

    conf = os.path.join(workdir, "tryboot.conf")
    config = card.read(2, "config.txt") or ""
    if not re.search(r"^kernel=u-boot\.bin$", config, re.M):
        # A card with the Raspberry Pi kernel: its trial is the firmware's tryboot, which
        # QEMU's raspi3b (no firmware) cannot run.
        print("test_card_boot: the card's firmware starts its kernel itself (TRIAL=tryboot): no U-Boot to boot here")
        return 0
    with open(conf, "w") as f:
        f.write("TRIAL=uboot\n")
    uboot, dtb = os.path.join(workdir, "u-boot.bin"), os.path.join(workdir, DTB)
    card.get(2, "u-boot.bin", uboot)
    card.get(2, DTB, dtb)

    # The test reads the kernel on the serial port.
    for part in (2, 3):
        text = card.read(part, "slot.env")
        assert text and "bootargs=" in text, f"partition {part} has no slot.env with bootargs="
        text = re.sub(r"^(bootargs=.*)$", lambda m: f"{m.group(1)} {SERIAL_CONSOLE}", text, flags=re.M)
        src = os.path.join(workdir, f"slot{part}.env")
        with open(src, "w") as f:
            f.write(text)
        card.put(part, src, "slot.env")

    def backend(running, *cmd):
        """rauc-tryboot-backend on the card's partition 1 and boot partitions, as the system
        started from slot `running` runs it (copied out, run, copied back)."""
        d = os.path.join(workdir, "backend")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(os.path.join(d, "sel", "boardwalk"))
        for name in BOOTSEL_FILES:
            if card.read(1, name) is not None:
                card.get(1, name, os.path.join(d, "sel", name))
        for slot, part in (("A", 2), ("B", 3)):
            os.makedirs(os.path.join(d, f"boot-{slot}"))
            card.get(part, "slot.env", os.path.join(d, f"boot-{slot}", "slot.env"))
        bootargs = re.search(r"^bootargs=(.*)$", open(os.path.join(d, f"boot-{running}", "slot.env")).read(), re.M).group(1)
        with open(os.path.join(d, "cmdline"), "w") as f:
            f.write(bootargs + "\n")
        env = dict(os.environ, BW_TRYBOOT_BOOTSEL=os.path.join(d, "sel"), BW_TRYBOOT_SLOTDIR=d,
                   BW_TRYBOOT_CMDLINE=os.path.join(d, "cmdline"), BW_TRYBOOT_CONF=conf,
                   BW_TRYBOOT_REBOOT_PARAM=os.path.join(d, "reboot-param"))
        out = ""
        for c in cmd:
            r = subprocess.run(["sh", BACKEND, *c], capture_output=True, text=True, env=env)
            assert r.returncode == 0, f"rauc-tryboot-backend {' '.join(c)}: {r.stderr.strip()}"
            out = r.stdout.strip()
        for name in BOOTSEL_FILES:
            p = os.path.join(d, "sel", name)
            if os.path.exists(p):
                card.put(1, p, name)
        for slot, part in (("A", 2), ("B", 3)):
            card.put(part, os.path.join(d, f"boot-{slot}", "slot.env"), "slot.env")
        return out

    def boot(slot, committed, root_part, board=None):
        """One boot that U-Boot starts from slot, on to its root file system mounted."""
        b = board or Board(card, uboot, dtb, log)
        # The card's own environment (uboot.env): no delay a key could stop, no USB scan.
        b.expect(r"^Loading Environment from FAT\.\.\. OK", 60)
        b.expect(rf"Boardwalk: slot {slot} \(committed {committed}\)", 120,
                 fail=r"Boardwalk: slot |Hit any key to stop autoboot|starting USB")
        b.expect(rf"Kernel command line: .*root=PARTUUID={card.disk_id}-0{root_part} .*rauc\.slot={slot}\b", 180)
        b.expect(rf"EXT4-fs \(mmcblk0p{root_part}\): mounted filesystem", 240)
        b.off()

    def new_card():
        boot("A", "A", 5)
        return "U-Boot started slot A, whose kernel mounted partition 5"

    def broken_trial():
        assert backend("A", ("set-state", "B", "bad"), ("set-primary", "B"), ("get-primary",)) == "B"
        trial = card.read(1, "boardwalk/trial.env")
        assert trial.strip() == "bw_trial=B", f"trial.env: {trial!r}"
        b = Board(card, uboot, dtb, log)
        b.expect(r"Boardwalk: slot B \(committed A\)", 120)
        b.expect(rf"Kernel command line: .*root=PARTUUID={card.disk_id}-06 .*rauc\.slot=B\b", 180)
        # initramfs-tools cannot mount the empty root partition, then panic= reboots.
        b.expect(r"Rebooting automatically due to panic= boot argument", 400)
        # The kernel resets the board (bcm2835-wdt's restart; without it: "Reboot failed --
        # System halted"), and U-Boot comes up again.
        b.expect(r"reboot: Restarting system", 60, fail=r"Reboot failed")
        boot("A", "A", 5, board=b)
        trial = card.read(1, "boardwalk/trial.env")
        assert trial == "bw_trial=none\n", f"U-Boot left trial.env as {trial!r}"
        assert backend("A", ("get-primary",)) == "A"
        return "slot B tried once, its initramfs panicked, the reset started slot A; trial.env: bw_trial=none"

    def trial_not_committed():
        card.copy_partition(5, 6)   # the update's root
        backend("A", ("set-state", "B", "bad"), ("set-primary", "B"))
        boot("B", "A", 6)
        boot("A", "A", 5)
        return "slot B started once (root partition 6), then A again: an uncommitted trial does not stay"

    def committed():
        backend("A", ("set-state", "B", "bad"), ("set-primary", "B"))
        boot("B", "A", 6)
        assert backend("B", ("set-state", "B", "good"), ("get-primary",)) == "B"
        assert card.read(1, "boardwalk/boot.env").strip() == "bw_committed=B"
        boot("B", "B", 6)
        return "marked good from B: boot.env bw_committed=B, and B starts"

    try:
        check("new card", new_card)
        check("trial that cannot boot", broken_trial)
        check("trial not committed", trial_not_committed)
        check("trial committed", committed)
    except AssertionError:
        pass
    finally:
        for board in list(Board.running):
            board.off()
    print(f"{results.count(True)} passed, {results.count(False)} failed (serial log: {log})")
    return 0 if all(results) and len(results) == 4 else 1


if __name__ == "__main__":
    sys.exit(main())
