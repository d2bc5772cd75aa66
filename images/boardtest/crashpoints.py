#!/usr/bin/env python3
"""Every crash point of the kiosk's state writes.

The virtual board's state disk can be attached through QEMU's blklogwrites driver
(`VirtualBoard(state_log=...)`): every write and flush the guest sends the disk is appended
to a log, in the order the disk completed them. This replays that log onto the disk as it
was before the boot, stopping after each entry in turn: each stop is the disk as a power cut
at that instant would leave it. At each one the ext4 journal is recovered as a mount would
(`e2fsck -E journal_only`), the file system must then check clean (`e2fsck -fn`), and the
state directory is read back (one `debugfs` run: each file's bytes, inode and generation):

- every state file (scores, settings, counters, highscores) that is there parses whole,
  by the kiosk's rules (StateStore.parse, HighScoreTable.parseEntries): a half-written
  file, or a torn one, fails;
- each is a whole version, old or new, never a mix: the kiosk replaces a file by renaming a
  new one over it, so one inode (number and generation) must hold the same bytes at every
  point it is seen, and a version once replaced never comes back;
- a state file once there stays there (the running marker and temp files excepted);
- every coin the kiosk had reported recorded before that instant is in the counters, and
  every version of a file the test read on the board is there by the time it was read.

Cheap enough for thousands of points: the disk is kept in memory and in one file on tmpfs,
each entry applied to both (never the whole disk copied); its identity is a sum of per-4 KiB
hashes kept up to date as blocks change. A flush changes no block: the disk before it is
reused. The journal's recovery runs once per distinct disk, in place, and the blocks it
changed (found by comparing with the copy in memory) are put back afterwards; the recovered
disk's identity then decides whether `e2fsck -fn` and `debugfs` run: a recovered disk
byte-identical to one already checked is that one's result (the report counts both).

The log format (QEMU's block/blklogwrites.c, the same as Linux's dm-log-writes): sector 0
holds a superblock (magic, version, entry count as of the last flush, sector size, all
little-endian); from sector 1 each entry is one sector whose head is (sector, sector count,
flags, data length), followed by the written data rounded up to whole sectors (none for a
flush or a discard).

    crashpoints.py BASE.img STATE.log [--expect EXPECT.json] [--coins N@ENTRY,...] [--jobs 2]
"""

import argparse
import hashlib
import json
import mmap
import multiprocessing
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

MAGIC = 0x6a736677736872
FLUSH, FUA, DISCARD, MARK = 1, 2, 4, 8
STATE_FILES = ("scores", "settings", "counters", "highscores")
NUMERIC = ("scores", "counters")
# The system test's control: a directory on the state disk where a file is rewritten in
# place (truncate, write, fsync), as the kiosk must not; the replay must find it torn.
CONTROL = "crash-control"
CONTROL_FILE = CONTROL + "/counters"
KEY = re.compile(rb"^[A-Za-z0-9._-]{1,128}$")
# A high-score table's entry (HighScoreEntry(stored:)): score, three letters, a date.
ENTRY = re.compile(rb"^[0-9]+:[A-Z]{3}:[0-9-]{10}$")
CHUNK = 4096
MASK = (1 << 128) - 1


class Entry:
    __slots__ = ("sector", "count", "flags", "data")

    def __init__(self, sector, count, flags, data):
        self.sector, self.count, self.flags, self.data = sector, count, flags, data


def read_log(path):
    """The entries in the log: [Entry], data as offsets into the file (mmap'd by the
    caller). Entries past the superblock's count (written since the last flush, as a log
    cut by QEMU's quit leaves them) are read while they are whole."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 512:
        return 512, []
    magic, version, counted, sectorsize = struct.unpack_from("<QQQI", raw, 0)
    if magic != MAGIC or version != 1:
        raise ValueError(f"{path}: not a write log (magic {magic:#x}, version {version})")
    entries = []
    at = sectorsize
    while at + sectorsize <= len(raw):
        sector, count, flags, _ = struct.unpack_from("<QQQQ", raw, at)
        if len(entries) >= counted and sector == 0 and count == 0 and flags == 0:
            break
        if flags & ~(FLUSH | FUA | DISCARD | MARK):
            if len(entries) >= counted:
                break
            raise ValueError(f"{path}: entry {len(entries)} has flags {flags:#x}")
        data = at + sectorsize
        size = 0 if flags & DISCARD else count * sectorsize
        if data + size > len(raw):
            break  # cut while being written
        entries.append(Entry(sector, count, flags, data))
        at = data + ((size + sectorsize - 1) // sectorsize) * sectorsize
    return sectorsize, entries


def entry_count(path):
    """How many whole entries the log holds now (read while QEMU writes it)."""
    try:
        return len(read_log(path)[1])
    except (OSError, ValueError):
        return 0


def parse_state(name, data):
    """None when `data` is a whole state file by the kiosk's rules (StateStore.parse),
    else why not."""
    if not data:
        return "empty"
    if not data.endswith(b"\n"):
        return "truncated (no final newline)"
    if b"\0" in data:
        return "holds NUL bytes"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8"
    for number, line in enumerate(data.split(b"\n")[:-1], 1):
        if not line or line.startswith(b"#"):
            continue
        key, eq, value = line.partition(b"=")
        if not eq:
            return f"line {number}: no '='"
        if not KEY.match(key):
            return f"line {number}: bad key"
        if name in NUMERIC and not value.isdigit():
            return f"line {number}: not a whole number"
        if name == "highscores" and value:
            parts = value.split(b",")
            if len(parts) > 10 or not all(ENTRY.match(p) for p in parts):
                return f"line {number}: not a high-score table"
    return None


def counters_of(data):
    out = {}
    for line in data.split(b"\n"):
        key, eq, value = line.partition(b"=")
        if eq and value.isdigit():
            out[key.decode()] = int(value)
    return out


def read_state(image, scratch):
    """Checks the recovered `image` and reads its state files: (problem or None,
    {name: bytes}, {name: (inode, generation)}) for the state files and the control's."""
    check = subprocess.run(["e2fsck", "-fn", image], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if check.returncode != 0:
        return f"the file system does not check clean: {check.stdout.strip()[-400:]}", {}, {}
    out = os.path.join(scratch, "dump")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    names = STATE_FILES + (CONTROL_FILE,)
    commands = os.path.join(scratch, "commands")
    with open(commands, "w") as f:
        for i, name in enumerate(names):
            f.write(f"stat /{name}\ndump /{name} {out}/{i}\n")
    run = subprocess.run(["debugfs", "-f", commands, image], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True)
    # debugfs echoes each command ("debugfs: stat /scores") before its output.
    stats = {}
    for section in run.stdout.split("debugfs: ")[1:]:
        command, _, body = section.partition("\n")
        inode = re.search(r"^Inode: (\d+)", body, re.M)
        generation = re.search(r"^Generation: (\d+)", body, re.M)
        if command.startswith("stat /") and inode and generation:
            stats[command[6:]] = (int(inode.group(1)), int(generation.group(1)))
    files, ids = {}, {}
    for i, name in enumerate(names):
        path = os.path.join(out, str(i))
        if name in stats and os.path.isfile(path):
            with open(path, "rb") as f:
                files[name] = f.read()
            ids[name] = stats[name]
        elif name in stats or os.path.isfile(path):
            return f"{name}: debugfs saw it but could not read it", {}, {}
    return None, files, ids


class Disk:
    """The disk being replayed: in memory (`truth`) and in a file on tmpfs (`image`, the
    one e2fsck and debugfs read), with a running identity: the sum of a hash of each
    4 KiB chunk with its number."""

    def __init__(self, base, scratch):
        with open(base, "rb") as f:
            self.truth = bytearray(f.read())
        if len(self.truth) % CHUNK:
            self.truth.extend(bytes(CHUNK - len(self.truth) % CHUNK))
        self.image = os.path.join(scratch, "disk.img")
        with open(self.image, "wb") as f:
            f.write(self.truth)
        self.fd = os.open(self.image, os.O_RDWR)
        self.map = mmap.mmap(self.fd, len(self.truth))
        self.hashes = [self.chunk_hash(i, self.truth) for i in range(len(self.truth) // CHUNK)]
        self.key = sum(self.hashes) & MASK

    @staticmethod
    def chunk_hash(i, buf):
        h = hashlib.blake2b(i.to_bytes(8, "little"), digest_size=16)
        h.update(memoryview(buf)[i * CHUNK:(i + 1) * CHUNK])
        return int.from_bytes(h.digest(), "little")

    def write(self, at, data):
        end = at + len(data)
        self.truth[at:end] = data
        self.map[at:end] = data
        for i in range(at // CHUNK, (end - 1) // CHUNK + 1):
            new = self.chunk_hash(i, self.truth)
            self.key = (self.key - self.hashes[i] + new) & MASK
            self.hashes[i] = new

    def recover(self):
        """Recovers the journal in the image (in place): (problem or None, the recovered
        disk's identity, the chunks recovery changed)."""
        import numpy as np
        rc = subprocess.run(["e2fsck", "-E", "journal_only", "-y", self.image],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT).returncode
        now = np.frombuffer(self.map, dtype=np.uint64).reshape(-1, CHUNK // 8)
        was = np.frombuffer(self.truth, dtype=np.uint64).reshape(-1, CHUNK // 8)
        changed = [int(i) for i in np.nonzero((now != was).any(axis=1))[0]]
        del now, was
        key = self.key
        for i in changed:
            key = (key - self.hashes[i] + self.chunk_hash(i, self.map)) & MASK
        return (f"journal recovery failed (e2fsck status {rc})" if rc not in (0, 1) else None), key, changed

    def restore(self, changed):
        for i in changed:
            self.map[i * CHUNK:(i + 1) * CHUNK] = self.truth[i * CHUNK:(i + 1) * CHUNK]

    def close(self):
        self.map.close()
        os.close(self.fd)


def check_range(args):
    """Checks the crash points start..end (inclusive: the disk after that many entries) in
    one worker: ([(point, disk identity, recovered identity)], {recovered identity:
    (problem, files, ids)})."""
    base, log, start, end, scratch_root = args
    sectorsize, entries = read_log(log)
    scratch = tempfile.mkdtemp(dir=scratch_root)
    disk = Disk(base, scratch)
    points, states, recovered = [], {}, {}
    with open(log, "rb") as lf:
        logmap = mmap.mmap(lf.fileno(), 0, access=mmap.ACCESS_READ)

        def apply(e):
            if e.flags & DISCARD or e.count == 0:
                return
            disk.write(e.sector * sectorsize, logmap[e.data:e.data + e.count * sectorsize])

        for e in entries[:start]:
            apply(e)
        for point in range(start, end + 1):
            if point > 0:
                apply(entries[point - 1])
            if disk.key not in recovered:
                problem, key, changed = disk.recover()
                if problem:
                    key = ("failed", disk.key)
                    states[key] = (problem, {}, {})
                elif key not in states:
                    states[key] = read_state(disk.image, scratch)
                recovered[disk.key] = key
                disk.restore(changed)
            points.append((point, disk.key, recovered[disk.key]))
        logmap.close()
    disk.close()
    shutil.rmtree(scratch, ignore_errors=True)
    return points, states


def replay(base, log, jobs=2, scratch_root=None):
    """Every crash point of the log replayed: (sector size, entries, [(point, disk
    identity, recovered identity)] in order, {recovered identity: (problem, files, ids)})."""
    sectorsize, entries = read_log(log)
    points = len(entries) + 1
    scratch_root = scratch_root or ("/dev/shm" if os.path.isdir("/dev/shm") else None)
    # Contiguous ranges, a few per worker (a range's points share its recoveries).
    chunk = max(1, (points + jobs * 3 - 1) // (jobs * 3))
    ranges = [(base, log, s, min(points - 1, s + chunk - 1), scratch_root) for s in range(0, points, chunk)]
    with multiprocessing.Pool(jobs) as pool:
        parts = pool.map(check_range, ranges)
    states = {}
    for _, part in parts:
        states.update(part)
    return sectorsize, entries, [p for part, _ in parts for p in part], states


class Verdict:
    """The checks over the points in order (see the module's doc)."""

    def __init__(self, coins, expect, resets):
        self.failures = []
        # (coins, entries, the books' reset mark they count from: 0 before any reset)
        self.coins = sorted(((c[0], c[1], c[2] if len(c) > 2 else 0) for c in coins), key=lambda c: c[1])
        self.expect = expect
        self.resets = resets
        self.present = {}
        self.current = {}            # file -> (inode, generation) at the last point
        self.retired = {n: set() for n in STATE_FILES}
        self.bytes_of = {}           # (file, inode, generation) -> bytes
        self.mixed = set()           # (file, inode, generation) seen with two contents
        self.versions = {n: set() for n in STATE_FILES}
        self.first_seen = {}         # (file, bytes) -> first point
        self.highest_coins = 0
        self.control_seen = self.control_torn = 0
        self.parsed = {}

    def whole(self, name, data):
        if (name, data) not in self.parsed:
            self.parsed[(name, data)] = parse_state(name, data)
        return self.parsed[(name, data)]

    def same_inode(self, point, name, ident, data):
        """False (and a failure, once) when this inode held other bytes at another point."""
        key = (name,) + ident
        if self.bytes_of.setdefault(key, data) == data:
            return True
        if key not in self.mixed:
            self.mixed.add(key)
            if name != CONTROL_FILE:
                self.failures.append(f"point {point}: {name} changed in place (inode {ident[0]} holds other bytes "
                                     "than at an earlier point): a mix of old and new")
        return False

    def point(self, point, problem, files, ids):
        if problem:
            self.failures.append(f"point {point}: {problem}")
            return
        if CONTROL_FILE in files:
            self.control_seen += 1
            self.control_torn += parse_state("counters", files[CONTROL_FILE]) is not None
            self.same_inode(point, CONTROL_FILE, ids[CONTROL_FILE], files[CONTROL_FILE])
        for name in STATE_FILES:
            if name not in files:
                if name in self.present:
                    self.failures.append(f"point {point}: {name} is missing (there since point {self.present[name]})")
                continue
            data, ident = files[name], ids[name]
            why = self.whole(name, data)
            if why:
                self.failures.append(f"point {point}: {name} is not whole: {why}")
            self.same_inode(point, name, ident, data)
            if self.current.get(name) != ident:
                if ident in self.retired[name]:
                    self.failures.append(f"point {point}: {name} went back to a version it had left (inode {ident[0]})")
                if name in self.current:
                    self.retired[name].add(self.current[name])
                self.current[name] = ident
            self.versions[name].add(data)
            self.present.setdefault(name, point)
            self.first_seen.setdefault((name, data), point)
        counters = counters_of(files.get("counters", b""))
        have, mark = counters.get("coins", 0), counters.get("bookkeeping.reset_at", 0)
        self.highest_coins = max(self.highest_coins, have)
        # Coins count from the last books reset: those before it are owed until it is there.
        owed = max([n for n, at, since in self.coins if at <= point and since == mark], default=0)
        if have < owed:
            self.failures.append(f"point {point}: counters say coins={have}, but the kiosk had reported coin {owed} recorded")
        marks = [reset for reset, _, _ in self.resets]
        for i, (reset, asked, done) in enumerate(self.resets):
            if mark == reset and point < asked:
                self.failures.append(f"point {point}: the books read reset before the operator asked")
            if point >= done and mark not in marks[i:]:  # this reset or a later one
                self.failures.append(f"point {point}: the books reset the operator saw done is not there")

    def finish(self):
        for name, data, at in self.expect:
            seen = self.first_seen.get((name, data))
            if seen is None or seen > at:
                self.failures.append(f"{name} as read on the board after {at} log entries "
                                     f"{'was never seen' if seen is None else f'first appears at point {seen}'}: "
                                     f"{data[:80]!r}")
        control_mixed = sum(1 for key in self.mixed if key[0] == CONTROL_FILE)
        if self.control_seen and not self.control_torn:
            self.failures.append("the control's file, rewritten in place, was never found torn: the replay cannot see "
                                 "a torn write")
        if self.control_seen and not control_mixed:
            self.failures.append("the control's file, rewritten in place, never showed other bytes under one inode: "
                                 "the replay cannot see a mix")
        return control_mixed


def run(base, log, coins=(), jobs=2, scratch_root=None, expect=(), resets=()):
    """Checks every crash point; returns (report lines, failures). COINS: (coins, log
    entries[, books reset mark]) when the kiosk had reported each recorded; EXPECT: (file,
    bytes, log entries) as the test read a file on the board; RESETS: (reset mark, entries
    before the operator asked, entries once it was done)."""
    t0 = time.monotonic()
    sectorsize, entries, points, states = replay(base, log, jobs, scratch_root)
    verdict = Verdict(coins, expect, resets)
    for point, _, key in points:
        verdict.point(point, *states[key])
    control_mixed = verdict.finish()
    flushes = sum(1 for e in entries if e.flags & FLUSH)
    lines = [
        f"{len(points)} crash points replayed ({len(entries) - flushes} writes, {flushes} flushes, "
        f"{sum(e.count for e in entries if not e.flags & DISCARD) * sectorsize // 1024} KiB written): "
        f"{len({p[1] for p in points})} distinct disks recovered, {len(states)} distinct recovered states checked "
        f"in {time.monotonic() - t0:.0f} s",
        "versions of each file seen whole: " + ", ".join(f"{n} {len(v)}" for n, v in verdict.versions.items()),
        f"coins: {len(verdict.coins)} reported recorded, each there at every later point; most seen "
        f"{verdict.highest_coins}; {len(resets)} books reset(s) there from when done; {len(expect)} files as read "
        "on the board there in time",
    ]
    if verdict.control_seen:
        lines.append(f"control: a file rewritten in place was found torn at {verdict.control_torn} of the "
                     f"{verdict.control_seen} points it was there, {control_mixed} inode(s) changed in place")
    return lines, verdict.failures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("base", help="the state disk image as it was before the logged boot")
    ap.add_argument("log", help="the blklogwrites log of that boot")
    ap.add_argument("--expect", help="crash-expect.json the system test left beside the log: the coins and the "
                    "files it read on the board")
    ap.add_argument("--coins", default="", help="N@ENTRY,...: coin N was reported recorded when the log held ENTRY entries")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    coins = [tuple(int(x) for x in c.split("@")) for c in args.coins.split(",") if c]
    expect, resets = [], []
    if args.expect:
        with open(args.expect) as f:
            saved = json.load(f)
        coins += [tuple(c) for c in saved["coins"]]
        expect = [(name, text.encode(), at) for name, text, at in saved["files"]]
        resets = [tuple(r) for r in saved["resets"]]
    lines, failures = run(args.base, args.log, coins, args.jobs, expect=expect, resets=resets)
    for line in lines:
        print(line)
    for failure in failures[:20]:
        print("FAIL", failure)
    if len(failures) > 20:
        print(f"... {len(failures) - 20} more")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
