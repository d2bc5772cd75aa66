#!/usr/bin/env python3
"""Every crash point of the kiosk's state writes.

The virtual board's state disk can be attached through QEMU's blklogwrites driver
(`VirtualBoard(state_log=...)`): every write and flush the guest sends the disk is appended
to a log, in the order the disk completed them. This replays that log onto the disk as it
was before the boot, stopping after each entry in turn: each stop is the disk as a power cut
at that instant would leave it. At each one the ext4 journal is recovered as a mount would
(`e2fsck -E journal_only`), the file system must then check clean (`e2fsck -fn`), and the
state directory is read back (`debugfs rdump`):

- every state file (scores, settings, counters, highscores) that is there parses whole,
  by the kiosk's rules: a half-written file, or a torn one, fails;
- a state file once there stays there (the running marker and temp files excepted);
- every coin the kiosk had reported recorded before that instant is in the counters.

The log format (QEMU's block/blklogwrites.c, the same as Linux's dm-log-writes): sector 0
holds a superblock (magic, version, entry count as of the last flush, sector size, all
little-endian); from sector 1 each entry is one sector whose head is (sector, sector count,
flags, data length), followed by the written data rounded up to whole sectors (none for a
flush or a discard).

    crashpoints.py BASE.img STATE.log [--coins N@ENTRY,...] [--jobs 2]
"""

import argparse
import hashlib
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
KEY = re.compile(rb"^[A-Za-z0-9._-]{1,128}$")


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
    return None


def counters_of(data):
    out = {}
    for line in data.split(b"\n"):
        key, eq, value = line.partition(b"=")
        if eq and value.isdigit():
            out[key.decode()] = int(value)
    return out


def read_state(image, scratch):
    """Recovers the journal of `image` (a copy: changed in place), checks it, and returns
    (problem or None, {file name: bytes} of the state directory's root)."""
    rc = subprocess.run(["e2fsck", "-E", "journal_only", "-y", image],
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT).returncode
    if rc not in (0, 1):
        return f"journal recovery failed (e2fsck status {rc})", {}
    check = subprocess.run(["e2fsck", "-fn", image], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if check.returncode != 0:
        return f"the file system does not check clean: {check.stdout.strip()[-400:]}", {}
    out = os.path.join(scratch, "dump")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    subprocess.run(["debugfs", "-R", f"rdump / {out}", image], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    files = {}
    for sub in ("", CONTROL):
        root = os.path.join(out, sub)
        for name in os.listdir(root) if os.path.isdir(root) else ():
            full = os.path.join(root, name)
            if os.path.isfile(full):
                with open(full, "rb") as f:
                    files[os.path.join(sub, name)] = f.read()
    return None, files


def check_range(args):
    """Checks the crash points start..end (inclusive: the disk after that many entries) in
    one worker: [(point, digest, problem, {state file: bytes})]."""
    base, log, start, end, scratch_root = args
    sectorsize, entries = read_log(log)
    with open(base, "rb") as f:
        disk = bytearray(f.read())
    scratch = tempfile.mkdtemp(dir=scratch_root)
    image = os.path.join(scratch, "disk.img")
    results = []
    seen = {}
    with open(log, "rb") as lf:
        logmap = mmap.mmap(lf.fileno(), 0, access=mmap.ACCESS_READ)

        def apply(e):
            if e.flags & DISCARD or e.count == 0:
                return
            at, size = e.sector * sectorsize, e.count * sectorsize
            disk[at:at + size] = logmap[e.data:e.data + size]

        for e in entries[:start]:
            apply(e)
        for point in range(start, end + 1):
            if point > 0:
                apply(entries[point - 1])
            digest = hashlib.blake2b(disk, digest_size=16).digest()
            if digest in seen:
                # A flush changes no block: the same disk as the point before it.
                results.append((point, digest, seen[digest][0], seen[digest][1]))
                continue
            with open(image, "wb") as f:
                f.write(disk)
            problem, files = read_state(image, scratch)
            state = {k: v for k, v in files.items() if k in STATE_FILES or k.startswith(CONTROL + "/")}
            seen[digest] = (problem, state)
            results.append((point, digest, problem, state))
        logmap.close()
    shutil.rmtree(scratch, ignore_errors=True)
    return results


def run(base, log, coins=(), jobs=2, scratch_root=None):
    """Checks every crash point; returns (report lines, failures)."""
    t0 = time.monotonic()
    sectorsize, entries = read_log(log)
    points = len(entries) + 1
    scratch_root = scratch_root or ("/dev/shm" if os.path.isdir("/dev/shm") else None)
    chunk = max(1, (points + jobs * 4 - 1) // (jobs * 4))
    ranges = [(base, log, s, min(points - 1, s + chunk - 1), scratch_root) for s in range(0, points, chunk)]
    with multiprocessing.Pool(jobs) as pool:
        results = [r for part in pool.map(check_range, ranges) for r in part]
    failures = []
    present = {}
    versions = {name: set() for name in STATE_FILES}
    coins = sorted(coins, key=lambda c: c[1])
    highest_coins = 0
    distinct = set()
    control = os.path.join(CONTROL, "counters")
    control_seen = control_torn = 0
    for point, digest, problem, state in results:
        distinct.add(digest)
        if problem:
            failures.append(f"point {point}: {problem}")
            continue
        if control in state:
            control_seen += 1
            control_torn += parse_state("counters", state[control]) is not None
        for name in STATE_FILES:
            if name in state:
                why = parse_state(name, state[name])
                if why:
                    failures.append(f"point {point}: {name} is not whole: {why}")
                versions[name].add(state[name])
                present.setdefault(name, point)
            elif name in present:
                failures.append(f"point {point}: {name} is missing (there since point {present[name]})")
        have = counters_of(state.get("counters", b"")).get("coins", 0)
        highest_coins = max(highest_coins, have)
        owed = max([n for n, at in coins if at <= point], default=0)
        if have < owed:
            failures.append(f"point {point}: counters say coins={have}, but the kiosk had reported coin {owed} recorded")
    flushes = sum(1 for e in entries if e.flags & FLUSH)
    lines = [
        f"{points} crash points checked ({len(entries) - flushes} writes, {flushes} flushes, "
        f"{sum(e.count for e in entries if not e.flags & DISCARD) * sectorsize // 1024} KiB written; "
        f"{len(distinct)} distinct disks recovered and read) in {time.monotonic() - t0:.0f} s",
        "versions of each file seen whole: " + ", ".join(f"{n} {len(v)}" for n, v in versions.items()),
        f"coins: {len(coins)} reported recorded, each there at every later point; most seen {highest_coins}",
    ]
    if control_seen:
        lines.append(f"control: a file rewritten in place was found torn at {control_torn} of the {control_seen} points "
                     "it was there")
        if not control_torn:
            failures.append("the control's file, rewritten in place, was never found torn: the replay cannot see a torn write")
    return lines, failures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("base", help="the state disk image as it was before the logged boot")
    ap.add_argument("log", help="the blklogwrites log of that boot")
    ap.add_argument("--coins", default="", help="N@ENTRY,...: coin N was reported recorded when the log held ENTRY entries")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    coins = [tuple(int(x) for x in c.split("@")) for c in args.coins.split(",") if c]
    lines, failures = run(args.base, args.log, coins, args.jobs)
    for line in lines:
        print(line)
    for failure in failures[:20]:
        print("FAIL", failure)
    if len(failures) > 20:
        print(f"... {len(failures) - 20} more")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
