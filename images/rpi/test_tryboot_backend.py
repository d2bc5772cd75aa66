#!/usr/bin/env python3
"""Tests for images/rpi/rauc-tryboot-backend, the RAUC custom boot loader backend of the Pi
cards: the real script run with sh on a fake card (a directory standing for the mounted
partition 1 with autoboot.txt, boot-A/ and boot-B/ for the slots' boot partitions, a kernel
command line file and systemd's reboot parameter file), going through what RAUC and the slot
check do: an install (set-state bad, set-primary), the trial boot, mark-good or mark-bad.

    python3 images/rpi/test_tryboot_backend.py        (or python3 -m unittest)
"""
import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
BACKEND = os.path.join(HERE, "rauc-tryboot-backend")
DISK = "4257a0b0"
PROFILE_LINE = "console=tty3 quiet loglevel=0"


def autoboot(primary_part, other_part):
    return f"[all]\ntryboot_a_b=1\nboot_partition={primary_part}\n[tryboot]\nboot_partition={other_part}\n"


class Card:
    """A fake card as the backend sees it on a board booted from SLOT."""

    def __init__(self, tmp, trial="tryboot"):
        self.tmp = tmp
        self.bootsel = os.path.join(tmp, "firmware")
        self.slots = os.path.join(tmp, "slots")
        for d in (self.bootsel, os.path.join(self.slots, "boot-A"), os.path.join(self.slots, "boot-B")):
            os.makedirs(d)
        # What build-sdcard.sh writes: A committed and good, B empty and bad.
        self.write("firmware/autoboot.txt", autoboot(2, 3))
        os.makedirs(os.path.join(self.bootsel, "boardwalk"))
        self.write("firmware/boardwalk/slots", "# slots\nA=good\nB=bad\ntrial=none\n")
        self.trial = trial
        for slot, part in (("A", "05"), ("B", "06")):
            self.write_cmdline(slot, f"{PROFILE_LINE} root=PARTUUID={DISK}-{part} rootfstype=ext4 ro rauc.slot={slot}")
        if trial == "uboot":
            self.write("firmware/boardwalk/boot.env", "bw_committed=A\n")
        self.write("tryboot.conf", f"TRIAL={trial}\n")
        self.reboot_param = os.path.join(tmp, "run", "systemd", "reboot-param")
        self.boot("A")

    def write(self, rel, text):
        with open(os.path.join(self.tmp, rel), "w") as f:
            f.write(text)

    def read(self, rel):
        with open(os.path.join(self.tmp, rel)) as f:
            return f.read()

    def write_cmdline(self, slot, line):
        """The slot's boot partition's command line, as build-sdcard.sh writes it: cmdline.txt
        for the firmware, or slot.env for U-Boot."""
        if self.trial == "uboot":
            self.write(f"slots/boot-{slot}/slot.env",
                       f"bw_kernel=vmlinuz-6.12\nbw_initramfs=initrd.img-6.12\nbootargs={line}\n")
        else:
            self.write(f"slots/boot-{slot}/cmdline.txt", line + "\n")

    def cmdline_of(self, slot):
        if self.trial == "uboot":
            text = self.read(f"slots/boot-{slot}/slot.env")
            assert text.startswith("bw_kernel=vmlinuz-6.12\nbw_initramfs=initrd.img-6.12\n"), text
            return [l for l in text.splitlines() if l.startswith("bootargs=")][-1][len("bootargs="):]
        return self.read(f"slots/boot-{slot}/cmdline.txt").rstrip("\n")

    def boot(self, slot, tryboot=False):
        """A (re)boot: /run is new, the command line is the started slot's."""
        if os.path.exists(self.reboot_param):
            os.unlink(self.reboot_param)
        self.write("cmdline", self.cmdline_of(slot) + "\n")

    def env(self, rel):
        """A U-Boot env file (name=value lines), as boot.scr imports it."""
        path = os.path.join(self.bootsel, "boardwalk", rel)
        if not os.path.exists(path):
            return {}
        with open(path) as f:
            return dict(line.split("=", 1) for line in f.read().splitlines() if "=" in line)

    def uboot_next_boot(self):
        """What boot.scr (images/rpi/boot.cmd) starts: the committed slot, or once the armed
        trial, which it writes back as none first. test_card_boot.py runs the script itself."""
        committed = self.env("boot.env").get("bw_committed", "A")
        trial = self.env("trial.env").get("bw_trial", "none")
        if trial in ("A", "B") and trial != committed:
            self.write("firmware/boardwalk/trial.env", "bw_trial=none")
            return trial, True
        return committed, False

    def run(self, *args, ok=True):
        env = dict(os.environ, BW_TRYBOOT_BOOTSEL=self.bootsel, BW_TRYBOOT_SLOTDIR=self.slots,
                   BW_TRYBOOT_CMDLINE=os.path.join(self.tmp, "cmdline"), BW_TRYBOOT_REBOOT_PARAM=self.reboot_param,
                   BW_TRYBOOT_CONF=os.path.join(self.tmp, "tryboot.conf"))
        r = subprocess.run(["sh", BACKEND, *args], capture_output=True, text=True, env=env)
        if ok and r.returncode != 0:
            raise AssertionError(f"{args}: exit {r.returncode}: {r.stderr}")
        if not ok and r.returncode == 0:
            raise AssertionError(f"{args} succeeded: {r.stdout}")
        return r.stdout.strip() if ok else r.stderr

    def next_boot(self):
        """Which slot the firmware starts next: autoboot.txt's [tryboot] section when the
        reboot carries the tryboot flag, else its [all] boot_partition."""
        text = self.read("firmware/autoboot.txt")
        assert len(text.encode()) <= 512, "the firmware reads 512 bytes of autoboot.txt"
        section, values = None, {}
        for line in text.splitlines():
            if line.startswith("["):
                section = line
            elif "=" in line:
                values[(section, line.split("=")[0])] = line.split("=", 1)[1]
        assert values[("[all]", "tryboot_a_b")] == "1"
        tryboot = False
        if os.path.exists(self.reboot_param):
            with open(self.reboot_param) as f:
                tryboot = "tryboot" in f.read()
        part = values[("[tryboot]", "boot_partition")] if tryboot else values[("[all]", "boot_partition")]
        return {"2": "A", "3": "B"}[part], tryboot


class TrybootBackendTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.card = Card(self._tmp.name)

    def tearDown(self):
        self._tmp.cleanup()

    def install(self, card, slot):
        """What `rauc install` calls: the target slot marked bad before it is written,
        the images written (a new command line from the bundle: the build's, slot A's),
        then set-primary."""
        card.run("set-state", slot, "bad")
        card.write_cmdline(slot, f"{PROFILE_LINE} root=PARTUUID={DISK}-05 rootfstype=ext4 ro rauc.slot=A")
        card.run("set-primary", slot)

    def test_fresh_card(self):
        c = self.card
        self.assertEqual("A", c.run("get-primary"))
        self.assertEqual("A", c.run("get-current"))
        self.assertEqual("good", c.run("get-state", "A"))
        self.assertEqual("bad", c.run("get-state", "B"))
        self.assertEqual(("A", False), c.next_boot())

    def test_update_tried_once_then_committed_by_mark_good(self):
        c = self.card
        self.install(c, "B")
        # B wired to its own root; the trial armed; autoboot.txt still commits A.
        self.assertEqual(f"{PROFILE_LINE} root=PARTUUID={DISK}-06 rootfstype=ext4 ro rauc.slot=B\n",
                         c.read("slots/boot-B/cmdline.txt"))
        self.assertEqual("0 tryboot", c.read("run/systemd/reboot-param"))
        self.assertEqual(autoboot(2, 3), c.read("firmware/autoboot.txt"))
        self.assertEqual("B", c.run("get-primary"))
        self.assertEqual("good", c.run("get-state", "B"))
        self.assertEqual(("B", True), c.next_boot())
        # The trial boot: running B, but a plain reboot would still start A.
        c.boot("B", tryboot=True)
        self.assertEqual("B", c.run("get-current"))
        self.assertEqual("A", c.run("get-primary"))
        self.assertEqual(("A", False), c.next_boot())
        # The slot check: READY, mark-good booted. B is committed.
        c.run("set-state", "B", "good")
        self.assertEqual(autoboot(3, 2), c.read("firmware/autoboot.txt"))
        self.assertEqual("B", c.run("get-primary"))
        self.assertIn("trial=none", c.read("firmware/boardwalk/slots"))
        c.boot("B")
        self.assertEqual(("B", False), c.next_boot())
        # And the next update goes the other way.
        self.install(c, "A")
        self.assertEqual(f"{PROFILE_LINE} root=PARTUUID={DISK}-05 rootfstype=ext4 ro rauc.slot=A\n",
                         c.read("slots/boot-A/cmdline.txt"))
        self.assertEqual(("A", True), c.next_boot())

    def test_failed_trial_goes_back(self):
        c = self.card
        self.install(c, "B")
        c.boot("B", tryboot=True)
        # The kiosk never READY: the slot check marks the booted slot bad and reboots.
        c.run("set-state", "B", "bad")
        self.assertEqual(autoboot(2, 3), c.read("firmware/autoboot.txt"))
        self.assertEqual("bad", c.run("get-state", "B"))
        self.assertEqual("A", c.run("get-primary"))
        self.assertEqual(("A", False), c.next_boot())
        c.boot("A")
        c.run("set-state", "A", "good")
        self.assertEqual(autoboot(2, 3), c.read("firmware/autoboot.txt"))

    def test_a_trial_that_never_starts_is_not_committed(self):
        """Power cut before the reboot, or a kernel that drops the tryboot flag: the board
        comes back on A, whose mark-good must not commit B."""
        c = self.card
        self.install(c, "B")
        c.boot("A")
        c.run("set-state", "A", "good")
        self.assertEqual(autoboot(2, 3), c.read("firmware/autoboot.txt"))
        self.assertEqual("A", c.run("get-primary"))
        # mark-good on B from A (not running it) does not commit it either.
        c.run("set-state", "B", "good")
        self.assertEqual(autoboot(2, 3), c.read("firmware/autoboot.txt"))

    def test_set_primary_on_the_committed_slot_calls_off_a_trial(self):
        c = self.card
        self.install(c, "B")
        c.run("set-primary", "A")
        self.assertFalse(os.path.exists(c.reboot_param))
        self.assertIn("trial=none", c.read("firmware/boardwalk/slots"))
        self.assertEqual(("A", False), c.next_boot())

    def test_mark_good_every_boot_writes_nothing(self):
        c = self.card
        c.run("set-state", "A", "good")
        paths = [os.path.join(c.bootsel, "autoboot.txt"), os.path.join(c.bootsel, "boardwalk", "slots")]
        before = [os.stat(p).st_mtime_ns for p in paths]
        os.utime(paths[0], ns=(1, 1)); os.utime(paths[1], ns=(1, 1))
        c.run("set-state", "A", "good")
        self.assertEqual([1, 1], [os.stat(p).st_mtime_ns for p in paths], "the FAT partition was written again")
        self.assertTrue(before)

    def test_uboot_mode(self):
        """Kernels without the tryboot flag: U-Boot takes the armed trial once; a trial that
        resets goes back to the committed slot, mark-good commits the trial for the firmware
        and for U-Boot."""
        with tempfile.TemporaryDirectory() as tmp:
            c = Card(tmp, trial="uboot")
            self.assertEqual(("A", False), c.uboot_next_boot())
            self.install(c, "B")
            self.assertEqual(f"{PROFILE_LINE} root=PARTUUID={DISK}-06 rootfstype=ext4 ro rauc.slot=B", c.cmdline_of("B"))
            self.assertFalse(os.path.exists(c.reboot_param))
            self.assertEqual(autoboot(2, 3), c.read("firmware/autoboot.txt"))
            self.assertEqual({"bw_trial": "B"}, c.env("trial.env"))
            self.assertEqual("B", c.run("get-primary"))
            # The trial: U-Boot starts B once. It panics or hangs: the reset starts A.
            self.assertEqual(("B", True), c.uboot_next_boot())
            c.boot("B")
            self.assertEqual("A", c.run("get-primary"))
            self.assertEqual(("A", False), c.uboot_next_boot())
            c.boot("A")
            c.run("set-state", "A", "good")
            self.assertEqual({"bw_committed": "A"}, c.env("boot.env"))
            self.assertEqual(autoboot(2, 3), c.read("firmware/autoboot.txt"))
            # Tried again, this time READY: committed for both.
            self.install(c, "B")
            self.assertEqual(("B", True), c.uboot_next_boot())
            c.boot("B")
            c.run("set-state", "B", "good")
            self.assertEqual(autoboot(3, 2), c.read("firmware/autoboot.txt"))
            self.assertEqual({"bw_committed": "B"}, c.env("boot.env"))
            self.assertIn("trial=none", c.read("firmware/boardwalk/slots"))
            self.assertEqual(("B", False), c.uboot_next_boot())
            # A trial called off before the reboot: U-Boot finds none.
            self.install(c, "A")
            c.run("set-primary", "B")
            self.assertEqual({"bw_trial": "none"}, c.env("trial.env"))
            self.assertEqual(("B", False), c.uboot_next_boot())
            # The kiosk of a trial never READY: marked bad, no trial left.
            self.install(c, "A")
            self.assertEqual(("A", True), c.uboot_next_boot())
            c.boot("A")
            c.run("set-state", "A", "bad")
            self.assertEqual(("B", False), c.uboot_next_boot())
            self.assertEqual({"bw_committed": "B"}, c.env("boot.env"))

    def test_wiring_adds_what_is_missing(self):
        c = self.card
        c.write("slots/boot-B/cmdline.txt", f"{PROFILE_LINE}  ro\n")
        c.run("set-primary", "B")
        self.assertEqual(f"{PROFILE_LINE} ro root=PARTUUID={DISK}-06 rauc.slot=B\n", c.read("slots/boot-B/cmdline.txt"))

    def test_get_current_from_root_without_rauc_slot(self):
        c = self.card
        c.write("cmdline", f"{PROFILE_LINE} root=PARTUUID={DISK}-06 ro\n")
        self.assertEqual("B", c.run("get-current"))

    def test_bad_input(self):
        c = self.card
        self.assertIn("no slot 'C'", c.run("set-primary", "C", ok=False))
        self.assertIn("good|bad", c.run("set-state", "A", "maybe", ok=False))
        self.assertIn("usage", c.run("frobnicate", ok=False))
        c.write("cmdline", "quiet\n")
        self.assertIn("names no slot", c.run("get-current", ok=False))
        c.write("firmware/autoboot.txt", "[all]\nboot_partition=7\n")
        self.assertIn("not 2 (A) or 3 (B)", c.run("get-primary", ok=False))
        os.unlink(os.path.join(c.bootsel, "autoboot.txt"))
        self.assertIn("no ", c.run("get-primary", ok=False))
        c.write("tryboot.conf", "TRIAL=sometimes\n")
        self.assertIn("tryboot or uboot", c.run("get-current", ok=False))


if __name__ == "__main__":
    unittest.main()
