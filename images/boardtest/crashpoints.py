#!/usr/bin/env python3
"""Every crash point of the kiosk's state writes.

The virtual board's state disk can be attached through QEMU's blklogwrites driver
(`VirtualBoard(state_log=...)`): every write and flush the guest sends the disk is appended
to a log, in the order the disk completed them. This replays that log onto the disk as it
was before the boot, stopping after each entry in turn: each stop is the disk as a power cut
at that instant would leave it. At each one the ext4 journal is recovered as a mount would
(`e2fsck -E journal_only`), the file system must then check clean (`e2fsck -fn`), and the
state directory is read back (one `debugfs` run: each file's bytes, inode and generation),
and crashstate.py's rules judge each point: the state whole, old or new, every coin there.

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

try:
    from .crashstate import CONTROL, CONTROL_FILE, STATE_FILES, Verdict
except ImportError:  # run as a script
    from crashstate import CONTROL, CONTROL_FILE, STATE_FILES, Verdict

MAGIC = 0x6a736677736872
FLUSH, FUA, DISCARD, MARK = 1, 2, 4, 8
CHUNK = 4096
JOURNAL_MAGIC = 0xC03B3998
# Every this many recovered disks found already checked, one is checked again all the same.
SPOT_CHECK = 20
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


def journal_area(image):
    """(the byte offset of the journal's superblock, the 4 KiB chunks wholly inside the
    rest of the journal's blocks), from debugfs on the disk before the boot; (None, set())
    for a disk without an internal journal."""
    with open(image, "rb") as f:
        f.seek(1024 + 24)
        block = 1024 << struct.unpack("<I", f.read(4))[0]
    out = subprocess.run(["debugfs", "-R", "blocks <8>", image], capture_output=True, text=True).stdout.split()
    blocks = [int(b) for b in out if b.isdigit()]
    if not blocks:
        return None, set()
    rest = set(blocks[1:])
    area = set()
    for b in rest:
        for c in range(b * block // CHUNK, ((b + 1) * block - 1) // CHUNK + 1):
            # A chunk is left out only when every block it spans is in the log area.
            if all(x in rest for x in range(c * CHUNK // block, ((c + 1) * CHUNK - 1) // block + 1)):
                area.add(c)
    return blocks[0] * block, area


class Disk:
    """The disk being replayed: in memory (`truth`) and in a file on tmpfs (`image`, the
    one e2fsck and debugfs read), with a running identity: the sum of a hash of each
    4 KiB chunk with its number."""

    def __init__(self, base, scratch, clock):
        self.clock = clock
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
        # The journal's log area (all its blocks but its superblock), where a recovered
        # disk whose journal is empty (s_start 0) holds nothing e2fsck -fn or debugfs reads:
        # left out of the recovered disk's identity (`outside` sums the other chunks).
        self.journal_super, self.log_area = journal_area(self.image)
        self.outside = sum(h for i, h in enumerate(self.hashes) if i not in self.log_area) & MASK

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
            if i not in self.log_area:
                self.outside = (self.outside - self.hashes[i] + new) & MASK
            self.hashes[i] = new

    def recover(self):
        """Recovers the journal in the image (in place): (problem or None, the recovered
        disk's identity, the chunks recovery changed)."""
        import numpy as np
        # One clock for every recovery of the run: e2fsck stamps the superblock's write
        # time, which would make the same recovered disk differ from second to second.
        rc = subprocess.run(["e2fsck", "-E", "journal_only", "-y", self.image], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, env=dict(os.environ, E2FSCK_TIME=str(self.clock))).returncode
        now = np.frombuffer(self.map, dtype=np.uint64).reshape(-1, CHUNK // 8)
        was = np.frombuffer(self.truth, dtype=np.uint64).reshape(-1, CHUNK // 8)
        changed = [int(i) for i in np.nonzero((now != was).any(axis=1))[0]]
        del now, was
        key, outside = self.key, self.outside
        for i in changed:
            new = self.chunk_hash(i, self.map)
            key = (key - self.hashes[i] + new) & MASK
            if i not in self.log_area:
                outside = (outside - self.hashes[i] + new) & MASK
        # An empty journal after recovery: its superblock's magic and s_start 0 (big-endian).
        magic, start = struct.unpack_from(">I24xI", self.map, self.journal_super) if self.journal_super else (0, 1)
        identity = ("empty journal", outside) if magic == JOURNAL_MAGIC and start == 0 else ("whole disk", key)
        return (f"journal recovery failed (e2fsck status {rc})" if rc not in (0, 1) else None), identity, changed

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
    base, log, start, end, scratch_root, spot_check, clock = args
    sectorsize, entries = read_log(log)
    scratch = tempfile.mkdtemp(dir=scratch_root)
    disk = Disk(base, scratch, clock)
    points, states, recovered = [], {}, {}
    shortcuts = spot_checks = 0
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
                else:
                    # The shortcut checked now and then: the same identity, the same verdict.
                    shortcuts += 1
                    if shortcuts % spot_check == 0:
                        spot_checks += 1
                        if read_state(disk.image, scratch) != states[key]:
                            states[("spot check", point)] = ("a recovered disk read differently from the one "
                                                             "with its identity", {}, {})
                            key = ("spot check", point)
                recovered[disk.key] = key
                disk.restore(changed)
            points.append((point, disk.key, recovered[disk.key]))
        logmap.close()
    disk.close()
    shutil.rmtree(scratch, ignore_errors=True)
    return points, states, spot_checks


def replay(base, log, jobs=2, scratch_root=None, spot_check=SPOT_CHECK):
    """Every crash point of the log replayed: (sector size, entries, [(point, disk
    identity, recovered identity)] in order, {recovered identity: (problem, files, ids)},
    how many shortcuts were checked the long way)."""
    sectorsize, entries = read_log(log)
    points = len(entries) + 1
    scratch_root = scratch_root or ("/dev/shm" if os.path.isdir("/dev/shm") else None)
    # Contiguous ranges, a few per worker (a range's points share its recoveries).
    chunk = max(1, (points + jobs * 3 - 1) // (jobs * 3))
    clock = int(time.time())
    ranges = [(base, log, s, min(points - 1, s + chunk - 1), scratch_root, spot_check, clock)
              for s in range(0, points, chunk)]
    with multiprocessing.Pool(jobs) as pool:
        parts = pool.map(check_range, ranges)
    states = {}
    for _, part, _ in parts:
        states.update(part)
    return sectorsize, entries, [p for part, _, _ in parts for p in part], states, sum(p[2] for p in parts)


def run(base, log, coins=(), jobs=2, scratch_root=None, expect=(), resets=(), spot_check=SPOT_CHECK):
    """Checks every crash point; returns (report lines, failures). COINS: (coins, log
    entries[, books reset mark]) when the kiosk had reported each recorded; EXPECT: (file,
    bytes, log entries) as the test read a file on the board; RESETS: (reset mark, entries
    before the operator asked, entries once it was done)."""
    t0 = time.monotonic()
    sectorsize, entries, points, states, spot_checks = replay(base, log, jobs, scratch_root, spot_check)
    verdict = Verdict(coins, expect, resets)
    for point, _, key in points:
        verdict.point(point, *states[key])
    control_mixed = verdict.finish()
    flushes = sum(1 for e in entries if e.flags & FLUSH)
    lines = [
        f"{len(points)} crash points replayed ({len(entries) - flushes} writes, {flushes} flushes, "
        f"{sum(e.count for e in entries if not e.flags & DISCARD) * sectorsize // 1024} KiB written): "
        f"{len({p[1] for p in points})} distinct disks recovered, {len(states)} distinct recovered states checked "
        f"({spot_checks} repeats checked again, the same) in {time.monotonic() - t0:.0f} s",
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
    ap.add_argument("--spot-check", type=int, default=SPOT_CHECK, help="check again every Nth recovered disk found "
                    f"already checked (default {SPOT_CHECK}; 1: all of them)")
    args = ap.parse_args()
    coins = [tuple(int(x) for x in c.split("@")) for c in args.coins.split(",") if c]
    expect, resets = [], []
    if args.expect:
        with open(args.expect) as f:
            saved = json.load(f)
        coins += [tuple(c) for c in saved["coins"]]
        expect = [(name, text.encode(), at) for name, text, at in saved["files"]]
        resets = [tuple(r) for r in saved["resets"]]
    lines, failures = run(args.base, args.log, coins, args.jobs, expect=expect, resets=resets,
                          spot_check=args.spot_check)
    for line in lines:
        print(line)
    for failure in failures[:20]:
        print("FAIL", failure)
    if len(failures) > 20:
        print(f"... {len(failures) - 20} more")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
