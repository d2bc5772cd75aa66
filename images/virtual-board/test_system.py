#!/usr/bin/env python3
"""The system test: the kiosk's image on the virtual board, checked the way a person would.

    images/virtual-board/test_system.py [--binary .build/release/boardwalk] [--workdir out/system-test] [--only STEPS]

Builds the image for the binary's CPU (x86_64, or arm64 on QEMU's virt machine; cached:
only the binary's overlay is packed on a warm run), boots it under QEMU (TCG), and checks: READY and the time to the first frame, the screen shows
the kiosk (not a text console), the unit's user and hardening, a tap through the virtio
tablet, the sound recorded from the sound card (AC97; USB audio on arm64), the idle menu's CPU per thread, a real
touchscreen recording replayed through uinput, the node exporter scraped from the host (the
kiosk's metrics: version, a coin and a play), a zombie beaten (score on screen, hit sound
in the recording), recovery from SIGSEGV and from a frozen loop (watchdog), and the text
console coming back after `systemctl stop`. Screenshots, the serial log, the wav and the
guest journal are left in the workdir. The last line is 'N passed, N failed'.
Python 3 and numpy (the screen and sound analysis).
"""
import argparse
import difflib
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import crashpoints  # noqa: E402
import vboard  # noqa: E402

READY_TIMEOUT = float(os.environ.get("BOARDWALK_VB_READY_TIMEOUT", "600"))
# A broken trial boot ends when the disk board's slot check gives up on it: after 3 kiosk
# starts, or 900 s of uptime at most (build-disk.sh's BW_SLOT_CHECK_LIMIT); then a reboot.
TRIAL_WAIT = float(os.environ.get("BOARDWALK_VB_TRIAL_WAIT", "1200"))
# The Beat Zombies best the A/B board's state starts with (kept across update and rollback).
AB_HIGH_SCORE = 4321
# The limit for a crashed kiosk to be back on screen. Emulation is many times
# slower than a board, and by how much depends on the host (CI's machine took 2.99 s from
# the kiosk's exec to READY at boot where this one takes 1.8 s, and 5.3 s for a restart
# that takes 2.1 s here): the limit is the larger of this and RESTART_STARTS of the board's
# own start at boot (exec to READY, measured in the same run). A restart is a stop, 200 ms
# and a start; what the check is for (a restart that waits: the watchdog's 10 s, the
# start back-off, a RestartSec in seconds) fails either way. The figure is printed.
# Under TCG the arm64 board's restart took 1.8-2.8 of its own start at boot (the crashed
# process's end 1.7-1.9 s of it; its start at boot 2.1-3.4 s); the x86 board's, 0.9-1.8.
RESTART_LIMIT = float(os.environ.get("BOARDWALK_VB_RESTART_LIMIT", "5"))
RESTART_STARTS = 3.5
# The Wacom ISDv4 recording taps the centre of its panel; evemu-play replays it in real time.
EVEMU_DEVICE = "Wacom_ISDv4_E6_Finger"
EVEMU_EVENTS = "Wacom_ISDv4_E6_Finger.single-tap-center.events"


class Failed(Exception):
    pass


def check(cond, message):
    if not cond:
        raise Failed(message)


class SystemTest:
    def __init__(self, vb, binary, workdir, host_binary=None):
        self.vb = vb
        self.binary = binary
        # Runs on this machine (sound-export): the kiosk built for its CPU.
        self.host_binary = host_binary or binary
        self.sounds_dir = os.path.join(workdir, "sounds")
        self.results = []
        self.size = (1280, 800)
        # (QEMU start to READY, the kiosk's exec to READY) at boot, once measured.
        self.first_frame = None
        # (coins, entries in the state disk's write log) when the kiosk had reported each
        # coin recorded: crashpoints.py checks the coin is there at every later crash point.
        self.coins_recorded = []

    def note_coin(self, coins):
        if getattr(self.vb, "state_log", None):
            self.coins_recorded.append((coins, crashpoints.entry_count(self.vb.state_log)))

    def run(self, name, fn):
        t0 = time.monotonic()
        try:
            detail = fn() or ""
            ok = True
        except Failed as e:
            ok, detail = False, str(e)
        except Exception as e:  # a broken rig is a failure, reported, not a crash
            ok, detail = False, f"{type(e).__name__}: {e}"
            traceback.print_exc(file=sys.stderr)
        self.results.append(ok)
        print(f"{'PASS' if ok else 'FAIL'} {name} ({time.monotonic() - t0:.1f} s){': ' + detail if detail else ''}",
              flush=True)
        return ok

    # --- helpers ---
    def sh(self, cmd, timeout=60):
        return self.vb.sh(cmd, timeout=timeout)

    def unit(self, *props):
        rc, out = self.sh("systemctl show boardwalk.service " + " ".join("-p " + p for p in props))
        return dict(l.split("=", 1) for l in out.splitlines() if "=" in l)

    def uptime(self):
        return float(self.sh("cut -d' ' -f1 /proc/uptime")[1].strip())

    def wait_restarted(self, old_pid, timeout, quiet=4.0):
        """Waits for a new main process that has reported READY; returns its unit properties.
        The guest has one CPU: polling it at once would slow the restart being timed (the
        time itself comes from systemd's timestamps), so the first `quiet` seconds are left alone."""
        deadline = time.monotonic() + timeout
        time.sleep(quiet)
        while time.monotonic() < deadline:
            u = self.unit("MainPID", "ActiveState", "SubState", "ActiveEnterTimestampMonotonic",
                          "NRestarts", "Result")
            if u.get("ActiveState") == "active" and u.get("MainPID") not in ("0", old_pid):
                return u
            time.sleep(1.0)
        return None

    def shot(self, name):
        img = self.vb.screendump(name)
        self.size = (img.width, img.height)
        return img

    def kiosk_on_screen(self, name):
        img = self.shot(name)
        st = img.stats()
        check(not vboard.looks_like_console(st),
              f"{name}: looks like a text console (black {st['black']:.0%}, grey {st['grey']:.0%})")
        check(st["colours"] >= 3, f"{name}: a blank screen ({st['colours']} colours)")
        return img, st

    # --- the checks ---
    def boot(self):
        m, t_seen = self.vb.wait_serial(r"BW-MARK ready uptime=([0-9.]+)", READY_TIMEOUT)
        check(m, f"no ready marker on the serial console within {READY_TIMEOUT:.0f} s")
        check(self.vb.wait_shell(300), "the guest's command channel never answered")
        u = None
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            u = self.unit("ActiveState", "ExecMainStartTimestampMonotonic", "ActiveEnterTimestampMonotonic",
                          "NRestarts", "Result")
            if u.get("ActiveState") == "active" or int(u.get("NRestarts", "0")) >= 3:
                break
            time.sleep(0.5)
        if not u or u.get("ActiveState") != "active":
            rc, log = self.sh("journalctl -b -u boardwalk.service --no-pager -o cat | tail -8")
            raise Failed(f"boardwalk.service never became active ({u}); its journal ends:\n{log}")
        # The guest's clock starts with its kernel; the marker line ties it to the host's.
        offset = (t_seen - self.vb.started) - float(m.group(1))
        active = int(u["ActiveEnterTimestampMonotonic"]) / 1e6
        start = int(u["ExecMainStartTimestampMonotonic"]) / 1e6
        self.first_frame = (offset + active, active - start)
        restarts = int(u.get("NRestarts", "0"))
        check(restarts == 0, f"the kiosk needed {restarts} restart(s) to come up (see journal.txt)")
        return (f"power-on to first frame: {offset + active:.1f} s from QEMU start, "
                f"{active - start:.2f} s from the unit's start (kernel started {offset:.1f} s after QEMU)")

    def no_clock(self):
        """As a Raspberry Pi, the arm64 board has no RTC (its profile keeps the PL031's
        driver out): the kernel's clock starts in 1970, systemd advances it to its epoch, and
        the kiosk runs (the steps after this one) all the same. Returns a summary."""
        rc, out = self.sh("echo rtcs=$(ls /sys/class/rtc | wc -l); "
                          "echo kept_out=$(journalctl -b -k --no-pager -o cat | grep -c 'initcall pl031_driver_init blacklisted'); "
                          "echo advanced=$(journalctl -b --no-pager -o cat | grep -m1 'System time advanced to' | tr ' ' _); "
                          "echo now=$(date -u +%Y-%m-%dT%H:%M:%SZ)")
        f = dict(l.split("=", 1) for l in out.splitlines() if "=" in l)
        check(f.get("rtcs") == "0", f"the board has an RTC, which a Pi has not: {f}")
        check(f.get("kept_out") == "1", f"the kernel did not keep the PL031's driver out: {f}")
        check(f.get("advanced"), f"systemd did not advance a clock that started in 1970: {f}")
        return f"no RTC; {f['advanced'].replace('_', ' ')}; now {f.get('now')}"

    def boot_steps(self):
        """Boot step by step (docs/PERFORMANCE.md): QEMU's start to the kernel's (firmware
        and loader: SeaBIOS and QEMU's direct kernel load here), the kernel (with the
        initramfs's unpacking) to systemd, systemd to the kiosk's exec, the exec to its
        first frame (READY), from the manager's and the unit's monotonic timestamps;
        `systemd-analyze blame` and the critical chain go to boot-steps.txt."""
        check(self.first_frame, "the boot step measured nothing")
        rc, out = self.sh("systemctl show -p InitRDTimestampMonotonic -p UserspaceTimestampMonotonic "
                          "-p FinishTimestampMonotonic; systemctl show boardwalk.service "
                          "-p ExecMainStartTimestampMonotonic -p ActiveEnterTimestampMonotonic")
        check(rc == 0, f"systemctl show failed: {out.strip()}")
        v = {k: int(x) / 1e6 for k, x in (l.split("=", 1) for l in out.splitlines() if "=" in l) if x.isdigit()}
        rc, more = self.sh("systemd-analyze; systemd-analyze blame --no-pager | head -15; "
                           "systemd-analyze critical-chain boardwalk.service --no-pager", timeout=120)
        with open(os.path.join(self.vb.workdir, "boot-steps.txt"), "w") as f:
            f.write(out + "\n" + more)
        loader = self.first_frame[0] - v["ActiveEnterTimestampMonotonic"]
        user = v.get("UserspaceTimestampMonotonic", 0.0)
        execd, ready = v["ExecMainStartTimestampMonotonic"], v["ActiveEnterTimestampMonotonic"]
        check(0 <= user <= execd <= ready, f"timestamps out of order: {v}")
        return (f"QEMU start to kernel {loader:.1f} s; kernel + initramfs to systemd {user:.2f} s; systemd to the "
                f"kiosk's exec {execd - user:.2f} s; exec to first frame {ready - execd:.2f} s; "
                f"systemd's boot finished at {v.get('FinishTimestampMonotonic', 0):.2f} s "
                f"(blame: boot-steps.txt; {more.splitlines()[0] if more.strip() else ''})")

    def screen(self):
        img, st = self.kiosk_on_screen("01-menu")
        self.menu = img
        return f"{img.width}x{img.height}, {st['colours']} colours in the sample, black {st['black']:.0%}"

    def user(self):
        pid = self.unit("MainPID")["MainPID"]
        rc, out = self.sh(f"awk '/^Uid:/{{print $2}}' /proc/{pid}/status; id -u boardwalk; "
                          f"id -Gn boardwalk; awk '/^Groups:/' /proc/{pid}/status")
        lines = out.split("\n")
        check(rc == 0 and len(lines) >= 3, f"could not read the process's ids: {out}")
        check(lines[0] == lines[1] and lines[0] != "0", f"runs as uid {lines[0]}, boardwalk is {lines[1]}")
        for g in ("video", "input", "audio"):
            check(g in lines[2].split(), f"user boardwalk is not in group {g}: {lines[2]}")
        return f"uid {lines[0]} (boardwalk), groups {lines[2]}"

    def hardening(self):
        rc, out = self.sh("systemd-analyze security boardwalk.service --no-pager 2>&1 | tail -1")
        m = re.search(r"exposure level for boardwalk.service: ([0-9.]+)", out)
        check(m, f"no rating from systemd-analyze: {out.strip()}")
        check(float(m.group(1)) <= 1.0, f"exposure {m.group(1)} > 1.0")
        return f"systemd-analyze security: {m.group(1)}"

    def passer_by(self):
        """A stranger with a USB keyboard: every chord that stopped, restarted or rebooted
        the kiosk before, then F12 and a guessed PIN. Nothing may change."""
        u = self.wait_active()
        check(u.get("ActiveState") == "active", f"the kiosk is not running before the test: {u}")
        rc, out = self.sh("cut -d' ' -f1 /proc/uptime; cat /sys/class/tty/tty0/active")
        up0, vt0 = float(out.split()[0]), out.split()[1]
        check(vt0 == "tty1", f"the kiosk's VT is {vt0}, not tty1")
        before = self.shot("02a-passer-by-before")
        total = len(before.rgb) // 9

        def same_screen(name):
            after, _ = self.kiosk_on_screen(name)
            changed = before.differs_allowing_shift(after)
            check(changed <= total * 0.02, f"the screen changed: {changed} of {total} sampled pixels (02a vs {name})")
            return changed

        # Chords that reach nothing in the kiosk (F12 and the arrows are its own keys: below).
        chords = [("ctrl", "c"), ("ctrl", "backslash"), ("ctrl", "z"), ("ctrl", "d"), ("ctrl", "s")]
        chords += [("ctrl", "alt", "delete")] * 8          # one press, then a burst of 7 in 2 s
        chords += [("alt", "sysrq", k) for k in ("k", "e", "i", "s", "u", "b", "r", "c")]
        chords += [("alt", f"f{n}") for n in range(1, 12)]
        chords += [("ctrl", "alt", f"f{n}") for n in range(1, 12)]
        chords += [("ctrl", "alt", "backspace")]
        for c in chords:
            self.vb.chord(*c)
            time.sleep(0.15)
        time.sleep(2.0)
        changed = same_screen("02b-passer-by-chords")
        # The operator menu's key and the PIN everyone tries first (top row and keypad):
        # digits are not controls, so the pad stays empty and Enter is a wrong PIN. Esc closes it.
        for key in ("f12", "1", "2", "3", "4", "kp_1", "kp_2", "kp_3", "kp_4", "ret"):
            self.vb.chord(key)
            time.sleep(0.3)
        time.sleep(1.5)
        pad = self.shot("02c-passer-by-pin-pad")
        check(pad.differs(before) > total * 0.2, "F12 did not bring up the PIN pad (is the keyboard there?)")
        self.vb.chord("esc")
        time.sleep(2.5)
        changed = max(changed, same_screen("02d-passer-by-after-pin"))
        # Alt-Left/Right ask the kernel for the next VT (the kiosk refuses); the arrows also
        # move the menu's focus, so the screen is not compared after them.
        for c in (("alt", "left"), ("alt", "right"), ("alt", "left")):
            self.vb.chord(*c)
            time.sleep(0.3)
        time.sleep(2.0)
        chords += [("alt", "left"), ("alt", "right")]
        after_u = self.unit("MainPID", "NRestarts", "ActiveState")
        check(after_u.get("ActiveState") == "active", f"the kiosk is not active after the chords: {after_u}")
        check(after_u["MainPID"] == u["MainPID"], f"MainPID {u['MainPID']} -> {after_u['MainPID']}: the kiosk was restarted")
        check(after_u["NRestarts"] == u["NRestarts"], f"NRestarts {u['NRestarts']} -> {after_u['NRestarts']}")
        rc, out = self.sh("cut -d' ' -f1 /proc/uptime; cat /sys/class/tty/tty0/active; "
                          "cat /proc/sys/kernel/sysrq; systemctl is-enabled ctrl-alt-del.target")
        fields = out.split()
        check(float(fields[0]) > up0, "the board rebooted")
        check(fields[1] == "tty1", f"the foreground VT is {fields[1]}, not tty1")
        self.kiosk_on_screen("02e-passer-by-end")
        pin = os.environ.get("BOARDWALK_VB_PIN", "")
        rc, leaks = self.sh("journalctl -b --no-pager -o cat | grep -n -F -e pbkdf2 "
                            + (f"-e {pin} " if pin else "") + "| head -3; "
                            "journalctl -b -u boardwalk.service --no-pager -o cat | grep -n -e 1234 | head -3")
        check(not leaks.strip(), f"the journal shows the PIN or its hash: {leaks.strip()}")
        return (f"{len(chords)} chords and F12+1234: MainPID {after_u['MainPID']} and NRestarts {after_u['NRestarts']} "
                f"unchanged, VT tty1, screen {changed}/{total} sampled pixels changed, sysrq={fields[2]}, "
                f"ctrl-alt-del.target {fields[3]}, no PIN in the journal")

    def tap_and_sound(self):
        before = self.shot("02-before-tap")
        wav_before = vboard.wav_data_bytes(self.vb.wav_path)
        w, h = self.size
        # The second of the menu's four tiles (a tap at the very centre falls between tiles).
        x, y = int(w * 0.375), int(h * 0.55)
        self.vb.tap(x, y, w, h)
        time.sleep(2.0)
        after = self.shot("03-after-tap")
        changed = after.differs(before)
        # The sound of the tap: give the guest a moment to play it, then read what QEMU wrote.
        time.sleep(1.0)
        peak, nbytes = vboard.wav_peak(self.vb.wav_path, wav_before)
        problems = []
        if changed == 0:
            problems.append(f"the screen did not change after a tap at {x},{y}")
        if peak <= 0.05:
            problems.append(f"silence after the tap: peak {peak:.3f} in {nbytes} bytes of new audio")
        check(not problems, "; ".join(problems))
        return f"tap at {x},{y}: {changed} sampled pixels changed; sound peak {peak:.2f} of full scale"

    def evemu(self):
        testdata = "/usr/share/boardwalk-test/evemu"
        rc, out = self.sh(f"test -f {testdata}/{EVEMU_DEVICE}.desc && modprobe uinput && ls /dev/uinput")
        check(rc == 0, f"no recordings or no uinput in the guest: {out.strip()}")
        # Back to the menu first (the tablet tap opened a game): escape is "back".
        self.vb.key("esc")
        time.sleep(3.0)
        before = self.shot("04-before-evemu")
        rc, out = self.sh(f"setsid evemu-device {testdata}/{EVEMU_DEVICE}.desc >/run/evemu-device.log 2>&1 & "
                          "echo $! > /run/evemu-device.pid; "
                          "for i in $(seq 50); do grep -q /dev/input /run/evemu-device.log && break; sleep 0.1; done; "
                          "cat /run/evemu-device.log")
        m = re.search(r"(/dev/input/event\d+)", out)
        check(m, f"evemu-device made no device: {out.strip()}")
        node = m.group(1)
        pid = self.unit("MainPID")["MainPID"]
        # The kiosk finds new input devices itself (hotplug): it must have the node open.
        deadline = time.monotonic() + 10
        opened = False
        while time.monotonic() < deadline and not opened:
            rc, out = self.sh(f"ls -l /proc/{pid}/fd 2>/dev/null | grep -c '{node}$' || true")
            opened = out.strip() not in ("", "0")
            if not opened:
                time.sleep(0.5)
        check(opened, f"the kiosk did not open the replayed touchscreen {node}")
        rc, out = self.sh(f"evemu-play {node} < {testdata}/{EVEMU_EVENTS}")
        check(rc == 0, f"evemu-play failed: {out.strip()}")
        time.sleep(2.0)
        after = self.shot("05-after-evemu")
        changed = after.differs(before)
        self.sh("kill $(cat /run/evemu-device.pid) 2>/dev/null; true")
        check(changed > 0, "the screen did not change after the replayed tap")
        return f"{EVEMU_EVENTS} replayed through {node}; {changed} sampled pixels changed"

    def beat_a_zombie(self):
        """Beat Zombies on the real screen: find a walking zombie in two screendumps, tap it
        through the tablet, and see the score change on screen and the hit sound (the
        built-in zombieHit, exported by `boardwalk sound-export`) in the recorded wav."""
        rc = subprocess.run([self.host_binary, "sound-export", self.sounds_dir, "zombieHit"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        check(rc.returncode == 0, f"boardwalk sound-export failed: {rc.stderr.strip()}")
        hit_wav = os.path.join(self.sounds_dir, "zombieHit.wav")
        self.vb.key("esc")  # home, from whatever the last step opened
        time.sleep(3.0)
        w, h = self.size
        self.vb.tap(int(w * 0.1375), int(h * 0.55), w, h)  # the first tile: Beat Zombies
        time.sleep(12.0)  # zombies walk on from beyond the right edge
        lawn = (int(w * 0.14), int(h * 0.14), int(w * 0.94), h)
        score = (int(w * 0.09), 0, int(w * 0.45), int(h * 0.12))
        attempts = []
        for attempt in range(1, 6):
            a = self.shot(f"09-zombies-{attempt}a")
            time.sleep(0.4)
            b = self.shot(f"09-zombies-{attempt}b")
            # A zombie: the densest motion on the lawn, away from the right edge where
            # they are still walking on.
            spot, moved = a.busiest_motion(b, lawn)
            if spot is None or moved < 600:
                attempts.append(f"{attempt}: nothing walking on the lawn ({moved} pixels moved at most)")
                time.sleep(2.0)
                continue
            # They walk left (~30 px/s here): aim a little ahead.
            x, y = spot[0] - 10, spot[1]
            wav_at_tap = vboard.wav_data_bytes(self.vb.wav_path)
            self.vb.tap(x, y, w, h)
            time.sleep(2.5)
            after = self.shot(f"10-after-zombie-tap-{attempt}")
            changed = b.region_differs(after, score)
            # The sound: from 0.5 s before the tap (host and guest clocks are loose) to now,
            # against the 2.5 s before that, when only the music played. One read of the
            # wav; QEMU writes it at 44.1 kHz, 16-bit stereo (4 bytes a frame).
            start = max(0, wav_at_tap - 3 * 44100 * 4)
            rate, recent = vboard.wav_channels(self.vb.wav_path, start)
            split = max(0, (wav_at_tap - start) // 4 - rate // 2)
            before, heard = recent[:split], recent[split:]
            found, offset = vboard.find_sound(heard, rate, hit_wav)
            baseline, _ = vboard.find_sound(before, rate, hit_wav)
            level = float(abs(heard).max()) if len(heard) else 0.0
            attempts.append(f"{attempt}: tap at {x},{y} ({moved} pixels moved around it): {changed} score pixels changed; "
                            f"zombieHit correlation {found:.2f} at {offset - 0.5:+.2f} s from the tap "
                            f"(music only before: {baseline:.2f}; peak {level:.2f})")
            if changed > 0:
                check(found >= 0.3 and found >= 2 * baseline,
                      "the score changed but the hit sound is not in the wav: " + attempts[-1])
                return attempts[-1] + (f" (after {attempt - 1} miss(es))" if attempt > 1 else "")
        raise Failed("no tap raised the score: " + "; ".join(attempts))

    def coin(self):
        """A coin: KEY_5 on the coin mech's own device (the profile's `[coin] device`), sent
        through QMP. The kiosk counts it in the state directory's counters, written before it
        is logged. Then a stranger hot-plugs a keyboard and types 5 (and the passer-by's
        keyboard too): no coin. That a coin survives an immediate power-off is
        `coin_power_cut`'s."""
        def coins():
            rc, out = self.sh("sed -n 's/^coins=//p' /var/lib/boardwalk/counters")
            return int(out.strip() or 0) if rc == 0 else 0
        before = coins()
        self.vb.coin()
        deadline = time.monotonic() + 30
        while coins() < before + 1 and time.monotonic() < deadline:
            time.sleep(1.0)
        after = coins()
        check(after == before + 1, f"coins in the state's counters went {before} -> {after} after one coin from the mech")
        line = self.wait_journal(f"coin: {after} since", 30)
        check(line is not None, "the journal has no 'coin:' line")
        self.note_coin(after)
        def keyboards():
            rc, out = self.sh("journalctl -b -u boardwalk.service --no-pager -o cat | grep -c '\": keyboard$'")
            return int(out.strip() or 0)
        known = keyboards()
        self.vb.plug_keyboard("stranger")
        deadline = time.monotonic() + 60
        while keyboards() <= known and time.monotonic() < deadline:
            time.sleep(2.0)
        check(keyboards() > known, "the kiosk never opened the hot-plugged keyboard")
        for _ in range(3):
            self.vb.chord("5")
            time.sleep(0.3)
        time.sleep(3.0)
        stranger = coins()
        check(stranger == after, f"a hot-plugged keyboard typing 5 moved the coins {after} -> {stranger}")
        return f"coins {before} -> {after} on disk; journal: {line}; a hot-plugged keyboard typing 5 three times: still {stranger}"

    def state_unwritable(self):
        """The state partition full (ENOSPC), then remounted read-only (as ext4 does after
        an error): a coin is kept in memory and the journal says the partition cannot be
        written; once it takes writes again (the filler removed, remounted read-write) the
        next coin writes both, with the same kiosk process (no restart)."""
        def coins_on_disk():
            rc, out = self.sh("sed -n 's/^coins=//p' /var/lib/boardwalk/counters")
            return int(out.strip() or 0) if rc == 0 else -1

        def journal_count(pattern):
            rc, out = self.sh(f"journalctl -b -u boardwalk.service --no-pager -o cat | grep -c -e '{pattern}'")
            return int(out.strip() or 0)

        def wait_for(condition, timeout=45):
            deadline = time.monotonic() + timeout
            while not condition() and time.monotonic() < deadline:
                time.sleep(1.0)
            return condition()

        pid = self.unit("MainPID")["MainPID"]
        details = []
        for fault, breaks, mends in (
                ("full", "dd if=/dev/zero of=/var/lib/boardwalk/filler bs=64k 2>/dev/null; sync; "
                         "df -k --output=avail /var/lib/boardwalk | tail -1",
                 "rm -f /var/lib/boardwalk/filler; sync"),
                ("read-only", "mount -o remount,ro /var/lib/boardwalk && findmnt -no OPTIONS /var/lib/boardwalk",
                 "mount -o remount,rw /var/lib/boardwalk")):
            before = coins_on_disk()
            errors, mended = journal_count("state: cannot write"), journal_count("takes writes again")
            rc, broken = self.sh(breaks, timeout=120)
            check(rc == 0, f"{fault}: could not break the partition: {broken.strip()}")
            self.vb.coin()
            check(wait_for(lambda: journal_count("state: cannot write") > errors),
                  f"{fault}: a coin on an unwritable partition, but the journal never said it cannot write")
            check(journal_count("in memory: the state partition cannot be written") > 0,
                  f"{fault}: the coin's journal line does not say it is kept in memory")
            check(coins_on_disk() == before, f"{fault}: the counters on disk changed ({before} -> {coins_on_disk()})")
            rc, out = self.sh(mends)
            check(rc == 0, f"{fault}: could not mend the partition: {out.strip()}")
            self.vb.coin()
            check(wait_for(lambda: coins_on_disk() == before + 2),
                  f"{fault}: after mending, the counters say {coins_on_disk()} coins, not {before + 2}")
            self.note_coin(before + 2)
            check(journal_count("takes writes again") > mended, f"{fault}: the journal never said the writes came back")
            details.append(f"{fault} ({broken.strip()}): coins {before} -> {before + 2} once mended")
        check(self.unit("MainPID")["MainPID"] == pid, "the kiosk restarted on the way")
        return "; ".join(details) + "; same process"

    def metrics(self):
        """The fleet's view: the node exporter on the board, scraped from this machine through
        QEMU's user network (the profile's [metrics] exporter_port, forwarded to a host port),
        serves the kiosk's textfile metrics: the image's version and slot, and a coin and a
        play counted after this check drops one and opens a game. Only the exporter listens;
        the kiosk has no network at all (PrivateNetwork=yes)."""
        check(self.vb.exporter_port, "the board profile names no [metrics] exporter_port")

        def scrape():
            text = self.vb.scrape()
            # The last scrape stays in the workdir, for a person to read.
            with open(os.path.join(self.vb.workdir, "metrics.txt"), "w") as f:
                f.write(text)
            return parse_metrics(text)

        deadline = time.monotonic() + 120
        series, last_error = None, None
        while time.monotonic() < deadline:
            try:
                series = scrape()
                if any(k[0] == "boardwalk_build_info" for k in series):
                    break
            except OSError as e:
                last_error = e
            time.sleep(3.0)
        check(series is not None, f"no answer from the exporter on 127.0.0.1:{self.vb.exporter_host_port} ({last_error})")
        check(any(k[0] == "boardwalk_build_info" for k in series),
              f"the exporter answers but has no boardwalk_* series (textfile errors: {series.get(('node_textfile_scrape_error', ()))})")
        check(series.get(("node_textfile_scrape_error", ())) == 0, "the textfile collector reports an error")
        rc, out = self.sh(". /etc/os-release; echo \"${IMAGE_VERSION:-unknown}\"; "
                          "tr ' ' '\\n' < /proc/cmdline | sed -n 's/^rauc\\.slot=//p' | tail -1")
        lines = out.split("\n")
        version, slot = lines[0].strip() or "unknown", (lines[1].strip() if len(lines) > 1 else "") or "unknown"
        info = [dict(k[1]) for k in series if k[0] == "boardwalk_build_info"]
        check(info[0].get("version") == version and info[0].get("slot") == slot,
              f"build info {info[0]}, but the guest says version {version}, slot {slot}")

        def total(name):
            return sum(v for k, v in series.items() if k[0] == name)
        plays0, coins0 = total("boardwalk_plays_total"), total("boardwalk_coins_total")
        # A coin, then a game opened with a tap on the menu's second tile, and back.
        self.vb.coin()
        w, h = self.size
        self.vb.tap(int(w * 0.375), int(h * 0.55), w, h)
        time.sleep(4.0)
        self.vb.chord("esc")
        # The kiosk writes once a minute; the exporter reads the file on each scrape.
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            time.sleep(10.0)
            series = scrape()
            if total("boardwalk_plays_total") > plays0 and total("boardwalk_coins_total") > coins0:
                break
        plays, coins = total("boardwalk_plays_total"), total("boardwalk_coins_total")
        check(plays > plays0 and coins > coins0, f"plays {plays0:g} -> {plays:g}, coins {coins0:g} -> {coins:g} within 3 minutes")
        played = sorted(dict(k[1])["game"] for k, v in series.items() if k[0] == "boardwalk_plays_total" and v > 0)
        for name in ("boardwalk_starts_total", "boardwalk_crashes_total", "boardwalk_watchdog_restarts_total",
                     "boardwalk_uptime_seconds_total", "boardwalk_cpu_seconds_total", "boardwalk_frame_seconds_count",
                     "boardwalk_play_seconds_total", "boardwalk_process_uptime_seconds"):
            check(any(k[0] == name for k in series), f"no {name} in the scrape")
        # Who listens on TCP in the guest: the exporter's port and nothing else.
        rc, out = self.sh("cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '$4==\"0A\"{split($2,a,\":\"); print a[length(a)]}' | sort -u")
        ports = sorted({int(p, 16) for p in out.split()})
        check(ports == [self.vb.exporter_port], f"TCP ports listening in the guest: {ports}")
        u = self.unit("PrivateNetwork")
        check(u.get("PrivateNetwork") == "yes", f"the kiosk's PrivateNetwork is {u.get('PrivateNetwork')}")
        return (f"scraped 127.0.0.1:{self.vb.exporter_host_port} -> guest :{self.vb.exporter_port}: version {version}, slot {slot}; "
                f"plays {plays0:g} -> {plays:g} ({', '.join(played)}), coins {coins0:g} -> {coins:g}; "
                f"{sum(1 for k in series if k[0].startswith('boardwalk_'))} boardwalk_* series; listening: {ports}")

    def root_readonly(self):
        rc, out = self.sh("awk '$2==\"/\"{print $4}' /proc/mounts | tail -1; "
                          "awk '$2==\"/var/lib/boardwalk\"{print $3, $4}' /proc/mounts")
        lines = out.splitlines()
        check(lines and lines[0].startswith("ro"), f"the root is mounted {lines[:1]}, not read-only")
        check(len(lines) > 1 and ",rw" in "," + lines[1].split()[-1], "no writable state file system on /var/lib/boardwalk")
        return f"/ {lines[0].split(',')[0]}, /var/lib/boardwalk: {lines[1].split()[0]} rw"

    def breakdown(self, t0, u):
        """Where a restart's time went, from systemd's timestamps (guest seconds)."""
        p = self.unit("InactiveEnterTimestampMonotonic", "InactiveExitTimestampMonotonic")
        died = int(p["InactiveEnterTimestampMonotonic"]) / 1e6
        started = int(p["InactiveExitTimestampMonotonic"]) / 1e6
        ready = int(u["ActiveEnterTimestampMonotonic"]) / 1e6
        return f"old process gone after {died - t0:.1f} s, new start {started - died:.1f} s later, READY {ready - started:.1f} s after that"

    def wait_active(self, timeout=120):
        """The kiosk as it is now, once it is up (an earlier step may have restarted it)."""
        deadline = time.monotonic() + timeout
        while True:
            u = self.unit("MainPID", "ActiveState", "NRestarts")
            if u.get("ActiveState") == "active" or time.monotonic() > deadline:
                return u
            time.sleep(1.0)

    def wait_journal(self, pattern, timeout):
        """Waits for a line of the kiosk's journal (this boot) matching a grep pattern."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            rc, out = self.sh(f"journalctl -b -u boardwalk.service --no-pager -o cat | grep -m1 -e '{pattern}'")
            if rc == 0 and out.strip():
                return out.strip()
            time.sleep(5.0)
        return None

    def thread_counters(self, pid):
        """Per thread of a process, {(tid, name): (utime, stime, voluntary switches)} (CPU in
        clock ticks), and the guest's uptime when they were read."""
        rc, out = self.sh(f"cd /proc/{pid}/task && for t in *; do echo \"$t|$(cat $t/comm)|$(cut -d')' -f2- $t/stat)|"
                          "$(sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' $t/status)\"; done; cut -d' ' -f1 /proc/uptime")
        lines = out.strip().split("\n")
        counters = {}
        for line in lines[:-1]:
            tid, name, rest, switches = line.split("|", 3)
            fields = rest.split()  # from the state on: utime and stime are the 12th and 13th
            counters[(tid, name)] = (int(fields[11]), int(fields[12]), int(switches or 0))
        return counters, float(lines[-1])

    def idle_cpu(self):
        """CPU of the idle menu, from /proc, per thread and for the whole process. Measured
        once the start-up work is over: the tunes are synthesized on a low-priority thread
        after the first frame (a minute or more under emulation), and the menu is shown
        afresh (a touch) so that its 60 s turn to the attract mode is well ahead."""
        ready = self.wait_journal("tunes ready", 300)
        check(ready, "the tunes were never ready (no 'tunes ready' in the journal after 300 s)")
        opened = self.wait_journal("audio: .* open, ", 5)
        check(opened, "the sound device was never opened (no 'audio: ... open' in the journal)")
        period = int(re.search(r"open, (\d+)-frame periods", opened).group(1))
        w, h = self.size
        self.vb.tap(int(w * 0.5), int(h * 0.95), w, h)  # below the tiles: wakes the attract mode, else nothing
        time.sleep(4.0)
        pid = self.unit("MainPID")["MainPID"]
        rc, hz = self.sh("getconf CLK_TCK")
        hz = int(hz.strip())
        a, t0 = self.thread_counters(pid)
        time.sleep(20)
        b, t1 = self.thread_counters(pid)
        wall = t1 - t0
        zero = (0, 0, 0)
        use = {key: 100.0 * (b[key][0] + b[key][1] - a.get(key, zero)[0] - a.get(key, zero)[1]) / hz / wall for key in b}
        main = sum(pct for (tid, _), pct in use.items() if tid == pid)
        total = sum(use.values())
        threads = ", ".join(f"{name}{' (main)' if tid == pid else ''} {pct:.2f}%"
                            for (tid, name), pct in sorted(use.items(), key=lambda kv: -kv[1]))
        sound = [key for key in b if key[1] == "sound"]
        check(len(sound) == 1, f"no one thread named 'sound' in the kiosk: {sorted(b)}")
        key = sound[0]
        user, system = ((b[key][i] - a.get(key, zero)[i]) * 100.0 / hz / wall for i in (0, 1))
        rests = (b[key][2] - a.get(key, zero)[2]) / wall
        periods = 48000.0 / period
        # The figure (< 1% of a core) is for a board: boardwalk-bench's idle_menu_music
        # row measures the sound natively (docs/PERFORMANCE.md). Under TCG every float
        # instruction of the mixer and every step of the sound driver is emulated, at a cost
        # that depends on the host: the sound thread took 11-15% of a core on the x86 board
        # (AC97) and 29-39% on the arm64 board (USB audio, about half of it in the kernel) on
        # hosts of 2026-12. So the checks are for what emulation cannot excuse: a run loop
        # that spins (< 5%), a sound thread that does not sleep between the device's periods
        # (it blocks once per period: its voluntary context switches per second are the
        # period rate, measured 0.98-1.06x), and a process that takes most of a core (< 60%;
        # a thread that never rests takes all of one).
        check(main < 5.0, f"the idle menu's loop used {main:.1f}% of a core (emulated; {threads})")
        check(0.5 * periods <= rests <= 3 * periods,
              f"the sound thread slept {rests:.0f} times a second, not once per {period}-frame period "
              f"({periods:.0f} a second): it spins or polls ({threads})")
        check(total < 60.0, f"the idle menu's process used {total:.1f}% of a core (emulated; {threads})")
        return (f"idle menu over {wall:.0f} s, after '{ready}': whole process {total:.2f}% of a core "
                f"(threads: {threads}); the sound thread {user:.1f}% user + {system:.1f}% kernel, "
                f"asleep {rests:.0f} times a second ({periods:.0f} periods of {period} frames), under TCG emulation")

    def disk_writes(self):
        """Bytes written so far to the state disk (vda) and to every other block device of
        the guest, from the kernel's counters (/sys/block/*/stat: sectors of 512 bytes)."""
        rc, out = self.sh("for d in /sys/block/*; do echo ${d##*/} $(cat $d/stat); done")
        check(rc == 0, f"no /sys/block: {out.strip()}")
        state = other = 0
        for line in out.splitlines():
            f = line.split()
            if len(f) < 8 or re.match(r"(loop|ram|zram)\d", f[0]):
                continue
            if f[0] == "vda":
                state += int(f[7]) * 512
            else:
                other += int(f[7]) * 512
        return state, other

    def settled_writes(self, quiet=12.0, limit=90.0):
        """The counters once nothing has been written for `quiet` seconds (ext4 commits its
        journal within 5 s: commit=5 in the image's fstab), or after `limit`."""
        deadline = time.monotonic() + limit
        last, since = self.disk_writes(), time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(2.0)
            now = self.disk_writes()
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet:
                break
        return last

    def wear(self):
        """SD card wear: bytes written to the state partition while idle (the menu, then the
        attract mode), per coin and per game, from the guest's block device counters. Idle
        must write nothing, and nothing may touch any other disk (this board's root is the
        initramfs, in RAM: any block device written besides the state disk is a fault)."""
        idle_seconds, coins = 60.0, 25
        pid = self.unit("MainPID")["MainPID"]

        def coins_on_disk():
            rc, out = self.sh("sed -n 's/^coins=//p' /var/lib/boardwalk/counters")
            return int(out.strip() or 0) if rc == 0 else 0

        self.vb.key("esc")
        start = self.settled_writes()
        time.sleep(idle_seconds)
        idle = self.disk_writes()
        idle_state, idle_other = idle[0] - start[0], idle[1] - start[1]
        # A run of coins, each on disk before the next drops (the crash points check each
        # one is there at every point after the kiosk counted it).
        first = coins_on_disk()
        for n in range(first + 1, first + coins + 1):
            self.vb.coin()
            deadline = time.monotonic() + 30
            while coins_on_disk() < n and time.monotonic() < deadline:
                time.sleep(0.2)
            check(coins_on_disk() == n, f"coin {n - first} of {coins} never reached the counters (coins={coins_on_disk()})")
            self.note_coin(n)
        coined = self.settled_writes()
        w, h = self.size
        self.vb.tap(int(w * 0.1375), int(h * 0.55), w, h)  # the first tile: Beat Zombies
        time.sleep(10.0)
        self.vb.key("esc")  # leaving the game saves its play (and a new best)
        played = self.settled_writes()
        rc, files = self.sh("cd /var/lib/boardwalk && wc -c scores counters settings highscores 2>/dev/null | head -4")
        # The crash points' control (crashpoints.py): a file rewritten in place in two
        # steps, each fsync'd, as the kiosk must never write: the replay must catch it torn.
        rc, out = self.sh(f"mkdir -p /var/lib/boardwalk/{crashpoints.CONTROL} && cd /var/lib/boardwalk/{crashpoints.CONTROL} && "
                          "for n in 1 2 3; do printf '# control\\ncoins=' > counters && sync counters && "
                          "printf '%d\\n' $n >> counters && sync counters; done")
        check(rc == 0, f"the crash points' control could not be written: {out.strip()}")
        per_coin = (coined[0] - idle[0]) / coins
        per_game = played[0] - coined[0]
        check(self.unit("MainPID")["MainPID"] == pid, "the kiosk restarted during the measurement")
        check(idle_state == 0, f"the state partition took {idle_state} bytes in {idle_seconds:.0f} s idle "
              f"({idle_state * 3600 / idle_seconds / 1024:.0f} KiB an hour)")
        check(played[1] - start[1] == 0, f"{played[1] - start[1]} bytes written to a disk other than the state partition")
        return (f"state partition: 0 bytes in {idle_seconds:.0f} s idle (menu, then attract mode); "
                f"{per_coin / 1024:.1f} KiB per coin ({coins} coins); {per_game / 1024:.1f} KiB for a game opened, "
                f"played 10 s and left; other disks 0 bytes; state files now: {' '.join(files.split())}")

    def segv(self):
        u = self.wait_active()
        check(u.get("ActiveState") == "active", f"the kiosk is not running before the test: {u}")
        pid = u["MainPID"]
        rc, out = self.sh(f"cut -d' ' -f1 /proc/uptime; kill -SEGV {pid}")
        check(rc == 0, f"kill failed: {out}")
        t_kill = float(out.split()[0])
        u = self.wait_restarted(pid, 30)
        check(u, "not restarted within 30 s of SIGSEGV")
        back = int(u["ActiveEnterTimestampMonotonic"]) / 1e6 - t_kill
        why = self.breakdown(t_kill, u)
        self.kiosk_on_screen("06-after-segv")
        limit, basis = self.restart_limit()
        check(back <= limit, f"back on screen {back:.1f} s after SIGSEGV (limit {limit:.1f} s: {basis}; {why})")
        return f"back on screen {back:.2f} s after SIGSEGV (limit {limit:.1f} s: {basis}; {why})"

    def restart_limit(self):
        """The SIGSEGV check's limit and what it rests on (RESTART_LIMIT's comment)."""
        if not self.first_frame:
            return RESTART_LIMIT, "the boot's start was not measured"
        own = self.first_frame[1]
        if RESTART_STARTS * own > RESTART_LIMIT:
            return RESTART_STARTS * own, f"{RESTART_STARTS:g} x the kiosk's {own:.2f} s start at boot"
        return RESTART_LIMIT, f"{RESTART_STARTS:g} x its {own:.2f} s start at boot is less"

    def watchdog_restarts(self):
        rc, out = self.sh("sed -n 's/^watchdog_restarts=//p' /var/lib/boardwalk/counters")
        return int(out.strip() or 0) if rc == 0 else 0

    def watchdog(self):
        u = self.wait_active()
        check(u.get("ActiveState") == "active", f"the kiosk is not running before the test: {u}")
        pid = u["MainPID"]
        counted = self.watchdog_restarts()
        rc, out = self.sh(f"cut -d' ' -f1 /proc/uptime; kill -STOP {pid}")
        t_stop = float(out.split()[0])
        u = self.wait_restarted(pid, 90, quiet=12.0)
        check(u, "a frozen kiosk (SIGSTOP) was not restarted within 90 s")
        back = int(u["ActiveEnterTimestampMonotonic"]) / 1e6 - t_stop
        rc, log = self.sh("journalctl -b -u boardwalk.service --no-pager | grep -i watchdog | tail -3")
        check("atchdog" in log, f"restarted, but not by the watchdog: {log.strip()}")
        # The books: ExecStopPost's last-exit, read when the new run begins.
        deadline = time.monotonic() + 30
        while self.watchdog_restarts() <= counted and time.monotonic() < deadline:
            time.sleep(2.0)
        check(self.watchdog_restarts() == counted + 1,
              f"the counters' watchdog_restarts went {counted} -> {self.watchdog_restarts()}, not up by one")
        why = self.breakdown(t_stop, u)
        self.kiosk_on_screen("07-after-watchdog")
        return f"watchdog killed the frozen kiosk; back on screen {back:.1f} s after SIGSTOP ({why}); counted in the books"

    def stop(self):
        rc, out = self.sh("systemctl stop boardwalk.service; systemctl is-active boardwalk.service; "
                          "printf '\\n\\n  BOARDWALK SYSTEM TEST: THE CONSOLE IS BACK\\n' > /dev/tty1")
        time.sleep(1.5)
        img = self.shot("08-after-stop")
        st = img.stats()
        check(vboard.looks_like_console(st) and st["grey"] > 0.0005,
              f"no text console after stop (black {st['black']:.1%}, grey {st['grey']:.2%})")
        return f"text console back (black {st['black']:.1%}, text {st['grey']:.2%})"

    def exit_to_console(self):
        """The operator's "Exit to console" is exit status 79: the unit must stay stopped (no
        Restart=always) and put a login prompt on tty1; starting the kiosk again stops it.
        The kiosk's exit is stood in for by a runtime drop-in (the menu needs the PIN)."""
        dropin = "/run/systemd/system/boardwalk.service.d"
        rc, out = self.sh(f"mkdir -p {dropin} && printf '[Service]\\nType=simple\\nExecStart=\\n"
                          f"ExecStart=/bin/sh -c \\047exit 79\\047\\n' > {dropin}/exit79.conf && "
                          "systemctl daemon-reload && systemctl restart boardwalk.service; sleep 6; "
                          "for p in ActiveState NRestarts Result; do systemctl show -p $p --value boardwalk.service; done | tr '\\n' ' '; "
                          "systemctl is-active boardwalk-console.service; "
                          "tr '\\0' ' ' < /proc/$(systemctl show -p MainPID --value boardwalk-console.service)/cmdline")
        words = out.split()
        self.sh(f"rm -rf {dropin}; systemctl daemon-reload")
        check(words[:1] == ["inactive"], f"the kiosk's unit after exit 79: {out.strip()}")
        check("active" in words[3:4], f"no login prompt on tty1 after exit 79: {out.strip()}")
        check("tty1" in out, f"agetty is not on tty1: {out.strip()}")
        time.sleep(1.5)
        img = self.shot("09-exit-to-console")
        st = img.stats()
        check(vboard.looks_like_console(st), f"tty1 does not show the console (black {st['black']:.1%})")
        rc, back = self.sh("systemctl start boardwalk.service; sleep 2; systemctl is-active boardwalk-console.service")
        u = self.wait_active()
        check(u.get("ActiveState") == "active", f"systemctl start did not bring the kiosk back: {u}")
        check(back.strip() != "active", "the login prompt kept running beside the kiosk")
        return f"exit 79: unit {words[0]} (restarts {words[1]}), login prompt on tty1; 'systemctl start boardwalk' brought the kiosk back"


def parse_metrics(text):
    """Prometheus text: {(name, ((label, value), ...)): value} for every sample."""
    out = {}
    sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$')
    label = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = sample.match(line)
        if not m:
            raise ValueError(f"not a sample: {line!r}")
        labels = tuple(sorted((k, re.sub(r'\\(.)', lambda e: "\n" if e.group(1) == "n" else e.group(1), v))
                              for k, v in label.findall(m.group(2) or "")))
        out[(m.group(1), labels)] = float(m.group(3))
    return out


def start_until_ready(vb, directory):
    """Boots VB and waits for the kiosk's READY marker, the command channel and an active
    unit (Failed otherwise); returns the SystemTest that drives it."""
    vb.start()
    t = SystemTest(vb, None, directory)
    m, _ = vb.wait_serial(r"BW-MARK ready uptime=([0-9.]+)", READY_TIMEOUT)
    check(m, f"the kiosk never reported READY within {READY_TIMEOUT:.0f} s")
    check(vb.wait_shell(300), "the guest's command channel never answered")
    u = t.wait_active()
    check(u.get("ActiveState") == "active", f"boardwalk.service is not active: {u}")
    return t


def save_journal_and_stop(vb, directory):
    """The guest's journal into DIRECTORY/journal.txt (best effort: the guest may be
    gone), then QEMU off."""
    try:
        rc, journal = vb.sh("journalctl -b --no-pager -o short-monotonic", timeout=60)
        with open(os.path.join(directory, "journal.txt"), "w") as f:
            f.write(journal)
    except Exception:
        pass
    vb.stop()


def state_partition_boot(kind, kernel, initrd, cmdline, workdir, results, arch="amd64"):
    """Boots the board again with its state partition corrupt (superblock gone) or missing:
    the kiosk must come up anyway, its state in memory, with a warning in the journal."""
    name = f"boot with the state partition {kind}: the kiosk runs, state in memory, a warning"
    t0 = time.monotonic()
    sub = os.path.join(workdir, f"state-{kind}")
    os.makedirs(sub, exist_ok=True)
    disk = None
    if kind == "corrupt":
        disk = os.path.join(sub, "state.img")
        vboard.make_state_disk(disk)
        with open(disk, "r+b") as f:      # ext4's superblock: 1 KiB at offset 1024
            f.seek(1024)
            f.write(bytes(range(256)) * 16)
    vb = vboard.VirtualBoard(sub, kernel, initrd, cmdline, state_disk=disk, arch=arch)
    ok, detail = False, ""
    try:
        t = start_until_ready(vb, sub)
        rc, mounts = vb.sh("awk '$2==\"/var/lib/boardwalk\"{print $1, $3, $4}' /proc/mounts; "
                           "systemctl show -p ActiveState --value var-lib-boardwalk.mount")
        check("/dev/vda" not in mounts, f"a {kind} state partition was mounted: {mounts}")
        warning = t.wait_journal("will not be kept", 60)
        check(warning, "no warning that scores and settings will not be kept")
        t.kiosk_on_screen(f"state-{kind}")
        ok, detail = True, f"{warning}; mount unit {mounts.split()[-1] if mounts.split() else '?'}"
    except Failed as e:
        detail = str(e)
    except Exception as e:
        detail = f"{type(e).__name__}: {e}"
        traceback.print_exc(file=sys.stderr)
    finally:
        save_journal_and_stop(vb, sub)
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name} ({time.monotonic() - t0:.1f} s){': ' + detail if detail else ''}", flush=True)


def crash_points(workdir, coins, results):
    """Every crash point of the first boot's state writes: its disk's write log replayed
    onto the disk as it was before, stopped after each write and flush (crashpoints.py)."""
    name = "every crash point of the state writes: the state whole, every recorded coin there"
    t0 = time.monotonic()
    try:
        lines, failures = crashpoints.run(os.path.join(workdir, "state-before.img"), os.path.join(workdir, "state.log"),
                                          coins)
        ok = not failures
        detail = "; ".join(lines) + ("" if ok else "; " + "; ".join(failures[:5]))
    except Exception as e:
        ok, detail = False, f"{type(e).__name__}: {e}"
        traceback.print_exc(file=sys.stderr)
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name} ({time.monotonic() - t0:.1f} s): {detail}", flush=True)


def coin_power_cut(kernel, initrd, cmdline, workdir, results, arch="amd64"):
    """A coin, then the power goes the moment the kiosk has logged it (QEMU quits: no
    shutdown, no sync), then the board boots again: the coin is on the state partition."""
    name = "a coin through QMP survives an immediate power-off and a reboot"
    t0 = time.monotonic()
    sub = os.path.join(workdir, "coin-power-cut")
    os.makedirs(sub, exist_ok=True)
    disk = os.path.join(sub, "state.img")
    vboard.make_state_disk(disk)
    ok, detail = False, ""

    def boot():
        vb = vboard.VirtualBoard(sub, kernel, initrd, cmdline, state_disk=disk, arch=arch)
        t = start_until_ready(vb, sub)
        return vb, t

    vb = None
    try:
        vb, t = boot()
        vb.coin()
        line = t.wait_journal("coin: 1 since", 60)
        check(line, "the kiosk never logged the coin")
        # Power off now: QEMU quits with the guest running (no unmount, no sync).
        vb.stop()
        vb, t = boot()
        rc, out = vb.sh("sed -n 's/^coins=//p; s/^crashes=/crashes /p' /var/lib/boardwalk/counters")
        fields = out.split()
        check(rc == 0 and fields and fields[0] == "1", f"after the power cut the counters say {out.strip()!r}, not coins=1")
        ok, detail = True, f"logged '{line}'; after power-off and reboot: coins={fields[0]}, {' '.join(fields[1:])}"
    except Failed as e:
        detail = str(e)
    except Exception as e:
        detail = f"{type(e).__name__}: {e}"
        traceback.print_exc(file=sys.stderr)
    finally:
        if vb:
            save_journal_and_stop(vb, sub)
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name} ({time.monotonic() - t0:.1f} s){': ' + detail if detail else ''}", flush=True)

class ABBoard:
    """The A/B disk board across its own reboots: QEMU keeps running while the guest
    restarts (an update, a rollback). Boots are counted by GRUB's line naming the slot it
    takes ("Boardwalk: slot X") on the serial log; a boot whose kiosk reached READY then
    writes one ready marker. A trial boot whose kiosk never starts writes none: its start
    job stays pending through every automatic restart until the slot check reboots."""

    def __init__(self, vb, directory):
        self.vb, self.dir = vb, directory
        self.t = SystemTest(vb, None, directory)
        self.boots = 0
        # (what, host monotonic time): reboots asked, GRUB's lines and ready markers as
        # first seen, so each step can say where its minutes went (the firmware, the boot).
        self.marks = []
        self.started = time.monotonic()

    def mark(self, what):
        self.marks.append((what, time.monotonic()))

    def timeline(self, since=None):
        """The marks from `since` on (default: the board's start), 'reboot asked +0 s, boot 3:
        GRUB A +41 s, READY +130 s'."""
        since = self.started if since is None else since
        return ", ".join(f"{what} +{t - since:.0f} s" for what, t in self.marks if t >= since)

    def sh(self, cmd, timeout=60):
        rc, out = self.vb.sh(cmd, timeout=timeout)
        return rc, out.strip()

    def boot_logs(self):
        """The serial log cut at each GRUB slot line: [(slot, what the boot printed)]."""
        parts = re.split(r"Boardwalk: slot ([AB]) \(", self.vb.serial())
        return [(parts[i], parts[i + 1]) for i in range(1, len(parts) - 1, 2)]

    def wait_grub(self, n, timeout):
        """Waits for the n-th boot (1-based) to be begun by GRUB; returns its slot."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            boots = self.boot_logs()
            # The kernel's last line before the machine resets: the shutdown is over.
            last = f"boot {n - 1}: restarting"
            if n > 1 and len(boots) >= n - 1 and "reboot: Restarting system" in boots[n - 2][1] \
                    and not any(what == last for what, _ in self.marks):
                self.mark(last)
            if len(boots) >= n:
                if not any(what.startswith(f"boot {n}:") for what, _ in self.marks):
                    self.mark(f"boot {n}: GRUB {boots[n - 1][0]}")
                return boots[n - 1][0]
            check(self.vb.alive(), "QEMU exited")
            time.sleep(0.5)
        raise Failed(f"boot {n}: GRUB did not start it within {timeout:.0f} s")

    def wait_boot(self):
        """Waits for the next boot, its ready marker, the command channel and an active
        (READY) kiosk; returns the boot's slot."""
        self.boots += 1
        slot = self.wait_grub(self.boots, READY_TIMEOUT)
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            log = self.boot_logs()[self.boots - 1][1]
            if "BW-MARK ready" in log:
                self.mark("READY")
                break
            check(len(self.boot_logs()) == self.boots, f"boot {self.boots} (slot {slot}) restarted before READY")
            check(self.vb.alive(), "QEMU exited")
            time.sleep(0.5)
        else:
            raise Failed(f"boot {self.boots} (slot {slot}): no ready marker within {READY_TIMEOUT:.0f} s")
        check(self.vb.wait_shell(300), f"boot {self.boots}: the guest's command channel never answered")
        u = self.t.wait_active(180)
        check(u.get("ActiveState") == "active", f"boot {self.boots}: boardwalk.service is not active: {u}")
        return slot

    def wait_failed_trial(self, timeout):
        """Waits for a trial boot whose kiosk never reaches READY and the reboot that ends
        it (the slot check's); returns the trial's slot. The next boot is wait_boot's."""
        self.boots += 1
        slot = self.wait_grub(self.boots, READY_TIMEOUT)
        try:
            self.wait_grub(self.boots + 1, timeout)
        except Failed as e:
            raise Failed(f"{e}; {self.trial_state()}")
        log = self.boot_logs()[self.boots - 1][1]
        check("ActiveState=active" not in log, f"the trial boot's kiosk reported READY: {log[-400:]}")
        return slot

    def trial_state(self):
        """What the slot check and the kiosk's unit say in a trial boot that did not end (for
        the failure's message: CI shows only the test's output)."""
        try:
            if not self.vb.wait_shell(60):
                return "the guest's command channel did not answer"
            rc, out = self.sh("systemctl show boardwalk.service boardwalk-slot-check.service -p Id -p ActiveState "
                              "-p NRestarts | paste -sd' '; journalctl -b -u boardwalk-slot-check -u rauc "
                              "--no-pager -o short-monotonic | tail -n 12", timeout=120)
            return f"in the guest: {out[-1500:]}"
        except Exception as e:  # the diagnosis must not hide the failure
            return f"no state from the guest ({type(e).__name__}: {e})"

    def reboot(self):
        self.mark("reboot asked")
        self.sh("systemctl --no-block reboot")
        if self.vb._shell:
            self.vb._shell.close()
            self.vb._shell = None

    def facts(self):
        """The booted slot, the image's version, the boot loader's environment, the coins."""
        rc, out = self.sh("sed -n 's/.*rauc\\.slot=\\([AB]\\).*/slot=\\1/p' /proc/cmdline; "
                          "sed -n 's/^IMAGE_VERSION=/version=/p' /etc/os-release; "
                          "grub-editenv /boot/efi/EFI/BOOT/grubenv list; "
                          "sed -n 's/^coins=/coins=/p' /var/lib/boardwalk/counters; "
                          "sed -n 's/^zombies\\.best=/zombies_best=/p' /var/lib/boardwalk/scores; "
                          "echo conf_pins=$(grep -c '^[[:space:]]*operator_pin' /etc/boardwalk/boardwalk.conf); "
                          "test -s /var/lib/boardwalk/operator-pin && echo state_pin=1")
        return dict(l.split("=", 1) for l in out.splitlines() if "=" in l)

    def system_disk(self, name):
        """Root, the ESP, the state and RAUC's slots all on the board's own (virtio) disks
        while a USB stick holding a byte copy of the boot disk and one of the state disk is
        plugged in (same partition UUIDs, labels and GPT names); `rauc status` works and
        the copy is really there. Returns a one-line summary."""
        rc, out = self.sh(
            "x=$(sed -n 's/.*root=PARTUUID=\\([^ ]*\\).*/\\1/p' /proc/cmdline); echo root_uuid=$x; "
            "echo root=$(findmnt -no SOURCE /); echo esp=$(findmnt -no SOURCE /boot/efi); "
            "echo state=$(findmnt -no SOURCE /var/lib/boardwalk); "
            "i=0; for d in $(sed -n 's/^device=//p' /etc/rauc/system.conf); do echo slot$i=$(readlink -f $d); i=$((i+1)); done; "
            "echo partuuid_link=$(readlink -f /dev/disk/by-partuuid/$x); "
            "echo label_link=$(readlink -f /dev/disk/by-label/bw-state); "
            "echo esp_label_link=$(readlink -f /dev/disk/by-partlabel/esp); "
            "echo copies=$(blkid -o device -t PARTUUID=$x | sort | tr '\\n' ' '); "
            "echo state_copies=$(blkid -o device -t LABEL=bw-state | sort | tr '\\n' ' '); "
            "rauc status > /run/rauc-status.txt 2>&1; echo rauc_rc=$?; "
            "echo booted=$(sed -n 's/.*[Bb]ooted from: *//p' /run/rauc-status.txt | head -1)", timeout=120)
        f = dict(l.split("=", 1) for l in out.splitlines() if "=" in l)
        with open(os.path.join(self.dir, f"{name}-system-disk.txt"), "w") as fh:
            fh.write(out + "\n")
        copies, state_copies = f.get("copies", "").split(), f.get("state_copies", "").split()
        check(any(c.startswith("/dev/sd") for c in copies) and any(c.startswith("/dev/vd") for c in copies),
              f"{name}: the root partition's UUID is not on both the boot disk and the USB copy: {copies}")
        check(any(c.startswith("/dev/sd") for c in state_copies),
              f"{name}: the USB copy of the state disk is not there: {state_copies}")
        for key in ("root", "esp", "state", "slot0", "slot1", "partuuid_link", "label_link", "esp_label_link"):
            check(f.get(key, "").startswith("/dev/vd"), f"{name}: {key} is {f.get(key)!r}, not on the board's own disks: {f}")
        check(f["root"] == f["partuuid_link"], f"{name}: root {f['root']} is not root=PARTUUID's link {f['partuuid_link']}")
        check(f.get("rauc_rc") == "0", f"{name}: rauc status failed with the copy plugged in: {out[-400:]}")
        return (f"root {f['root']} (PARTUUID {f['root_uuid'][:8]}..., also on {' '.join(c for c in copies if c.startswith('/dev/sd'))}), "
                f"ESP {f['esp']}, state {f['state']}, slots {f['slot0']} {f['slot1']}, rauc booted from {f.get('booted', '?')}")

    def clock_and_watchdog(self):
        """The board's clock after a start at RTC 1970 (what systemd made of it), the RTC
        itself, and the hardware watchdog systemd feeds. Returns a summary."""
        rc, out = self.sh("echo now=$(date -u +%Y-%m-%dT%H:%M:%SZ); echo rtc=$(cat /sys/class/rtc/rtc0/date 2>/dev/null); "
                          "echo wd_state=$(cat /sys/class/watchdog/watchdog0/state 2>/dev/null); "
                          "echo wd_timeout=$(cat /sys/class/watchdog/watchdog0/timeout 2>/dev/null); "
                          "echo wd_identity=$(cat /sys/class/watchdog/watchdog0/identity 2>/dev/null | tr ' ' _)")
        f = dict(l.split("=", 1) for l in out.splitlines() if "=" in l)
        check(f.get("rtc", "")[:4] < "2000", f"the board's RTC does not start in 1970 as a Pi's clock would: {f}")
        check(f.get("wd_state") == "active" and f.get("wd_timeout") == "60",
              f"no hardware watchdog fed by systemd (the test image's RuntimeWatchdogSec=60s): {f}")
        return f"clock {f.get('now')} with the RTC at {f.get('rtc')}; watchdog {f.get('wd_identity')} active, {f.get('wd_timeout')} s"

    def dbus_policy(self):
        """The kiosk's user may not call RAUC's Mark (which could switch or condemn a slot
        without an update): the D-Bus policy lets it call only Info and InstallBundle."""
        rc, out = self.sh("setpriv --reuid=boardwalk --regid=boardwalk --init-groups busctl --system call "
                          "de.pengutronix.rauc / de.pengutronix.rauc.Installer Mark ss bad other 2>&1")
        check(rc != 0 and "Access denied" in out, f"the kiosk's user could call RAUC's Mark ({rc}): {out[-300:]}")
        return "Mark refused to the kiosk's user"

    def wait_confirmed(self, slot, timeout=120):
        """Waits for the slot check to mark SLOT good (its X_TRY back to 0, X_OK 1)."""
        deadline = time.monotonic() + timeout
        f = {}
        while time.monotonic() < deadline:
            f = self.facts()
            if f.get(f"{slot}_OK") == "1" and f.get(f"{slot}_TRY") == "0":
                return f
            time.sleep(2.0)
        raise Failed(f"slot {slot} was not marked good within {timeout} s: {f}")

    # Where the operator's PIN pad, System tab and update page buttons are on the 1280x800
    # board (screen pixels, from screendumps of the same screens).
    PIN_KEYS = {"1": (442, 268), "2": (640, 268), "3": (837, 268), "4": (442, 416), "5": (640, 416),
                "6": (837, 416), "7": (442, 565), "8": (640, 565), "9": (837, 565), "0": (640, 714)}
    PIN_OK = (837, 714)
    SYSTEM_TAB = (923, 64)
    DONE = (1158, 64)
    UPDATE_BUTTON = (1132, 381)   # the System tab's "Update from USB" row
    INSTALL_BUTTON = (1132, 279)  # the update page's "Its version" row
    PRIMARY = (255, 185, 60)      # Theme.accent: a primary button's face
    W, H = 1280, 800

    def tap(self, point, wait=0.4):
        self.vb.tap(*point, self.W, self.H)
        time.sleep(wait)

    def open_system_tab(self):
        """As an operator: the service key (F12), the PIN tapped on the pad, the System tab."""
        self.t.wait_active(180)
        # No wait for the start-up work (the tunes: minutes under TCG on one vCPU): the
        # PIN's PBKDF2 runs on a thread of its own, and the run loop feeds the watchdog.
        opened = lambda: int(self.sh("journalctl -b -u boardwalk.service -o cat | grep -c '^operator menu: opened'")[1] or 0)
        before = opened()
        self.vb.chord("f12")
        time.sleep(2.0)
        # Typed again if a tap was missed (a busy emulated guest): the pad clears a wrong PIN.
        for attempt in range(2):
            for digit in os.environ["BOARDWALK_VB_PIN"]:
                self.tap(self.PIN_KEYS[digit])
            self.tap(self.PIN_OK, 2.0)
            deadline = time.monotonic() + 60  # the PIN's PBKDF2 (100k rounds) under emulation
            while opened() == before and time.monotonic() < deadline:
                time.sleep(2.0)
            if opened() > before:
                break
        check(opened() > before, "the operator menu did not open: the PIN typed twice on the pad was not taken")
        self.tap(self.SYSTEM_TAB, 2.0)

    def ocr(self, name):
        """A screendump (NAME.png in the workdir) read by tesseract."""
        self.t.shot(name)
        png = os.path.join(self.dir, name + ".png")
        return subprocess.run(["tesseract", png, "-", "--psm", "6"], capture_output=True, text=True).stdout

    @staticmethod
    def near(a, b):
        """OCR misreads a character or two of a commit id: at most 2 edits apart."""
        return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b).get_opcodes()
                   if tag != "equal") <= 2

    def version_on_screen(self, name, expected, not_expected):
        """Reads the version as an operator does, on the System tab (OCR); returns the line
        it read. Leaves the menu with Done."""
        self.open_system_tab()
        text = self.ocr(name)
        self.tap(self.DONE)
        line = next((l.strip() for l in text.splitlines() if l.strip().lower().startswith("version")), "")
        check(line, f"{name}: no Version line on the System tab (OCR read: {text.strip()[:300]!r})")
        word = (line.split(None, 1)[1].split() or [""])[0] if " " in line else ""
        check(self.near(word, expected) and not self.near(word, not_expected),
              f"{name}: the System tab says {line!r}, not version {expected}")
        return line

    def usb_mounts(self):
        """What is mounted under /run/boardwalk-usb: (device, file system) pairs."""
        rc, out = self.sh("findmnt -rn -o SOURCE,FSTYPE,TARGET | grep ' /run/boardwalk-usb/' || true")
        return [tuple(l.split()[:2]) for l in out.splitlines() if l.strip()]

    def sticks_unmounted(self, when, timeout=30):
        """The USB sticks plugged in all along (the bundle's FAT stick, the copies of the
        disk and the state) are not mounted while no operator page asks for them. Returns
        a summary."""
        rc, out = self.sh("ls /sys/class/block | grep -c '^sd' || true")
        deadline = time.monotonic() + timeout
        mounts = self.usb_mounts()
        while mounts and time.monotonic() < deadline:
            time.sleep(2.0)
            mounts = self.usb_mounts()
        check(int(out.strip() or 0) > 0, f"{when}: no USB stick's block device on the board")
        check(not mounts, f"{when}: USB sticks mounted while no operator page asks for them: {mounts}")
        return f"{out.strip()} stick block devices, none mounted {when}"

    def install_from_menu(self, bundle_name, version, timeout=900):
        """"Update from USB" as an operator does it: the System tab finds the bundle on the
        stick, its page reads the version (RAUC's Info over D-Bus), Install, the dialog's
        Install, then the progress until the page says installed (the kiosk's journal says
        the same). Returns the seconds the install took."""
        self.open_system_tab()
        # The sticks are mounted once the tab asks (boardwalk-usb.path), which it looks at
        # again every 2 s: a few seconds on a busy emulated board.
        for attempt in range(10):
            text = self.ocr("ab-menu-01-system-tab")
            if any(self.near(word, bundle_name) for word in text.split()):
                break
            time.sleep(3.0)
        check(any(self.near(word, bundle_name) for word in text.split()),
              f"the System tab does not offer {bundle_name} (OCR read: {text.strip()[:300]!r})")
        self.mounted_for_operator = self.usb_mounts()
        check(self.mounted_for_operator and all(fs in ("vfat", "exfat") for _, fs in self.mounted_for_operator),
              f"with the System tab open, the sticks mounted are not FAT or exFAT alone: {self.mounted_for_operator}")
        self.tap(self.UPDATE_BUTTON, 1.0)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            rc, log = self.sh("journalctl -b -u boardwalk.service -o cat | grep -e '^update: ' | tail -1")
            if "ready(" in log or "failed(" in log:
                break
            time.sleep(2.0)
        check("ready(" in log and version in log, f"the update page did not read the bundle's version: {log}")
        # The dialog's Install: the one bright primary button in the middle of the screen,
        # over the dimmed page (the page's own Install and Done are at its right edge).
        # Tapped again if the dialog is not up yet (a busy emulated guest can miss a tap).
        import numpy as np
        xs = []
        for attempt in range(3):
            self.tap(self.INSTALL_BUTTON, 2.0)
            a = self.t.shot("ab-menu-02-dialog").array()[150:750, 250:1000]
            ys, xs = np.nonzero((np.abs(a - np.array(self.PRIMARY)) < 40).all(axis=2))
            if len(xs) > 2000:
                break
        check(len(xs) > 2000, "no confirmation dialog with an Install button on the screen")
        t0 = time.monotonic()
        xs, ys = xs + 250, ys + 150
        self.tap((int(xs.mean()), int(ys.mean())), 3.0)
        self.t.shot("ab-menu-03-installing")
        while time.monotonic() < t0 + timeout:
            rc, log = self.sh("journalctl -b -u boardwalk.service -o cat | grep -e '^update: ' | tail -1")
            if " installed " in log or "failed" in log:
                break
            time.sleep(3.0)
        check(" installed " in log, f"the install from the menu did not end installed: {log}")
        took = time.monotonic() - t0
        for attempt in range(6):  # the page shows it on its next frame
            time.sleep(2.0)
            text = self.ocr("ab-menu-04-installed")
            if "is installed" in text:
                break
        check("is installed" in text, f"the update page does not say installed (OCR read: {text.strip()[:300]!r})")
        self.tap(self.DONE)
        return took

    def install(self, bundle_name, timeout=900):
        """`rauc install` from the second disk (the command-line path), in the background
        (the command channel answers within 120 s; an install under TCG can take longer)."""
        rc, out = self.sh("mkdir -p /run/bundles && (mountpoint -q /run/bundles || "
                          "mount -o ro /dev/disk/by-id/virtio-usb0 /run/bundles) && ls /run/bundles")
        check(rc == 0 and bundle_name in out.split(), f"the bundle disk is not there or lacks {bundle_name}: {out}")
        self.sh("rm -f /run/rauc-install.rc; setsid sh -c 'rauc install /run/bundles/" + bundle_name +
                " > /run/rauc-install.log 2>&1; echo $? > /run/rauc-install.rc' >/dev/null 2>&1 &")
        t0 = time.monotonic()
        while time.monotonic() < t0 + timeout:
            rc, out = self.sh("cat /run/rauc-install.rc 2>/dev/null")
            if out:
                rc, log = self.sh("tail -5 /run/rauc-install.log")
                check(out == "0", f"rauc install {bundle_name} failed ({out}): {log}")
                return time.monotonic() - t0
            time.sleep(3.0)
        raise Failed(f"rauc install {bundle_name} did not finish within {timeout} s")


# What the panicking bundle's init writes on the serial console before it exits.
PANIC_MARK = "boardwalk-test: the init of this update exits now; the kernel panics"


def panic_bundle(rootfs, outdir, version, log):
    """A bundle whose kernel panics at boot: a root image (the broken kiosk's) whose
    /boot/initrd.img is an initramfs whose init (busybox) writes PANIC_MARK on the serial
    console and exits: the kernel panics ("Attempted to kill init!"; quiet loglevel=0 keeps
    the panic's own lines off the console). Made from a copy with debugfs, signed with
    rauc.sh's development key."""
    os.makedirs(outdir, exist_ok=True)
    img = os.path.join(outdir, "rootfs.ext4")
    subprocess.run(["cp", "--sparse=always", rootfs, img], check=True)
    empty = os.path.join(outdir, "initrd-panic.img")
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "bin"))
        os.mkdir(os.path.join(d, "dev"))
        shutil.copy(shutil.which("busybox"), os.path.join(d, "bin", "busybox"))
        with open(os.path.join(d, "init"), "w") as f:
            f.write("#!/bin/busybox sh\n/bin/busybox mount -t devtmpfs devtmpfs /dev\n"
                    f"echo '{PANIC_MARK}' > /dev/ttyS0\nexit 1\n")
        os.chmod(os.path.join(d, "init"), 0o755)
        with open(empty, "wb") as f:
            subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], input=b"bin\nbin/busybox\ndev\ninit\n", cwd=d,
                           stdout=f, check=True)
    subprocess.run(["debugfs", "-w", "-R", "rm /boot/initrd.img", img], check=True, stdout=log, stderr=log)
    subprocess.run(["debugfs", "-w", "-R", f"write {empty} /boot/initrd.img", img], check=True, stdout=log, stderr=log)
    out = os.path.join(outdir, "update.raucb")
    cmd = ["bash", "-c", 'set -eu; source "$1/lib.sh"; source "$1/rauc.sh"; bw_rauc_bundle "$2" "$3" "$4" "$5"', "-",
           os.path.join(vboard.REPO, "images"), img, version, "boardwalk-qemu-x86_64", out]
    if os.geteuid() != 0 and shutil.which("sudo"):
        cmd = ["sudo", "-E"] + cmd
    subprocess.run(cmd, check=True, stdout=log, stderr=log, env=dict(os.environ, BOARDWALK_RAUC_DEV_KEYS="1"))
    return out


def ab_updates(binary, workdir, results, testdata, steps):
    """The A/B disk board: version 1 booted from slot A; version 2's bundle installed from a
    USB stick through the operator menu, a reboot into it with the coins kept and the new
    version on the System tab (update); then a bundle whose kiosk cannot start, installed
    with `rauc install` from a second disk, and the board back on version 2 by itself
    (rollback: the slot check marks the trial slot bad and reboots, GRUB takes the other)."""
    sub = os.path.join(workdir, "ab-update")
    os.makedirs(sub, exist_ok=True)
    names = {"update": "update: version 2 from a USB stick through the operator menu, rebooted into, coins kept",
             "rollback": "rollback: a bundle whose kernel panics, then one whose kiosk cannot start; back on the old slot by itself each time"}
    t0 = time.monotonic()
    base = subprocess.run(["git", "-C", vboard.REPO, "describe", "--always", "--tags", "--dirty"],
                          capture_output=True, text=True).stdout.strip() or "unknown"
    # Suffixes that share no letter: the on-screen check (OCR) tells one from the other.
    v1, v2, v3, v4 = f"{base}+alpha", f"{base}+bravo", f"{base}+broken", f"{base}+panic"
    broken = os.path.join(sub, "broken-boardwalk")
    with open(broken, "w") as f:
        f.write("#!/bin/sh\n# The system test's kiosk that cannot start (the rollback check).\n"
                "echo 'boardwalk: broken on purpose by the system test' >&2\nexit 1\n")
    os.chmod(broken, 0o755)
    vb = None
    ab = None
    done = []

    def report(key, ok, detail):
        results.append(ok)
        print(f"{'PASS' if ok else 'FAIL'} {names[key]} ({time.monotonic() - t0:.1f} s){': ' + detail if detail else ''}",
              flush=True)
        done.append(key)

    try:
        with open(os.path.join(sub, "build.log"), "w") as log:
            tb = time.monotonic()
            disk, _, built1 = vboard.build_disk(binary, os.path.join(sub, "v1"), testdata, log=log, version=v1)
            _, bundle2, built2 = vboard.build_disk(binary, os.path.join(sub, "v2"), testdata, log=log, version=v2,
                                                   bundle_only=True)
            bundles = [bundle2]
            if "rollback" in steps:
                _, bundle3, _ = vboard.build_disk(broken, os.path.join(sub, "broken"), None, log=log, version=v3,
                                                  bundle_only=True)
                bundles.append(bundle3)
                bundles.append(panic_bundle(os.path.join(sub, "broken", "rootfs.ext4"), os.path.join(sub, "panic"), v4, log))
        check(built1 == v1 and built2 == v2, f"built versions {built1}, {built2}")
        # Version 2 on a USB stick (the operator's path); the broken bundle on a second disk
        # (the command line's path, `rauc install FILE`). Each under a name of its own.
        named = []
        for b, name in zip(bundles, ("boardwalk-v2.raucb", "boardwalk-broken.raucb", "boardwalk-panic.raucb")):
            dest = os.path.join(sub, name)
            if os.path.exists(dest):
                os.unlink(dest)
            os.link(b, dest)
            named.append(dest)
        stick = os.path.join(sub, "stick.img")
        vboard.make_stick(stick, named[:1])
        disks = []
        if len(named) > 1:
            disks = [os.path.join(sub, "bundles.img")]
            vboard.make_stick(disks[0], named[1:])
        # The cabinet's state already holds a Beat Zombies high score, which updates and
        # rollbacks must keep (and the menu's tile must show), and the operator PIN's hash
        # (build-disk.sh puts none in the root, so no bundle carries one), written by
        # boardwalk-set-pin as an image build does.
        state = os.path.join(sub, "state.img")
        with tempfile.TemporaryDirectory() as pin_dir:
            subprocess.run([os.path.join(vboard.REPO, "scripts", "boardwalk-set-pin"), pin_dir], check=True,
                           env=dict(os.environ, BW_PIN=os.environ["BOARDWALK_VB_PIN"]))
            with open(os.path.join(pin_dir, "operator-pin")) as pin_file:
                pin_hash = pin_file.read()
        vboard.make_state_disk(state, files={"scores": f"zombies.best={AB_HIGH_SCORE}\n", "operator-pin": pin_hash})
        # A stranger's USB stick holding a byte copy of this board's disk, and one of its
        # state disk: same partition UUIDs, GPT names and labels. Plugged in all along.
        clones = [os.path.join(sub, "clone-disk.img"), os.path.join(sub, "clone-state.img")]
        for src, dst in zip((disk, state), clones):
            subprocess.run(["cp", "--sparse=always", src, dst], check=True)
        print(f"A/B images built in {time.monotonic() - tb:.0f} s (v1 disk, bundles "
              f"{', '.join(f'{os.path.getsize(b) >> 20} MB' for b in bundles)}); booting the disk board", flush=True)

        vb = vboard.VirtualBoard(sub, None, None, None, state_disk=state, boot_disk=disk, disks=disks,
                                 usb_sticks=[stick] + clones)
        vb.start()
        ab = ABBoard(vb, sub)
        # Boot 1: version 1 on slot A, confirmed by the slot check; a coin into the state.
        tboot = time.monotonic()
        ab.wait_boot()
        boot1 = time.monotonic() - tboot
        f = ab.wait_confirmed("A")
        check(f.get("slot") == "A" and f.get("version") == v1, f"first boot: {f}, expected slot A, {v1}")
        clock = ab.clock_and_watchdog()
        disk1 = ab.system_disk("ab-01")
        policy = ab.dbus_policy()
        unmounted1 = ab.sticks_unmounted("before the operator menu opens", timeout=0)
        # Pressed again only if the kiosk was restarting (busy emulation: a watchdog restart)
        # and so never saw it.
        for attempt in range(3):
            ab.t.wait_active(180)
            vb.coin()
            deadline = time.monotonic() + 40
            while ab.facts().get("coins") is None and time.monotonic() < deadline:
                time.sleep(2.0)
            if ab.facts().get("coins") is not None:
                break
        f = ab.facts()
        check(f.get("coins") == "1", f"the coin was not counted on the state disk: {f}")
        check(f.get("conf_pins") == "0" and f.get("state_pin") == "1",
              f"the PIN's hash is not on the state disk alone (root's boardwalk.conf has {f.get('conf_pins')}): {f}")
        ab.t.kiosk_on_screen("ab-01-v1")
        # Install version 2 from the stick through the operator menu, restart into it.
        t_install = ab.install_from_menu("boardwalk-v2.raucb", v2)
        f = ab.facts()
        check(f.get("ORDER", "").split()[:1] == ["B"] and f.get("B_OK") == "1",
              f"after the install GRUB's environment does not prefer slot B: {f}")
        ab.reboot()
        tboot = time.monotonic()
        ab.wait_boot()
        boot2 = time.monotonic() - tboot
        f = ab.wait_confirmed("B")
        check(f.get("slot") == "B", f"after the update the board booted slot {f.get('slot')}, not B")
        check(f.get("version") == v2, f"after the update os-release says {f.get('version')}, not {v2}")
        check(f.get("coins") == "1", f"the coins after the update: {f.get('coins')}, not 1")
        check(f.get("zombies_best") == str(AB_HIGH_SCORE), f"the high score after the update: {f.get('zombies_best')}")
        check(f.get("conf_pins") == "0" and f.get("state_pin") == "1", f"the PIN after the update: {f}")
        ab.tap((640, 760), 2.0)  # below the tiles: wakes the attract mode, else nothing
        img, st = ab.t.kiosk_on_screen("ab-02-v2")
        menu = ab.ocr("ab-02-v2")
        check(str(AB_HIGH_SCORE) in menu, f"the menu does not show the high score {AB_HIGH_SCORE} (OCR read: {menu.strip()[:300]!r})")
        shown = ab.version_on_screen("ab-02-v2-system-tab", v2, v1)
        unmounted2 = ab.sticks_unmounted("once the operator menu is closed")
        disk2 = ab.system_disk("ab-02")
        report("update", True, f"{v1} on A -> Update from USB in the operator menu (the PIN from the state disk; none in either root) ({t_install:.0f} s) -> reboot -> {v2} on B, marked good; "
               f"coins=1 and the high score {AB_HIGH_SCORE} kept (on the menu's tile too); its System tab read '{shown}'; "
               f"boot 1: {clock}; {policy}; USB: {unmounted1}, with the System tab open {ab.mounted_for_operator}, "
               f"{unmounted2}; with a copy of the disk on USB: boot 1 {disk1}; boot 2 {disk2}; "
               f"boots {boot1:.0f} s and {boot2:.0f} s from start/reboot to READY; timeline: {ab.timeline()}")

        if "rollback" in steps:
            t1 = time.monotonic()
            # A bundle whose kernel panics (its initramfs has no init and the kernel alone
            # cannot reach the disk): panic=10 restarts the board, GRUB passes the slot whose
            # try never got confirmed, and B starts again.
            t_panic = ab.install("boardwalk-panic.raucb")
            ab.mark("installed (panic)")
            f = ab.facts()
            check(f.get("ORDER", "").split()[:1] == ["A"], f"after installing the panicking bundle A is not preferred: {f}")
            ab.reboot()
            trial = ab.wait_failed_trial(TRIAL_WAIT)
            check(trial == "A", f"the panicking bundle's boot took slot {trial}, not A")
            log = ab.boot_logs()[ab.boots - 1][1]
            check(PANIC_MARK in log, f"slot A's boot did not start the panicking bundle's initramfs: {log[-600:]}")
            slot = ab.wait_boot()
            check(slot == "B", f"after the kernel panic GRUB took slot {slot}, not B")
            f = ab.wait_confirmed("B")
            check(f.get("slot") == "B" and f.get("version") == v2, f"after the kernel panic: {f}, expected B with {v2}")
            check(f.get("A_TRY") == "1", f"slot A's unconfirmed try is not recorded: {f}")
            check(f.get("coins") == "1", f"the coins after the kernel panic: {f.get('coins')}, not 1")
            check(f.get("zombies_best") == str(AB_HIGH_SCORE), f"the high score after the kernel panic: {f.get('zombies_best')}")
            panicked = time.monotonic() - t1
            t2 = time.monotonic()
            t_install = ab.install("boardwalk-broken.raucb")
            ab.mark("installed")
            f = ab.facts()
            check(f.get("ORDER", "").split()[:1] == ["A"], f"after installing the broken bundle A is not preferred: {f}")
            ab.reboot()
            # The broken kiosk's boot, until the slot check gives up on it and reboots: its
            # trial limit, with the boot itself and the reboot on top.
            trial = ab.wait_failed_trial(TRIAL_WAIT)
            check(trial == "A", f"the broken bundle's boot took slot {trial}, not A")
            slot = ab.wait_boot()  # back on B
            check(slot == "B", f"after the failed trial GRUB took slot {slot}, not B")
            back = time.monotonic() - t2
            f = ab.wait_confirmed("B")
            check(f.get("slot") == "B" and f.get("version") == v2, f"after the failed trial: {f}, expected B with {v2}")
            check(f.get("A_OK") == "0", f"slot A is not marked bad: {f}")
            check(f.get("coins") == "1", f"the coins after the rollback: {f.get('coins')}, not 1")
            check(f.get("zombies_best") == str(AB_HIGH_SCORE), f"the high score after the rollback: {f.get('zombies_best')}")
            rc, log = ab.sh("grep 'trial boot failed' /boot/efi/boardwalk/slot-check.log | tail -1")
            check(rc == 0 and "slot A" in log, f"the slot check's log does not show slot A's failed trial: {log}")
            img, st = ab.t.kiosk_on_screen("ab-03-rolled-back")
            results.append(True)
            print(f"PASS {names['rollback']} ({time.monotonic() - t1:.1f} s): the panicking bundle: install {t_panic:.0f} s, "
                  f"its init exited (the kernel panicked) and the board restarted by itself (panic=10), "
                  f"back on B ({v2}) READY {panicked:.0f} s after its install, coins=1, A_TRY=1; "
                  f"the broken kiosk: install {t_install:.0f} s, "
                  f"back on B ({v2}) READY {back:.0f} s after the install; A_OK=0; coins=1; "
                  f"slot check: {log.split(' ', 1)[-1][:140]}; timeline: {ab.timeline(t1)}", flush=True)
            done.append("rollback")
    except Failed as e:
        detail = str(e) + (f"; timeline: {ab.timeline()}" if ab else "")
        for key in steps:
            if key not in done:
                report(key, False, detail)
                detail = "not reached"
    except Exception as e:
        traceback.print_exc(file=sys.stderr)
        detail = f"{type(e).__name__}: {e}" + (f"; timeline: {ab.timeline()}" if ab else "")
        for key in steps:
            if key not in done:
                report(key, False, detail)
                detail = "not reached"
    finally:
        if vb:
            try:
                with open(os.path.join(sub, "slot-check.log"), "w") as f:
                    f.write(vb.sh("cat /boot/efi/boardwalk/slot-check.log; rauc status 2>&1", timeout=30)[1])
            except Exception:
                pass
            save_journal_and_stop(vb, sub)


def classic_board(args, arch, testdata, host_binary, results):
    """The kernel + initrd board: the first boot and its checks, the broken-state and
    power-cut boots. False when the image could not be built."""
    state_disk = os.path.join(args.workdir, "state.img")
    vboard.make_state_disk(state_disk)
    # The disk as it was before the boot: the crash points replay the boot's writes onto it.
    shutil.copyfile(state_disk, os.path.join(args.workdir, "state-before.img"))
    t0 = time.monotonic()
    with open(os.path.join(args.workdir, "build.log"), "w") as log:
        try:
            kernel, initrd, cmdline = vboard.build(os.path.abspath(args.binary),
                                                   os.path.join(args.workdir, "image"), testdata, log=log, arch=arch)
        except Exception as e:
            print(f"FAIL build: {e} (see {log.name})")
            return False
    print(f"{arch} image built in {time.monotonic() - t0:.0f} s; booting the virtual board", flush=True)

    # The wear and crash-point steps (~3 min) run on the x86 board; on arm64 only when
    # asked (--only): the same kiosk code and ext4, and CI's time is short.
    ledger = arch == "amd64" or bool(args.only)
    vb = vboard.VirtualBoard(args.workdir, kernel, initrd, cmdline, arch=arch,
                             state_log=os.path.join(args.workdir, "state.log") if ledger else None)
    vb.start()
    t = SystemTest(vb, os.path.abspath(args.binary), args.workdir, os.path.abspath(host_binary))
    t.results = results
    try:
        steps = ([
            ("no clock, as a Pi: no RTC, the clock starts in 1970", t.no_clock),
        ] if arch == "arm64" else []) + ([
            # systemd-analyze takes minutes under arm64 emulation: there, asked for by --only.
            ("boot step by step: firmware, kernel, systemd, the kiosk's first frame", t.boot_steps),
        ] if ledger else []) + [
            ("screen: the kiosk, not a console", t.screen),
            ("runs as user boardwalk", t.user),
            ("hardening: exposure <= 1.0", t.hardening),
            ("passer-by: no key chord stops, restarts or switches the kiosk", t.passer_by),
            ("read-only root, writable state", t.root_readonly),
        ] + ([
            # Only where the board's profile runs the node exporter (qemu-x86_64; the arm64
            # board's profile has none, so its root stays without the exporter's packages).
            ("metrics: the node exporter, scraped from the host, has the kiosk's version, a coin and a play", t.metrics),
        ] if vb.exporter_port else []) + [
            ("a coin from the mech's own device is counted; a hot-plugged keyboard's 5 is not", t.coin),
            ("a full, then a read-only state partition: coins kept in memory and saved once it takes writes", t.state_unwritable),
            ("idle menu: CPU per thread, once started", t.idle_cpu),
        ] + ([
            ("SD card wear: nothing written idle; bytes per coin and per game", t.wear),
        ] if ledger else []) + [
            ("tap through the virtio tablet; sound in the wav", t.tap_and_sound),
            ("replayed touchscreen recording (evemu)", t.evemu),
            ("Beat Zombies: a tap on a zombie raises the score; the hit sound in the wav", t.beat_a_zombie),
            (f"kill -SEGV: back within {RESTART_LIMIT:g} s (or {RESTART_STARTS:g} of the board's own starts)", t.segv),
            ("SIGSTOP: the watchdog restarts it", t.watchdog),
            ("systemctl stop: the text console comes back", t.stop),
            ("exit to console (status 79): stays stopped, a login prompt, and back on start", t.exit_to_console),
        ]
        booted = t.run("boot: READY after the first frame", t.boot)
        # Working on one check (--only): a boot that failed its own figures (a restart on a
        # loaded machine) still lets the chosen checks run once the kiosk is up; the boot
        # stays counted as failed.
        if not booted and args.only:
            try:
                booted = t.wait_active(timeout=300).get("ActiveState") == "active"
            except (OSError, TimeoutError):
                booted = False
        if booted:
            for name, fn in steps:
                if args.only and fn.__name__ not in args.only.split(","):
                    continue
                if fn == t.evemu and not testdata:
                    results.append(False)
                    print(f"FAIL {name}: no shared/testdata/evemu beside the repo")
                    continue
                t.run(name, fn)
    finally:
        save_journal_and_stop(vb, args.workdir)
    if ledger and (not args.only or "crash_points" in args.only.split(",")):
        crash_points(args.workdir, t.coins_recorded, results)
    # The fault boots, each a QEMU of its own. The missing state partition's boot spends
    # most of its time with the guest idle, waiting out the device timeout (90 s), so it
    # runs beside the others (one emulated vCPU each, on two host cores).
    wanted = lambda step: not args.only or step in args.only.split(",")
    beside = None
    if wanted("broken_state"):
        beside = threading.Thread(target=state_partition_boot, name="state-missing",
                                  args=("missing", kernel, initrd, cmdline, args.workdir, results), kwargs={"arch": arch})
        beside.start()
        state_partition_boot("corrupt", kernel, initrd, cmdline, args.workdir, results, arch=arch)
    if wanted("coin_power_cut"):
        coin_power_cut(kernel, initrd, cmdline, args.workdir, results, arch=arch)
    if beside:
        beside.join()
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.environ.get("BOARDWALK_BIN", os.path.join(vboard.REPO, ".build/release/boardwalk")))
    ap.add_argument("--workdir", default=os.path.join(vboard.REPO, "out", "system-test"))
    ap.add_argument("--host-binary", help="the kiosk built for this machine, for host-side tools "
                    "(sound-export) when --binary is for another CPU (default: .build/release/boardwalk)")
    ap.add_argument("--only", help="comma-separated steps to run after the boot (method names: "
                    "screen,idle_cpu,beat_a_zombie,...); for working on one check. update and rollback "
                    "(the A/B disk board, x86) alone skip the kernel + initrd board")
    args = ap.parse_args()

    os.makedirs(args.workdir, exist_ok=True)
    arch = vboard.binary_arch(args.binary)
    host_binary = args.binary
    if arch != vboard.binary_arch(sys.executable):
        host_binary = args.host_binary or os.path.join(vboard.REPO, ".build/release/boardwalk")
    testdata = vboard.find_testdata()
    # The operator PIN of this image: known to the test (it checks the journal never shows
    # it); typed only by the A/B board's operator steps, on the pad. Not one a passer-by would try.
    os.environ["BOARDWALK_VB_PIN"] = "".join(str(secrets.randbelow(10)) for _ in range(4)) + "80"
    only = set(args.only.split(",")) if args.only else None
    # The A/B disk board's checks (x86): the rollback starts from the updated board, so
    # asking for it (--only rollback) runs the update first. BOARDWALK_AB_ROLLBACK=0 leaves
    # the rollback out of a full run (a quicker run while working on something else).
    rollback = (only is None and os.environ.get("BOARDWALK_AB_ROLLBACK", "1") != "0") or bool(only and "rollback" in only)
    update = only is None or rollback or "update" in only
    ab_steps = [k for k, wanted in (("update", update), ("rollback", rollback)) if wanted]
    results = []
    t0 = time.monotonic()
    # A killed test (CI timeout, Ctrl-C) must not leave QEMU running.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if only is None or not only <= {"update", "rollback"}:
        if not classic_board(args, arch, testdata, host_binary, results):
            print("0 passed, 1 failed")
            return 1
    if ab_steps and arch == "amd64":
        ab_updates(os.path.abspath(args.binary), args.workdir, results, testdata, ab_steps)
    elif ab_steps and only:
        results.append(False)
        print("FAIL update, rollback: the A/B disk board is x86 only (images/virtual-board/build-disk.sh)")
    passed = sum(results)
    failed = len(results) - passed
    print(f"artifacts in {args.workdir}; total {time.monotonic() - t0:.0f} s")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
