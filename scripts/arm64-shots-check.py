#!/usr/bin/env python3
"""Same pictures on both CPUs: the arm64 kiosk, run under qemu-user, plays the headless
scripts (data/scripts: the tour, and every game played at 800x480 and at 480x800) and its
screenshots are compared with the x86 build's.

    scripts/arm64-shots-check.py --x86 .build/release/boardwalk --arm64 out/arm64/boardwalk
                                 [--sysroot DIR] [--workdir out/arm64-shots] [--all]

The arm64 binary runs through binfmt_misc (qemu-aarch64-static) with QEMU_LD_PREFIX at the
arm64 build root (images/arm64/build.sh), so its C libraries are trixie's arm64 builds.
What can be pinned is pinned: both runs read the SAME font files (the host's: the build
root has no fonts, and qemu-user falls back to host paths for files the prefix lacks) and
the same data/. What cannot: trixie's pixman, FreeType and libpng against bookworm's on the
host, and pixman's NEON paths against its SSE2 ones.

No tolerance: every screenshot must be equal, pixel for pixel. With the fonts pinned they
are (2026-12-01: the tour's 11 shots and, with --all, all 51 of the three scripts, with
trixie's pixman 0.44 and FreeType 2.13 on arm64 against bookworm's 0.42 and 2.12 on
x86): the kiosk's drawing is integer and fixed-point work in
pixman and FreeType whose results do not depend on the SIMD path or these versions. A
difference is therefore news (a new float path, a library change); the figures printed for
each shot (share of pixels, largest channel difference) say how big it is.
Python 3 and numpy; the PASS/FAIL lines are images/boardtest's. The last line is 'N passed, N failed'.
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import zlib

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "images"))
from boardtest.results import Results  # noqa: E402


def read_png(path):
    """An 8-bit, non-interlaced RGB/RGBA PNG (what the kiosk writes) as an HxWxC array."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + size]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + size
    width, height, depth, colour, _, _, interlace = header
    channels = {2: 3, 6: 4, 0: 1, 4: 2}[colour]
    if depth != 8 or interlace:
        raise ValueError(f"{path}: only 8-bit non-interlaced PNGs")
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), dtype=np.uint8)
    stride = width * channels
    rows = raw.reshape(height, stride + 1)
    out = np.zeros((height, stride), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.int32)
    for y in range(height):
        kind, line = rows[y, 0], rows[y, 1:].astype(np.int32)
        if kind == 0:
            cur = line
        elif kind == 2:
            cur = (line + prev) & 0xFF
        else:  # Sub, Average and Paeth depend on the pixel to the left: row by row
            cur = np.zeros(stride, dtype=np.int32)
            for x in range(stride):
                a = cur[x - channels] if x >= channels else 0
                b = prev[x]
                if kind == 1:
                    p = a
                elif kind == 3:
                    p = (a + b) >> 1
                else:
                    c = prev[x - channels] if x >= channels else 0
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[x] = (line[x] + p) & 0xFF
        out[y] = cur
        prev = cur
    return out.reshape(height, width, channels)


# Each script with the screen size it is written for. The play scripts are long (every
# game played through: minutes under qemu-user), so `make test` plays the tour and --all
# adds them.
TOUR = [("tour.script", "800x480")]
PLAYS = [("play-800x480.script", "800x480"), ("play-480x800.script", "480x800")]


def play(binary, script, size, shots, env=None):
    """Plays a script from a fresh state directory; returns the screenshots' names."""
    state = shots + "-state"
    for d in (shots, state):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    cmd = [binary, "--headless", "--size", size, "--data-dir", os.path.join(REPO, "data"),
           "--state-dir", state,
           "--script", os.path.join(REPO, "data", "scripts", script), "--shots", shots]
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stdout[-2000:]}")
    return sorted(f for f in os.listdir(shots) if f.endswith(".png"))


def sysroot_path():
    """The arm64 build root (built and cached by images/lib.sh when missing)."""
    r = subprocess.run(["bash", "-c", 'set -e; source images/lib.sh; '
                        'bw_root_dir trixie arm64 images/arm64/build-packages.txt'],
                       cwd=REPO, stdout=subprocess.PIPE, text=True, check=True)
    return r.stdout.strip().splitlines()[-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--x86", default=os.path.join(REPO, ".build/release/boardwalk"))
    ap.add_argument("--arm64", default=os.path.join(REPO, "out/arm64/boardwalk"))
    ap.add_argument("--sysroot", help="the arm64 root with the C libraries (default: images/arm64's build root)")
    ap.add_argument("--workdir", default=os.path.join(REPO, "out", "arm64-shots"))
    ap.add_argument("--all", action="store_true", help="also the play scripts (both orientations)")
    args = ap.parse_args()

    sysroot = args.sysroot or sysroot_path()
    env = dict(os.environ, QEMU_LD_PREFIX=sysroot)
    results = Results()
    for script, size in TOUR + (PLAYS if args.all else []):
        name = script.rsplit(".", 1)[0]
        x86_dir, arm_dir = (os.path.join(args.workdir, name, cpu) for cpu in ("x86", "arm64"))
        x86 = play(os.path.abspath(args.x86), script, size, x86_dir)
        arm = play(os.path.abspath(args.arm64), script, size, arm_dir, env)
        if x86 != arm or not x86:
            results.record(False, name, f"the runs wrote different shots: x86 {x86}, arm64 {arm}")
        for shot in sorted(set(x86) & set(arm)):
            a = read_png(os.path.join(x86_dir, shot)).astype(np.int16)
            b = read_png(os.path.join(arm_dir, shot)).astype(np.int16)
            if a.shape != b.shape:
                results.record(False, f"{name}/{shot}", f"x86 {a.shape}, arm64 {b.shape}")
                continue
            delta = np.abs(a - b).max(axis=2)
            share = float((delta > 0).mean())
            worst = int(delta.max())
            what = "equal" if worst == 0 else f"{share:.3%} of the pixels differ, by at most {worst}"
            results.record(worst == 0, f"{name}/{shot}", what)
    print(f"shots in {args.workdir}")
    return results.summary()


if __name__ == "__main__":
    sys.exit(main())
