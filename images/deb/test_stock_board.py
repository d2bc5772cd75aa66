#!/usr/bin/env python3
"""A stock Debian 13 system into which only `apt install ./boardwalk_VERSION_amd64.deb` put
Boardwalk (scripts/deb.sh stock-board), booted on the x86 virtual board: Debian's own kernel
and initramfs, the root on a virtio disk, no test agent in the guest. Checked from outside
only, as a person would: after boot the kiosk's menu is on the screen (not a console), and
a tap on a game's tile through the virtual touchscreen opens the game.

    images/deb/test_stock_board.py WORKDIR      (WORKDIR: what stock-board wrote)
Prints its checks and `N passed, 0 failed`."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "virtual-board"))
import vboard  # noqa: E402

BOOT_TIMEOUT = float(os.environ.get("BOARDWALK_STOCK_BOOT_TIMEOUT", "420"))
work = os.path.abspath(sys.argv[1])
passed = 0
t0 = time.monotonic()


def log(msg):
    print(f"[stock-board {time.monotonic() - t0:5.0f}s] {msg}", flush=True)


def check(cond, what):
    global passed
    if not cond:
        log(f"FAIL: {what}")
        print(f"{passed} passed, 1 failed")
        raise SystemExit(1)
    passed += 1
    log(f"ok: {what}")


# The disk is the root (/dev/vda, its fstab's); the command line is Debian's default plus
# the serial console for the log. No state disk: the package keeps state in /var/lib.
vb = vboard.VirtualBoard(os.path.join(work, "run"), os.path.join(work, "vmlinuz"), os.path.join(work, "initrd"),
                         "root=/dev/vda ro console=ttyS0,115200", state_disk=os.path.join(work, "disk.img"))
vb.start()
try:
    menu = None
    deadline = time.monotonic() + BOOT_TIMEOUT
    while time.monotonic() < deadline and vb.alive():
        time.sleep(5)
        img = vb.screendump("boot")
        st = img.stats()
        if not vboard.looks_like_console(st) and st["colours"] >= 3:
            # Settled: two shots 2 s apart nearly alike (the menu, not a frame of start-up).
            time.sleep(2)
            again = vb.screendump("menu")
            if again.differs(img) < img.width * img.height // 50:
                menu = again
                break
    serial = vb.serial()
    check(menu is not None, f"the kiosk is on screen after boot ({time.monotonic() - t0:.0f} s; "
          f"Debian's kernel: {'Linux version' in serial}, systemd: {'systemd' in serial})")
    log(f"screen {menu.width}x{menu.height}, {menu.stats()['colours']} colours (run/menu.png)")
    w, h = menu.width, menu.height
    # A tap on the 2048 tile; the game opens within seconds (a loaded emulated board takes
    # longer: tapped again after 20 s, three times at most).
    changed, taps = 0, 0
    while taps < 3 and changed <= w * h // 5:
        vb.tap(int(w * 0.62), int(h * 0.55), w, h)
        taps += 1
        until = time.monotonic() + 20
        while time.monotonic() < until and changed <= w * h // 5:
            time.sleep(2)
            game = vb.screendump("after-tap")
            changed = game.differs(menu)
    check(changed > w * h // 5, f"a tap on the 2048 tile opened it ({taps} tap(s), {changed * 100 // (w * h)}% "
          "of the screen changed; run/after-tap.png)")
    vb.key("esc")
    until = time.monotonic() + 20
    while True:
        time.sleep(2)
        back = vb.screendump("back")
        if back.differs(menu) < changed // 2 or time.monotonic() > until:
            break
    check(back.differs(menu) < changed // 2, "Esc on the plugged-in keyboard goes back to the menu (run/back.png)")
    print(f"{passed} passed, 0 failed")
finally:
    vb.stop()
