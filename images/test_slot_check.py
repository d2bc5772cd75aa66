#!/usr/bin/env python3
"""Tests for systemd/boardwalk-slot-check, the A/B images' slot check: the real script run
with sh, with systemctl, rauc and findmnt in front of it on PATH as small fakes that read
and write files (the kiosk unit's state, RAUC's answer, the marks and the reboot), and the
kernel command line, uptime and os-release as files. What it must do on a board: mark a
READY slot good, end a failed trial by marking it bad and rebooting, ask RAUC again when it
could not answer (the rollback that waited forever), never reboot a confirmed slot.

    python3 images/test_slot_check.py        (or python3 -m unittest)
"""
import os
import subprocess
import tempfile
import textwrap
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(os.path.dirname(HERE), "systemd", "boardwalk-slot-check")
UUID = "0b6e4c1a-7d2f-4e8b-9a55-3c1f2d4e5a6b"

# The fakes. Each failure count file holds how many more calls fail.
FAKES = {
    "systemctl": r"""
        case "$1" in
        show) cat "$FAKE/unit" ;;
        reboot)
            n=$(cat "$FAKE/reboot-fails" 2>/dev/null || echo 0)
            if [ "$n" -gt 0 ]; then echo $((n - 1)) > "$FAKE/reboot-fails"
                echo "Failed to reboot: Connection timed out" >&2; exit 1; fi
            echo reboot >> "$FAKE/calls" ;;
        *) exit 2 ;;
        esac
    """,
    "rauc": r"""
        [ "$1" = status ] || exit 2
        case "$2" in
        --detailed)
            echo ask >> "$FAKE/calls"
            n=$(cat "$FAKE/rauc-fails" 2>/dev/null || echo 0)
            if [ "$n" -gt 0 ]; then echo $((n - 1)) > "$FAKE/rauc-fails"
                echo "rauc-Message: Timeout was reached" >&2; exit 1; fi
            cat "$FAKE/rauc-status" ;;
        mark-good|mark-bad) echo "$2 $3" >> "$FAKE/calls" ;;
        *) exit 2 ;;
        esac
    """,
    "findmnt": f'echo {UUID}\n',
}


def rauc_status(booted, other_status):
    """RAUC's shell output (the fields the check reads) for slots A and B."""
    other = "B" if booted == "A" else "A"
    return (f"RAUC_SLOTS='1 2'\nRAUC_SLOT_BOOTNAME_1='{booted}'\nRAUC_SLOT_BOOT_STATUS_1='good'\n"
            f"RAUC_SLOT_BOOTNAME_2='{other}'\nRAUC_SLOT_BOOT_STATUS_2='{other_status}'\n")


class Board:
    """A board booted from SLOT as the slot check sees it."""

    def __init__(self, tmp, slot="A", active=False, restarts=0, uptime=20, other="good", confirmed=False):
        self.tmp = tmp
        self.fake = os.path.join(tmp, "fake")
        self.bin = os.path.join(tmp, "bin")
        self.record_dir = os.path.join(tmp, "esp", "boardwalk")
        self.run_dir = os.path.join(tmp, "run")
        for d in (self.fake, self.bin, self.record_dir, self.run_dir):
            os.makedirs(d)
        for name, body in FAKES.items():
            path = os.path.join(self.bin, name)
            with open(path, "w") as f:
                f.write("#!/bin/sh\n" + textwrap.dedent(body))
            os.chmod(path, 0o755)
        self.slot = slot
        self.write("cmdline", f"root=PARTUUID=x-05 ro quiet rauc.slot={slot}\n")
        self.write("os-release", "ID=debian\nIMAGE_VERSION=1.2+test\n")
        self.write("conf", f"RECORD_DIR={self.record_dir}\nTRIAL_LIMIT=300\nTRIAL_STARTS=3\n")
        self.set_uptime(uptime)
        self.set_unit(active, restarts)
        self.write("fake/rauc-status", rauc_status(slot, other))
        if confirmed:
            self.write("esp/boardwalk/confirmed", f"{slot} {UUID}\n")

    def write(self, rel, text):
        with open(os.path.join(self.tmp, rel), "w") as f:
            f.write(text)

    def read(self, rel):
        try:
            with open(os.path.join(self.tmp, rel)) as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def set_unit(self, active, restarts):
        self.write("fake/unit", f"ActiveState={'active' if active else 'activating'}\nNRestarts={restarts}\n")

    def set_uptime(self, seconds):
        self.write("uptime", f"{seconds}.42 {seconds * 2}.00\n")

    def calls(self):
        return self.read("fake/calls").split("\n")[:-1]

    def log(self):
        return self.read("esp/boardwalk/slot-check.log")

    def start(self):
        env = dict(os.environ, FAKE=self.fake, PATH=self.bin + ":" + os.environ["PATH"],
                   BW_SLOT_CHECK_CONF=os.path.join(self.tmp, "conf"),
                   BW_SLOT_CHECK_CMDLINE=os.path.join(self.tmp, "cmdline"),
                   BW_SLOT_CHECK_UPTIME=os.path.join(self.tmp, "uptime"),
                   BW_SLOT_CHECK_OS_RELEASE=os.path.join(self.tmp, "os-release"),
                   BW_SLOT_CHECK_RUNDIR=self.run_dir, BW_SLOT_CHECK_POLL="0.02", BW_SLOT_CHECK_ASK_EVERY="0")
        return subprocess.Popen(["sh", CHECK], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def run(self, timeout=20):
        """Runs the check until it ends by itself; its output."""
        p = self.start()
        out, _ = p.communicate(timeout=timeout)
        assert p.returncode == 0, f"the slot check exited {p.returncode}: {out}"
        return out

    def run_while(self, seconds, step=None):
        """Runs the check for a while (it would keep waiting); STEP(board) halfway. Its output,
        and whether it ended by itself."""
        p = self.start()
        time.sleep(seconds / 2)
        if step:
            step(self)
        try:
            out, _ = p.communicate(timeout=seconds / 2)
            return out, True
        except subprocess.TimeoutExpired:
            p.kill()
            out, _ = p.communicate()
            return out, False


class SlotCheckTests(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def test_ready_trial_is_marked_good_and_confirmed(self):
        b = Board(self.tmp, active=True)
        b.run()
        self.assertEqual(b.calls(), ["mark-good booted"])
        self.assertEqual(b.read("esp/boardwalk/confirmed"), f"A {UUID}\n")
        self.assertIn("slot A (1.2+test, root " + UUID + "): the kiosk is READY; marked good and confirmed", b.log())

    def test_confirmed_slot_keeps_its_record_once(self):
        b = Board(self.tmp, slot="B", active=True, confirmed=True)
        b.write("esp/boardwalk/confirmed", f"A 1111\nB {UUID}\n")
        out = b.run()
        self.assertEqual(b.calls(), ["mark-good booted"])
        self.assertEqual(b.read("esp/boardwalk/confirmed"), f"A 1111\nB {UUID}\n")
        self.assertIn("slot B (1.2+test): the kiosk is READY; marked good", out)

    def test_failed_trial_after_its_starts_is_marked_bad_and_rebooted(self):
        b = Board(self.tmp, restarts=3)
        b.run()
        self.assertEqual(b.calls(), ["ask", "mark-bad booted", "reboot"])
        self.assertIn("trial boot failed: the kiosk is not READY after 3 starts; marking it bad", b.log())

    def test_failed_trial_after_its_time_is_marked_bad_and_rebooted(self):
        b = Board(self.tmp, restarts=1, uptime=301)
        b.run()
        self.assertEqual(b.calls(), ["ask", "mark-bad booted", "reboot"])
        self.assertIn("the kiosk is not READY 300 s after boot", b.log())

    def test_a_trial_still_in_its_limits_is_left_alone(self):
        b = Board(self.tmp, restarts=2, uptime=299)
        out, ended = b.run_while(1.0)
        self.assertFalse(ended, out)
        self.assertEqual(b.calls(), [])

    def test_rauc_that_cannot_answer_is_asked_again(self):
        # The rollback that never came: rauc status failed once (its service slow to start
        # under a kiosk restarting in a loop) and the check waited for READY for ever.
        b = Board(self.tmp, restarts=7)
        b.write("fake/rauc-fails", "3\n")
        b.run()
        self.assertEqual(b.calls(), ["ask", "ask", "ask", "ask", "mark-bad booted", "reboot"])
        log = b.log()
        self.assertEqual(log.count("rauc could not tell the other slot's state (rauc-Message: Timeout was reached"), 1, log)
        self.assertIn("marking it bad and rebooting into the other slot", log)

    def test_a_reboot_that_fails_is_asked_again(self):
        b = Board(self.tmp, restarts=7)
        b.write("fake/reboot-fails", "1\n")
        b.run()
        self.assertEqual(b.calls(), ["ask", "mark-bad booted", "ask", "mark-bad booted", "reboot"])
        self.assertIn("systemctl reboot failed (Failed to reboot: Connection timed out", b.log())

    def test_no_good_slot_to_go_back_to_waits_for_ready(self):
        b = Board(self.tmp, restarts=7, other="bad")
        out, ended = b.run_while(1.5, step=lambda b: b.set_unit(True, 8))
        self.assertTrue(ended, out)
        calls = b.calls()
        self.assertNotIn("mark-bad booted", calls)
        self.assertNotIn("reboot", calls)
        self.assertEqual(calls[-1], "mark-good booted")
        log = b.log()
        self.assertEqual(log.count("there is no good slot to go back to; waiting for READY"), 1, log)
        self.assertIn("the kiosk is READY; marked good and confirmed", log)

    def test_confirmed_slot_is_never_marked_bad(self):
        b = Board(self.tmp, restarts=50, uptime=5000, confirmed=True)
        out, ended = b.run_while(1.0)
        self.assertFalse(ended, out)
        self.assertEqual(b.calls(), [])

    def test_not_an_ab_boot_does_nothing(self):
        b = Board(self.tmp, active=True)
        b.write("cmdline", "root=/dev/vda2 ro quiet\n")
        out = b.run()
        self.assertIn("not booted from an A/B slot", out)
        self.assertEqual(b.calls(), [])


if __name__ == "__main__":
    unittest.main()
