"""Start-up: the kiosk's READY and the time to its first frame, the boot step by step, and
(arm64) a board without a clock, as a Raspberry Pi."""
import os
import time

from ..kiosk import JOURNAL, READY_MARK, READY_TIMEOUT, fields
from ..results import Failed, require
from . import step


@step("boot: READY after the first frame")
def boot(k):
    m, t_seen = k.vb.wait_serial(READY_MARK, READY_TIMEOUT)
    require(m, f"no ready marker on the serial console within {READY_TIMEOUT:.0f} s")
    require(k.vb.wait_shell(300), "the guest's command channel never answered")
    u = None
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        u = k.unit("ActiveState", "ExecMainStartTimestampMonotonic", "ActiveEnterTimestampMonotonic",
                   "NRestarts", "Result")
        if u.get("ActiveState") == "active" or int(u.get("NRestarts", "0")) >= 3:
            break
        time.sleep(0.5)
    if not u or u.get("ActiveState") != "active":
        rc, log = k.sh(f"{JOURNAL} | tail -8")
        raise Failed(f"boardwalk.service never became active ({u}); its journal ends:\n{log}")
    # The guest's clock starts with its kernel; the marker line ties it to the host's.
    offset = (t_seen - k.vb.started) - float(m.group(1))
    active = int(u["ActiveEnterTimestampMonotonic"]) / 1e6
    start = int(u["ExecMainStartTimestampMonotonic"]) / 1e6
    k.first_frame = (offset + active, active - start)
    restarts = int(u.get("NRestarts", "0"))
    require(restarts == 0, f"the kiosk needed {restarts} restart(s) to come up (see journal.txt)")
    return (f"power-on to first frame: {offset + active:.1f} s from QEMU start, "
            f"{active - start:.2f} s from the unit's start (kernel started {offset:.1f} s after QEMU)")


@step("no clock, as a Pi: no RTC, the clock starts in 1970")
def no_clock(k):
    """As a Raspberry Pi, the arm64 board has no RTC (its profile keeps the PL031's
    driver out): the kernel's clock starts in 1970, systemd advances it to its epoch, and
    the kiosk runs (the steps after this one) all the same. Returns a summary."""
    rc, out = k.sh("echo rtcs=$(ls /sys/class/rtc | wc -l); "
                   "echo kept_out=$(journalctl -b -k --no-pager -o cat | grep -c 'initcall pl031_driver_init blacklisted'); "
                   "echo advanced=$(journalctl -b --no-pager -o cat | grep -m1 'System time advanced to' | tr ' ' _); "
                   "echo now=$(date -u +%Y-%m-%dT%H:%M:%SZ)")
    f = fields(out)
    require(f.get("rtcs") == "0", f"the board has an RTC, which a Pi has not: {f}")
    require(f.get("kept_out") == "1", f"the kernel did not keep the PL031's driver out: {f}")
    require(f.get("advanced"), f"systemd did not advance a clock that started in 1970: {f}")
    return f"no RTC; {f['advanced'].replace('_', ' ')}; now {f.get('now')}"


@step("boot step by step: firmware, kernel, systemd, the kiosk's first frame")
def boot_steps(k):
    """Boot step by step (docs/PERFORMANCE.md): QEMU's start to the kernel's (firmware
    and loader: SeaBIOS and QEMU's direct kernel load here), the kernel (with the
    initramfs's unpacking) to systemd, systemd to the kiosk's exec, the exec to its
    first frame (READY), from the manager's and the unit's monotonic timestamps;
    `systemd-analyze blame` and the critical chain go to boot-steps.txt."""
    require(k.first_frame, "the boot step measured nothing")
    rc, out = k.sh("systemctl show -p InitRDTimestampMonotonic -p UserspaceTimestampMonotonic "
                   "-p FinishTimestampMonotonic; systemctl show boardwalk.service "
                   "-p ExecMainStartTimestampMonotonic -p ActiveEnterTimestampMonotonic")
    require(rc == 0, f"systemctl show failed: {out.strip()}")
    v = {name: int(x) / 1e6 for name, x in fields(out).items() if x.isdigit()}
    rc, more = k.sh("systemd-analyze; systemd-analyze blame --no-pager; "
                    "systemd-analyze critical-chain boardwalk.service --no-pager", timeout=120)
    with open(os.path.join(k.vb.workdir, "boot-steps.txt"), "w") as f:
        f.write(out + "\n" + more)
    loader = k.first_frame[0] - v["ActiveEnterTimestampMonotonic"]
    user = v.get("UserspaceTimestampMonotonic", 0.0)
    execd, ready = v["ExecMainStartTimestampMonotonic"], v["ActiveEnterTimestampMonotonic"]
    require(0 <= user <= execd <= ready, f"timestamps out of order: {v}")
    return (f"QEMU start to kernel {loader:.1f} s; kernel + initramfs to systemd {user:.2f} s; systemd to the "
            f"kiosk's exec {execd - user:.2f} s; exec to first frame {ready - execd:.2f} s; "
            f"systemd's boot finished at {v.get('FinishTimestampMonotonic', 0):.2f} s "
            f"(blame: boot-steps.txt; {more.splitlines()[0] if more.strip() else ''})")
