#!/usr/bin/env python3
"""The kiosk on the virtual board in a window (or over VNC), for a person to use:

    vboard.py run BINARY [--vnc] [--workdir out/virtual-board]

The board itself is images/boardtest/board.py (scripts/run.sh runs this)."""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from boardtest.board import MACHINES, VirtualBoard  # noqa: E402
from boardtest.images import REPO, binary_arch, build  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="boot the kiosk in a window (or VNC) until it is closed")
    run.add_argument("binary", help="an amd64 or arm64 build: it picks the board")
    run.add_argument("--vnc", action="store_true", help="serve the screen over VNC instead of a window")
    run.add_argument("--workdir", default=os.path.join(REPO, "out", "virtual-board"))
    args = ap.parse_args()

    os.makedirs(args.workdir, exist_ok=True)
    arch = binary_arch(args.binary)
    kernel, initrd, cmdline = build(os.path.abspath(args.binary), os.path.join(args.workdir, "image"), arch=arch)
    has_window = os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    backends = subprocess.run([MACHINES[arch][0], "-display", "help"], capture_output=True, text=True).stdout
    if has_window and not args.vnc and "gtk" not in backends.split():
        print("virtual board: this QEMU has no window (install qemu-system-gui); using VNC")
        has_window = None
    if args.vnc or not has_window:
        display = "vnc=127.0.0.1:0"
        print("virtual board: VNC on 127.0.0.1:5900 (e.g. `vncviewer localhost:0`); Ctrl-C stops it")
    else:
        display = "gtk"
        print("virtual board: in a window; tap the kiosk with the mouse, close the window to stop")
    vb = VirtualBoard(args.workdir, kernel, initrd, cmdline, display=display, arch=arch)
    vb.start()
    try:
        sys.exit(vb.wait())
    except KeyboardInterrupt:
        vb.stop()


if __name__ == "__main__":
    main()
