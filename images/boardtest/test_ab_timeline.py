#!/usr/bin/env python3
"""Tests for how the A/B board tells a hardware watchdog's reset from the guest's own reboot:
qemu.EventLog reads a real QEMU's QMP events (a reset and a quit asked for here), and
ABBoard's boot count marks a boot that ended without the kernel's "Restarting system"
line and with a WATCHDOG event as the watchdog's, and no other. QEMU and the standard
library only (~1 s).

    python3 images/boardtest/test_ab_timeline.py
"""
import os
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from boardtest import qemu  # noqa: E402
from boardtest.checks import ab_board  # noqa: E402


class EventLogTest(unittest.TestCase):
    def test_a_reset_and_a_quit_are_recorded_with_their_times(self):
        with tempfile.TemporaryDirectory() as d:
            commands, events = os.path.join(d, "qmp.sock"), os.path.join(d, "events.sock")
            proc = subprocess.Popen(["qemu-system-x86_64", "-M", "none", "-nodefaults", "-display", "none",
                                     "-qmp", f"unix:{commands},server,nowait", "-qmp", f"unix:{events},server,nowait"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                deadline = time.monotonic() + 10
                while not os.path.exists(commands) and time.monotonic() < deadline:
                    time.sleep(0.02)
                log = qemu.EventLog(events, os.path.join(d, "events.log"))
                deadline = time.monotonic() + 10
                before = time.monotonic()
                # The event socket is read once QEMU has greeted it: reset until one is seen.
                while not log.seen("RESET") and time.monotonic() < deadline:
                    qemu.qmp(commands, "system_reset")
                    time.sleep(0.05)
                qemu.qmp(commands, "quit")
                proc.wait(timeout=10)
            finally:
                if proc.poll() is None:
                    proc.kill()
            deadline = time.monotonic() + 5
            while not log.seen("SHUTDOWN") and time.monotonic() < deadline:
                time.sleep(0.02)
            self.assertTrue(log.seen("RESET", since=before), log.events)
            self.assertTrue(log.seen("SHUTDOWN", since=before), log.events)
            self.assertEqual(log.seen("WATCHDOG"), [])
            with open(os.path.join(d, "events.log")) as f:
                self.assertIn("SHUTDOWN", f.read())


class FakeBoard:
    """What ABBoard reads of a virtual board: its serial log and its watchdog's resets."""
    slowdown = 1

    def __init__(self):
        self.log, self.watchdog = "", []

    def serial(self):
        return self.log

    def watchdog_resets(self, since=0.0):
        return [t for t in self.watchdog if t >= since]

    def alive(self):
        return True


class BootCountTest(unittest.TestCase):
    def setUp(self):
        self.vb = FakeBoard()
        kiosk = ab_board.Kiosk
        ab_board.Kiosk = lambda vb: None
        self.addCleanup(setattr, ab_board, "Kiosk", kiosk)
        self.ab = ab_board.ABBoard(self.vb, tempfile.gettempdir())

    def boot(self, slot, printed=""):
        self.vb.log += f"Boardwalk: slot {slot} (ORDER=A B)\n{printed}"

    def test_a_reboot_is_not_the_watchdog_and_a_silent_reset_with_its_event_is(self):
        self.boot("A", "reboot: Restarting system\n")
        self.boot("B")
        self.assertEqual((self.ab.wait_grub(1, 5), self.ab.wait_grub(2, 5)), ("A", "B"))
        self.vb.watchdog.append(time.monotonic())
        self.boot("A")
        self.assertEqual(self.ab.wait_grub(3, 5), "A")
        self.assertFalse(self.ab.ended_by_watchdog(1))
        self.assertTrue(self.ab.ended_by_watchdog(2))
        self.assertIn(f"boot 2: {ab_board.WATCHDOG_RESET}", self.ab.timeline())

    def test_a_silent_reset_without_the_event_is_not_called_the_watchdog(self):
        self.boot("B")
        self.assertEqual(self.ab.wait_grub(1, 5), "B")
        self.boot("A")
        self.assertEqual(self.ab.wait_grub(2, 5), "A")
        self.assertFalse(self.ab.ended_by_watchdog(1))

    def test_a_watchdog_event_before_the_boot_began_is_not_its(self):
        self.vb.watchdog.append(time.monotonic())
        time.sleep(0.01)
        self.boot("B")
        self.assertEqual(self.ab.wait_grub(1, 5), "B")
        self.boot("A")
        self.assertEqual(self.ab.wait_grub(2, 5), "A")
        self.assertFalse(self.ab.ended_by_watchdog(1))


if __name__ == "__main__":
    unittest.main()
