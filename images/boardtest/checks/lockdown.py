"""Lockdown: the kiosk runs as its own user behind systemd's hardening on a read-only
root; a passer-by's keyboard reaches nothing; stopping it or the operator's "Exit to
console" gives the text console back, and starting it again takes the screen back."""
import os
import re
import time

from ..kiosk import JOURNAL
from ..results import require
from ..screendump import looks_like_console
from . import step


@step("runs as user boardwalk")
def user(k):
    pid = k.pid()
    rc, out = k.sh(f"awk '/^Uid:/{{print $2}}' /proc/{pid}/status; id -u boardwalk; "
                   f"id -Gn boardwalk; awk '/^Groups:/' /proc/{pid}/status")
    lines = out.split("\n")
    require(rc == 0 and len(lines) >= 3, f"could not read the process's ids: {out}")
    require(lines[0] == lines[1] and lines[0] != "0", f"runs as uid {lines[0]}, boardwalk is {lines[1]}")
    for g in ("video", "input", "audio"):
        require(g in lines[2].split(), f"user boardwalk is not in group {g}: {lines[2]}")
    return f"uid {lines[0]} (boardwalk), groups {lines[2]}"


@step("hardening: exposure <= 1.0")
def hardening(k):
    rc, out = k.sh("systemd-analyze security boardwalk.service --no-pager 2>&1 | tail -1")
    m = re.search(r"exposure level for boardwalk.service: ([0-9.]+)", out)
    require(m, f"no rating from systemd-analyze: {out.strip()}")
    require(float(m.group(1)) <= 1.0, f"exposure {m.group(1)} > 1.0")
    return f"systemd-analyze security: {m.group(1)}"


@step("passer-by: no key chord stops, restarts or switches the kiosk")
def passer_by(k):
    """A stranger with a USB keyboard: every chord that stopped, restarted or rebooted
    the kiosk before, then F12 and a guessed PIN. Nothing may change."""
    u = k.require_active()
    rc, out = k.sh("cut -d' ' -f1 /proc/uptime; cat /sys/class/tty/tty0/active")
    up0, vt0 = float(out.split()[0]), out.split()[1]
    require(vt0 == "tty1", f"the kiosk's VT is {vt0}, not tty1")
    before = k.shot("02a-passer-by-before")
    total = len(before.rgb) // 9

    def same_screen(name):
        after, _ = k.on_screen(name)
        changed = before.differs_allowing_shift(after)
        require(changed <= total * 0.02, f"the screen changed: {changed} of {total} sampled pixels (02a vs {name})")
        return changed

    # Chords that reach nothing in the kiosk (F12 and the arrows are its own keys: below).
    chords = [("ctrl", "c"), ("ctrl", "backslash"), ("ctrl", "z"), ("ctrl", "d"), ("ctrl", "s")]
    chords += [("ctrl", "alt", "delete")] * 8          # one press, then a burst of 7 in 2 s
    chords += [("alt", "sysrq", key) for key in ("k", "e", "i", "s", "u", "b", "r", "c")]
    chords += [("alt", f"f{n}") for n in range(1, 12)]
    chords += [("ctrl", "alt", f"f{n}") for n in range(1, 12)]
    chords += [("ctrl", "alt", "backspace")]
    for c in chords:
        k.vb.chord(*c)
        time.sleep(0.15)
    time.sleep(2.0)
    changed = same_screen("02b-passer-by-chords")
    # The operator menu's key and the PIN everyone tries first (top row and keypad):
    # digits are not controls, so the pad stays empty and Enter is a wrong PIN. Esc closes it.
    for key in ("f12", "1", "2", "3", "4", "kp_1", "kp_2", "kp_3", "kp_4", "ret"):
        k.vb.chord(key)
        time.sleep(0.3)
    time.sleep(1.5)
    pad = k.shot("02c-passer-by-pin-pad")
    require(pad.differs(before) > total * 0.2, "F12 did not bring up the PIN pad (is the keyboard there?)")
    k.vb.chord("esc")
    time.sleep(2.5)
    changed = max(changed, same_screen("02d-passer-by-after-pin"))
    # Alt-Left/Right ask the kernel for the next VT (the kiosk refuses); the arrows also
    # move the menu's focus, so the screen is not compared after them.
    for c in (("alt", "left"), ("alt", "right"), ("alt", "left")):
        k.vb.chord(*c)
        time.sleep(0.3)
    time.sleep(2.0)
    chords += [("alt", "left"), ("alt", "right")]
    after_u = k.unit("MainPID", "NRestarts", "ActiveState")
    require(after_u.get("ActiveState") == "active", f"the kiosk is not active after the chords: {after_u}")
    require(after_u["MainPID"] == u["MainPID"], f"MainPID {u['MainPID']} -> {after_u['MainPID']}: the kiosk was restarted")
    require(after_u["NRestarts"] == u["NRestarts"], f"NRestarts {u['NRestarts']} -> {after_u['NRestarts']}")
    rc, out = k.sh("cut -d' ' -f1 /proc/uptime; cat /sys/class/tty/tty0/active; "
                   "cat /proc/sys/kernel/sysrq; systemctl is-enabled ctrl-alt-del.target")
    fields = out.split()
    require(float(fields[0]) > up0, "the board rebooted")
    require(fields[1] == "tty1", f"the foreground VT is {fields[1]}, not tty1")
    k.on_screen("02e-passer-by-end")
    pin = os.environ.get("BOARDWALK_VB_PIN", "")
    rc, leaks = k.sh("journalctl -b --no-pager -o cat | grep -n -F -e pbkdf2 "
                     + (f"-e {pin} " if pin else "") + "| head -3; "
                     f"{JOURNAL} | grep -n -e 1234 | head -3")
    require(not leaks.strip(), f"the journal shows the PIN or its hash: {leaks.strip()}")
    return (f"{len(chords)} chords and F12+1234: MainPID {after_u['MainPID']} and NRestarts {after_u['NRestarts']} "
            f"unchanged, VT tty1, screen {changed}/{total} sampled pixels changed, sysrq={fields[2]}, "
            f"ctrl-alt-del.target {fields[3]}, no PIN in the journal")


@step("read-only root, writable state")
def root_readonly(k):
    rc, out = k.sh("awk '$2==\"/\"{print $4}' /proc/mounts | tail -1; "
                   "awk '$2==\"/var/lib/boardwalk\"{print $3, $4}' /proc/mounts")
    lines = out.splitlines()
    require(lines and lines[0].startswith("ro"), f"the root is mounted {lines[:1]}, not read-only")
    require(len(lines) > 1 and ",rw" in "," + lines[1].split()[-1], "no writable state file system on /var/lib/boardwalk")
    return f"/ {lines[0].split(',')[0]}, /var/lib/boardwalk: {lines[1].split()[0]} rw"


@step("systemctl stop: the text console comes back")
def stop(k):
    rc, out = k.sh("systemctl stop boardwalk.service; systemctl is-active boardwalk.service; "
                   "printf '\\n\\n  BOARDWALK SYSTEM TEST: THE CONSOLE IS BACK\\n' > /dev/tty1")
    time.sleep(1.5)
    img = k.shot("08-after-stop")
    st = img.stats()
    require(looks_like_console(st) and st["grey"] > 0.0005,
            f"no text console after stop (black {st['black']:.1%}, grey {st['grey']:.2%})")
    return f"text console back (black {st['black']:.1%}, text {st['grey']:.2%})"


@step("exit to console (status 79): stays stopped, a login prompt, and back on start")
def exit_to_console(k):
    """The operator's "Exit to console" is exit status 79: the unit must stay stopped (no
    Restart=always) and put a login prompt on tty1; starting the kiosk again stops it.
    The kiosk's exit is stood in for by a runtime drop-in (the menu needs the PIN)."""
    dropin = "/run/systemd/system/boardwalk.service.d"
    rc, out = k.sh(f"mkdir -p {dropin} && printf '[Service]\\nType=simple\\nExecStart=\\n"
                   f"ExecStart=/bin/sh -c \\047exit 79\\047\\n' > {dropin}/exit79.conf && "
                   "systemctl daemon-reload && systemctl restart boardwalk.service; sleep 6; "
                   "for p in ActiveState NRestarts Result; do systemctl show -p $p --value boardwalk.service; done | tr '\\n' ' '; "
                   "systemctl is-active boardwalk-console.service; "
                   "tr '\\0' ' ' < /proc/$(systemctl show -p MainPID --value boardwalk-console.service)/cmdline")
    words = out.split()
    k.sh(f"rm -rf {dropin}; systemctl daemon-reload")
    require(words[:1] == ["inactive"], f"the kiosk's unit after exit 79: {out.strip()}")
    require("active" in words[3:4], f"no login prompt on tty1 after exit 79: {out.strip()}")
    require("tty1" in out, f"agetty is not on tty1: {out.strip()}")
    time.sleep(1.5)
    img = k.shot("09-exit-to-console")
    st = img.stats()
    require(looks_like_console(st), f"tty1 does not show the console (black {st['black']:.1%})")
    rc, back = k.sh("systemctl start boardwalk.service; sleep 2; systemctl is-active boardwalk-console.service")
    u = k.wait_active()
    require(u.get("ActiveState") == "active", f"systemctl start did not bring the kiosk back: {u}")
    require(back.strip() != "active", "the login prompt kept running beside the kiosk")
    return f"exit 79: unit {words[0]} (restarts {words[1]}), login prompt on tty1; 'systemctl start boardwalk' brought the kiosk back"
