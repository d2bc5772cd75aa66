#!/usr/bin/env python3
"""The display path on the virtual board: `boardwalk display-test` under QEMU (TCG) with a
real virtio-gpu, checked against the headless render of the same scene.

    scripts/display-board-check.py [--binary .build/release/boardwalk] [--kernel-dir DIR]
                                   [--rotations 0,90] [--workdir out/display-board-check]

For each rotation: boots the virtual board on a small busybox initramfs holding the binary
and its libraries,
runs `display-test` on /dev/tty1, and checks that
  1. the screendump equals the headless render pixel for pixel (QEMU's PPM against ours),
     and a turned frame was shared with the copy-out helper thread (two vCPUs);
  2. switching to tty2 drops DRM master, and switching back takes it again and shows
     the same picture;
  3. a connector forced off and back on (sysfs status, then a synthetic change uevent,
     since virtio-gpu sends none itself) is seen through the uevent socket, re-probed
     and modeset, and the picture is the same again;
  4. after SIGTERM the screen shows the text console again.
DIR holds `vmlinuz` and `mods/lib/modules/VERSION` with virtio_gpu (the virtual board's
kernel cache, /var/cache/boardwalk/images/kernel-*-amd64-*). Needs qemu-system-x86_64, busybox (busybox-static)
and cpio. The board, its screendumps and the PASS/FAIL lines are the system test's
(images/boardtest). Python 3 standard library only. The last line is 'N passed, N failed'.
"""
import argparse
import gzip
import os
import re
import shutil
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "images"))
from boardtest.board import VirtualBoard  # noqa: E402
from boardtest.images import find_kernel_dir  # noqa: E402
from boardtest.results import Results  # noqa: E402
from boardtest.screendump import Image, looks_like_console  # noqa: E402


def build_initramfs(binary, kernel_dir, out):
    root = out + ".root"
    shutil.rmtree(root, ignore_errors=True)
    for d in ("bin", "proc", "sys", "dev", "tmp"):
        os.makedirs(os.path.join(root, d))
    busybox = shutil.which("busybox")
    if not busybox:
        sys.exit("busybox is missing (apt-get install busybox-static)")
    shutil.copy(busybox, os.path.join(root, "bin", "busybox"))
    for applet in ("sh", "mount", "sleep", "cat", "echo", "kill", "modprobe", "mkdir", "sed", "awk",
                   "grep", "chvt", "pidof", "rm", "test", "["):
        os.symlink("busybox", os.path.join(root, "bin", applet))
    shutil.copy(binary, os.path.join(root, "bin", "boardwalk"))
    ldd = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    for lib in re.findall(r"(/\S+\.so[.\d]*)", ldd):
        dest = os.path.join(root, lib.lstrip("/"))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copy(os.path.realpath(lib), dest)
    shutil.copytree(os.path.join(kernel_dir, "mods", "lib", "modules"), os.path.join(root, "lib", "modules"))
    with open(os.path.join(root, "init"), "w") as f:
        f.write(GUEST_SCRIPT)
    os.chmod(os.path.join(root, "init"), 0o755)
    files = subprocess.run(["find", "."], cwd=root, capture_output=True, check=True).stdout
    cpio = subprocess.run(["cpio", "-o", "-H", "newc"], cwd=root, input=files, capture_output=True, check=True).stdout
    with gzip.open(out, "wb", compresslevel=1) as f:
        f.write(cpio)
    shutil.rmtree(root)


# The guest runs the sequence on its own and marks each step on the serial console; the
# host screendumps at the marks (the guest waits long enough after each).
GUEST_SCRIPT = """#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
mkdir -p /sys/kernel/debug && mount -t debugfs debugfs /sys/kernel/debug
modprobe virtio_pci; modprobe virtio_gpu
while [ ! -e /dev/dri/card0 ]; do sleep 0.2; done
ROT=$(sed -n 's/.*bwrot=\\([0-9]*\\).*/\\1/p' /proc/cmdline)
say() { echo "MARK $* $(awk '$1=="boardwalk"{print "master=" $4}' /sys/kernel/debug/dri/0/clients)" > /dev/ttyS0; }
/bin/boardwalk display-test --rotation ${ROT:-0} --tty /dev/tty1 > /tmp/log 2>&1 &
PID=$!
n=0
while ! grep -q "scene complete" /tmp/log; do
  sleep 0.5; n=$((n+1))
  if [ $n -gt 600 ] || ! kill -0 $PID 2>/dev/null; then cat /tmp/log > /dev/ttyS0; say failed; sleep 600; fi
done
cat /tmp/log > /dev/ttyS0
echo "MARK threads $(cat /proc/$PID/task/*/comm | tr '\\n' ' ')" > /dev/ttyS0
say scene; sleep 6
chvt 2; sleep 4; say vt2; sleep 6
chvt 1; sleep 6; say vt1; sleep 6
# virtio-gpu sends no uevent for a forced status: a synthetic change asks for the re-probe.
for s in /sys/class/drm/card0-*/status; do echo off > $s; done; echo change > /sys/class/drm/card0/uevent; sleep 5
say unplugged log=$(grep -c "waiting for it" /tmp/log)
for s in /sys/class/drm/card0-*/status; do echo detect > $s; done; echo change > /sys/class/drm/card0/uevent; sleep 6
say replugged log=$(grep -c "re-probed" /tmp/log); sleep 6
kill -TERM $PID; sleep 3
say stopped running=$(pidof boardwalk); sleep 600
"""


def boot(workdir, kernel_dir, initrd, rotation):
    """The virtual board on the busybox initramfs (no state disk, no agent), its guest
    script told the rotation on the command line."""
    vb = VirtualBoard(workdir, os.path.join(kernel_dir, "vmlinuz"), initrd,
                      f"console=ttyS0 console=tty0 rdinit=/init bwrot={rotation}", memory_mb=1024, state_disk=None)
    vb.start()
    return vb


def wait_mark(vb, name, timeout):
    """What follows `MARK name` on the serial console up to the line's end, or None (a failed
    guest script, QEMU gone, or the timeout). The line must be whole: the log is read while
    QEMU writes it, and a half-written line once read as "replugged l"."""
    try:
        m, _ = vb.wait_serial(r"MARK (?:" + name + r"([^\r\n]*)|failed[^\r\n]*)\r?\n", timeout)
    except RuntimeError:  # QEMU exited
        return None
    return m.group(1).strip() if m and m.group(1) is not None else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(REPO, ".build", "release", "boardwalk"))
    ap.add_argument("--kernel-dir", default=None)
    ap.add_argument("--rotations", default="0,90")
    ap.add_argument("--workdir", default=os.path.join(REPO, "out", "display-board-check"))
    args = ap.parse_args()
    kernel_dir = args.kernel_dir or find_kernel_dir()
    if not kernel_dir:
        sys.exit("no kernel dir (vmlinuz + mods/): build the virtual board first or pass --kernel-dir")
    os.makedirs(args.workdir, exist_ok=True)
    initrd = os.path.join(args.workdir, "initrd.gz")
    build_initramfs(os.path.abspath(args.binary), kernel_dir, initrd)
    results = Results()
    result = results.record

    for rotation in [int(r) for r in args.rotations.split(",")]:
        wd = os.path.join(args.workdir, f"rotation-{rotation}")
        os.makedirs(wd, exist_ok=True)
        reference_path = os.path.join(wd, "headless.ppm")
        subprocess.run([args.binary, "display-test", "--headless", reference_path, "--size", "1280x800",
                        "--rotation", str(rotation)], check=True, stdout=subprocess.DEVNULL)
        reference = Image(reference_path)
        vb = boot(wd, kernel_dir, initrd, rotation)
        try:
            mark = wait_mark(vb, "scene", 300)
            if mark is None:
                result(False, f"rotation {rotation}: scene shown", "no scene; see " + vb.serial_path)
                continue
            # Two vCPUs: a turned frame is streamed out (the guest's cache is too small to
            # keep it) and shared with the copy-out helper thread, started at the first one.
            threads = wait_mark(vb, "threads", 5) or ""
            if rotation % 180:
                result("bw-copy-out" in threads.split(), f"rotation {rotation}: the turned frame shared with the copy-out helper",
                       f"threads: {threads}")
            count, first = vb.screendump("scene").exact_differences(reference)
            result(count == 0, f"rotation {rotation}: screendump equals the headless render",
                   f"{count} pixels differ, first at {first}" if count else "1280x800, 0 pixels differ")
            mark = wait_mark(vb, "vt2", 60)
            result(mark is not None and "master=n" in mark, f"rotation {rotation}: VT switch away drops master",
                   mark or "no mark")
            mark = wait_mark(vb, "vt1", 60)
            count, _ = vb.screendump("vt1").exact_differences(reference)
            result(mark is not None and "master=y" in mark and count == 0,
                   f"rotation {rotation}: VT switch back takes master and redraws", f"{mark}, {count} pixels differ")
            unplugged = wait_mark(vb, "unplugged", 60) or ""
            replugged = wait_mark(vb, "replugged", 60) or ""
            count, _ = vb.screendump("replugged").exact_differences(reference)
            result("log=0" not in unplugged + replugged and "log=" in unplugged and "log=" in replugged and count == 0,
                   f"rotation {rotation}: hotplug off/on is seen, re-probed and shown again",
                   f"unplugged {unplugged}, replugged {replugged}, {count} pixels differ")
            mark = wait_mark(vb, "stopped", 60)
            console = looks_like_console(vb.screendump("stopped").stats())
            result(mark is not None and "running=" in mark and mark.endswith("running=") and console,
                   f"rotation {rotation}: after SIGTERM the text console is back", mark or "no mark")
        finally:
            vb.stop()
    sys.exit(results.summary())


if __name__ == "__main__":
    main()
