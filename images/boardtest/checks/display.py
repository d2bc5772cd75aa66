"""Screen and touch: the kiosk on the screen (not a text console), and a real touchscreen's
recording replayed through uinput reaching it (the tablet's taps: sound.py)."""
import re
import time

from ..kiosk import wait_until
from ..results import require
from . import step

# The Wacom ISDv4 recording taps the centre of its panel; evemu-play replays it in real time.
EVEMU_DEVICE = "Wacom_ISDv4_E6_Finger"
EVEMU_EVENTS = "Wacom_ISDv4_E6_Finger.single-tap-center.events"


@step("screen: the kiosk, not a console")
def screen(k):
    img, st = k.on_screen("01-menu")
    return f"{img.width}x{img.height}, {st['colours']} colours in the sample, black {st['black']:.0%}"


@step("replayed touchscreen recording (evemu)")
def evemu(k):
    testdata = "/usr/share/boardwalk-test/evemu"
    rc, out = k.sh(f"test -f {testdata}/{EVEMU_DEVICE}.desc && modprobe uinput && ls /dev/uinput")
    require(rc == 0, f"no recordings or no uinput in the guest: {out.strip()}")
    # Back to the menu first (the tablet tap opened a game): escape is "back".
    k.vb.key("esc")
    time.sleep(3.0)
    before = k.shot("04-before-evemu")
    rc, out = k.sh(f"setsid evemu-device {testdata}/{EVEMU_DEVICE}.desc >/run/evemu-device.log 2>&1 & "
                   "echo $! > /run/evemu-device.pid; "
                   "for i in $(seq 50); do grep -q /dev/input /run/evemu-device.log && break; sleep 0.1; done; "
                   "cat /run/evemu-device.log")
    m = re.search(r"(/dev/input/event\d+)", out)
    require(m, f"evemu-device made no device: {out.strip()}")
    node = m.group(1)
    pid = k.pid()
    # The kiosk finds new input devices itself (hotplug): it must have the node open.
    def node_open():
        rc, out = k.sh(f"ls -l /proc/{pid}/fd 2>/dev/null | grep -c '{node}$' || true")
        return out.strip() not in ("", "0")
    opened = wait_until(node_open, 10, every=0.5)
    require(opened, f"the kiosk did not open the replayed touchscreen {node}")
    rc, out = k.sh(f"evemu-play {node} < {testdata}/{EVEMU_EVENTS}")
    require(rc == 0, f"evemu-play failed: {out.strip()}")
    time.sleep(2.0)
    after = k.shot("05-after-evemu")
    changed = after.differs(before)
    k.sh("kill $(cat /run/evemu-device.pid) 2>/dev/null; true")
    require(changed > 0, "the screen did not change after the replayed tap")
    return f"{EVEMU_EVENTS} replayed through {node}; {changed} sampled pixels changed"
