#!/usr/bin/env python3
"""Tests for crashpoints.py on a write log made here: a small ext4 image changed step by
step with debugfs (each step a consistent file system), each step's changed sectors written
to a blklogwrites log as one entry and a flush. The steps replace state files as the kiosk
does (a new inode renamed over the old) and rewrite a control file in place. The fast
replay must give every point the same verdict as a plain one (a fresh copy of the disk per
point), catch the control torn and changed in place, and fail a state file rewritten in
place, a file that vanishes and a coin noted before it was on disk. e2fsprogs only (~2 s).

    python3 images/boardtest/test_crashpoints.py
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from boardtest import crashpoints  # noqa: E402

SECTOR = 512


class Log:
    """A write log in blklogwrites' format, built from consecutive images."""

    def __init__(self, base):
        with open(base, "rb") as f:
            self.disk = f.read()
        self.entries = []

    def step(self, image, flush=True):
        """One entry: the sectors from the first to the last that differ from the disk
        before (a consistent file system at either end); then a flush."""
        with open(image, "rb") as f:
            new = f.read()
        changed = [i for i in range(0, len(new), SECTOR) if new[i:i + SECTOR] != self.disk[i:i + SECTOR]]
        if changed:
            first, last = changed[0], changed[-1] + SECTOR
            self.entries.append((first // SECTOR, (last - first) // SECTOR, 0, new[first:last]))
        if flush:
            self.entries.append((0, 0, crashpoints.FLUSH, b""))
        self.disk = new
        return len(self.entries)

    def write(self, path):
        with open(path, "wb") as f:
            f.write(struct.pack("<QQQI", crashpoints.MAGIC, 1, len(self.entries), SECTOR).ljust(SECTOR, b"\0"))
            for sector, count, flags, data in self.entries:
                f.write(struct.pack("<QQQQ", sector, count, flags, len(data)).ljust(SECTOR, b"\0"))
                f.write(data)


class CrashPointsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.base = self.path("base.img")
        self.image = self.path("disk.img")
        subprocess.run(["mkfs.ext4", "-q", "-F", "-L", "bw-state", self.base, "8M"], check=True, capture_output=True)
        shutil.copyfile(self.base, self.image)
        self.log = Log(self.base)
        self.debugfs("mkdir crash-control")
        self.log.step(self.image)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.dir, name)

    def debugfs(self, *commands):
        script = self.path("commands")
        with open(script, "w") as f:
            f.write("\n".join(commands) + "\n")
        subprocess.run(["debugfs", "-w", "-f", script, self.image], check=True, capture_output=True)

    def replace(self, name, text):
        """As the kiosk writes a state file: a new inode, renamed over the old one."""
        with open(self.path("new"), "w") as f:
            f.write(text)
        # A new inode's generation differs from the one it may reuse (the kernel draws it at
        # random; debugfs leaves 0).
        self.generation = getattr(self, "generation", 0) + 1
        self.debugfs(f"write {self.path('new')} {name}.tmp", f"sif {name}.tmp generation {self.generation}")
        self.log.step(self.image, flush=False)
        self.debugfs(f"rm {name}", f"ln {name}.tmp {name}", f"unlink {name}.tmp")
        return self.log.step(self.image)

    def in_place(self, name, data):
        """Bytes written over the start of a file's first data block (its size kept)."""
        out = subprocess.run(["debugfs", "-R", f"bmap {name} 0", self.image], capture_output=True, text=True).stdout
        with open(self.image, "r+b") as f:
            f.seek(int(out.split()[-1]) * 1024)  # the 8 MB image's 1 KiB blocks
            f.write(data)
        return self.log.step(self.image)

    def run_log(self, **kw):
        self.log.write(self.path("state.log"))
        return crashpoints.run(self.base, self.path("state.log"), scratch_root=self.dir, **kw)

    def kiosk_like(self):
        """Counters and settings replaced whole, the control rewritten in place; returns
        the coins as noted (coins, entries) and the files as read."""
        self.replace("counters", "# c\ncoins=0\n")
        self.debugfs(f"write {self.write_text('control', '# control' + chr(10) + 'coins=1' + chr(10))} "
                     "crash-control/counters")
        self.log.step(self.image)
        one = self.replace("counters", "# c\ncoins=1\n")
        self.in_place("crash-control/counters", b"# control\ncoins=\0\0")
        self.in_place("crash-control/counters", b"# control\ncoins=2\n")
        two = self.replace("counters", "# c\ncoins=2\n")
        settings = self.replace("settings", "audio.volume=70\n")
        self.replace("scores", "zombies.best=120\ntop.zombies.best=120:BAA:1970-01-01\n")
        return [(1, one), (2, two)], [("settings", b"audio.volume=70\n", settings)]

    def write_text(self, name, text):
        with open(self.path(name), "w") as f:
            f.write(text)
        return self.path(name)

    def test_kiosk_like_writes_pass_and_the_control_is_caught(self):
        coins, files = self.kiosk_like()
        lines, failures = self.run_log(coins=coins, expect=files)
        self.assertEqual(failures, [])
        self.assertIn(f"{len(self.log.entries) + 1} crash points replayed", lines[0])
        self.assertRegex(lines[-1], r"torn at [1-9]\d* of the \d+ points it was there, [1-9]\d* inode\(s\) changed in place")

    def test_fast_replay_matches_a_fresh_copy_per_point(self):
        self.kiosk_like()
        self.log.write(self.path("state.log"))
        _, entries, points, states, _ = crashpoints.replay(self.base, self.path("state.log"), jobs=2,
                                                        scratch_root=self.dir)
        self.assertEqual([p for p, _, _ in points], list(range(len(entries) + 1)))
        with open(self.base, "rb") as f:
            disk = bytearray(f.read())
        with open(self.path("state.log"), "rb") as f:
            raw = f.read()
        for point, _, key in points:
            if point:
                e = entries[point - 1]
                disk[e.sector * SECTOR:(e.sector + e.count) * SECTOR] = raw[e.data:e.data + e.count * SECTOR]
            copy = self.path("copy.img")
            with open(copy, "wb") as f:
                f.write(disk)
            subprocess.run(["e2fsck", "-E", "journal_only", "-y", copy], capture_output=True)
            scratch = tempfile.mkdtemp(dir=self.dir)
            self.assertEqual(crashpoints.read_state(copy, scratch), states[key], f"point {point}")

    def test_a_state_file_rewritten_in_place_fails(self):
        self.replace("counters", "# c\ncoins=1\n")
        self.in_place("counters", b"# c\ncoins=7\n")
        lines, failures = self.run_log()
        self.assertTrue(any("counters changed in place" in f for f in failures), failures)

    def test_a_torn_state_file_fails(self):
        self.replace("counters", "# c\ncoins=1\n")
        self.in_place("counters", b"# c\ncoins=\0\0\0")
        lines, failures = self.run_log()
        self.assertTrue(any("counters is not whole" in f for f in failures), failures)

    def test_a_vanished_file_and_a_coin_noted_too_early_fail(self):
        early = self.replace("counters", "# c\ncoins=1\n")
        self.debugfs("rm counters")
        self.log.step(self.image)
        lines, failures = self.run_log(coins=[(2, early)], expect=[("counters", b"# c\ncoins=1\n", early - 2)])
        self.assertTrue(any("counters is missing" in f for f in failures), failures)
        self.assertTrue(any("had reported coin 2 recorded" in f for f in failures), failures)
        self.assertTrue(any("first appears at point" in f for f in failures), failures)

    def test_books_reset(self):
        self.replace("counters", "# c\ncoins=3\n")
        asked = len(self.log.entries)
        done = self.replace("counters", "# c\nbookkeeping.reset_at=99\ncoins=0\n")
        ok = self.run_log(coins=[(3, asked)], resets=[(99, asked, done)])[1]
        self.assertEqual(ok, [])
        late = self.run_log(coins=[(3, asked)], resets=[(99, done, done)])[1]
        self.assertTrue(any("reset before the operator asked" in f for f in late), late)


if __name__ == "__main__":
    unittest.main()
