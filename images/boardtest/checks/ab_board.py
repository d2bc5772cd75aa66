"""The A/B disk board across its own reboots (updates and rollbacks): boots counted by
GRUB's slot lines, what the boot loader's environment and the state say, the board's own
disks beside look-alike USB copies, and `rauc install` from the command line."""
import os
import re
import time

from ..kiosk import READY_TIMEOUT, Kiosk, fields
from ..results import Failed, require

# The timeline's words for a boot that QEMU's hardware watchdog (i6300esb) ended.
WATCHDOG_RESET = "reset by the hardware watchdog"


class ABBoard:
    """The A/B disk board across its own reboots: QEMU keeps running while the guest
    restarts (an update, a rollback). Boots are counted by GRUB's line naming the slot it
    takes ("Boardwalk: slot X") on the serial log; a boot whose kiosk reached READY then
    writes one ready marker. A trial boot whose kiosk never starts writes none: its start
    job stays pending through every automatic restart until the slot check reboots."""

    def __init__(self, vb, directory):
        self.vb, self.dir = vb, directory
        # The board's waits, scaled for its CPU's emulation (board.SLOWDOWN).
        self.slow = vb.slowdown
        self.kiosk = Kiosk(vb)
        self.boots = 0
        # (what, host monotonic time): reboots asked, GRUB's lines and ready markers as
        # first seen, so each step can say where its minutes went (the firmware, the boot).
        self.marks = []
        self.started = time.monotonic()

    def mark(self, what, at=None):
        self.marks.append((what, time.monotonic() if at is None else at))

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
                    if not any(what == last for what, _ in self.marks):
                        self._mark_watchdog_reset(n - 1)
                    self.mark(f"boot {n}: GRUB {boots[n - 1][0]}")
                return boots[n - 1][0]
            require(self.vb.alive(), "QEMU exited")
            time.sleep(0.5)
        raise Failed(f"boot {n}: GRUB did not start it within {timeout:.0f} s")

    def _mark_watchdog_reset(self, n):
        """Boot N ended without the kernel's restart line: marked as the watchdog's when QEMU
        recorded its WATCHDOG event after the boot began."""
        began = [t for what, t in self.marks if what.startswith(f"boot {n}: GRUB")]
        resets = self.vb.watchdog_resets(since=began[-1]) if began else []
        if resets:
            self.mark(f"boot {n}: {WATCHDOG_RESET}", at=resets[0])

    def ended_by_watchdog(self, n):
        """Boot N (1-based) ended when the hardware watchdog reset the board."""
        return any(what == f"boot {n}: {WATCHDOG_RESET}" for what, _ in self.marks)

    def wait_boot(self):
        """Waits for the next boot, its ready marker, the command channel and an active
        (READY) kiosk; returns the boot's slot."""
        self.boots += 1
        ready_timeout = READY_TIMEOUT * self.slow
        slot = self.wait_grub(self.boots, ready_timeout)
        deadline = time.monotonic() + ready_timeout
        while time.monotonic() < deadline:
            log = self.boot_logs()[self.boots - 1][1]
            if "BW-MARK ready" in log:
                self.mark("READY")
                break
            require(len(self.boot_logs()) == self.boots, f"boot {self.boots} (slot {slot}) restarted before READY")
            require(self.vb.alive(), "QEMU exited")
            time.sleep(0.5)
        else:
            raise Failed(f"boot {self.boots} (slot {slot}): no ready marker within {ready_timeout:.0f} s")
        require(self.vb.wait_shell(300 * self.slow), f"boot {self.boots}: the guest's command channel never answered")
        u = self.kiosk.wait_active(180 * self.slow)
        require(u.get("ActiveState") == "active", f"boot {self.boots}: boardwalk.service is not active: {u}")
        return slot

    def wait_failed_trial(self, timeout):
        """Waits for a trial boot whose kiosk never reaches READY and the reboot that ends
        it (the slot check's); returns the trial's slot. The next boot is wait_boot's."""
        self.boots += 1
        slot = self.wait_grub(self.boots, READY_TIMEOUT * self.slow)
        try:
            self.wait_grub(self.boots + 1, timeout * self.slow)
        except Failed as e:
            raise Failed(f"{e}; {self.trial_state()}")
        log = self.boot_logs()[self.boots - 1][1]
        require("ActiveState=active" not in log, f"the trial boot's kiosk reported READY: {log[-400:]}")
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
        self.vb.shell.close()

    def facts(self):
        """The booted slot, the image's version, the boot loader's environment, the coins."""
        rc, out = self.sh("sed -n 's/.*rauc\\.slot=\\([AB]\\).*/slot=\\1/p' /proc/cmdline; "
                          "sed -n 's/^IMAGE_VERSION=/version=/p' /etc/os-release; "
                          "grub-editenv /boot/efi/EFI/BOOT/grubenv list; "
                          "sed -n 's/^coins=/coins=/p' /var/lib/boardwalk/counters; "
                          "sed -n 's/^zombies\\.best=/zombies_best=/p' /var/lib/boardwalk/scores; "
                          "echo conf_pins=$(grep -c '^[[:space:]]*operator_pin' /etc/boardwalk/boardwalk.conf); "
                          "test -s /var/lib/boardwalk/operator-pin && echo state_pin=1")
        return fields(out)

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
        f = fields(out)
        with open(os.path.join(self.dir, f"{name}-system-disk.txt"), "w") as fh:
            fh.write(out + "\n")
        copies, state_copies = f.get("copies", "").split(), f.get("state_copies", "").split()
        require(any(c.startswith("/dev/sd") for c in copies) and any(c.startswith("/dev/vd") for c in copies),
              f"{name}: the root partition's UUID is not on both the boot disk and the USB copy: {copies}")
        require(any(c.startswith("/dev/sd") for c in state_copies),
              f"{name}: the USB copy of the state disk is not there: {state_copies}")
        for key in ("root", "esp", "state", "slot0", "slot1", "partuuid_link", "label_link", "esp_label_link"):
            require(f.get(key, "").startswith("/dev/vd"), f"{name}: {key} is {f.get(key)!r}, not on the board's own disks: {f}")
        require(f["root"] == f["partuuid_link"], f"{name}: root {f['root']} is not root=PARTUUID's link {f['partuuid_link']}")
        require(f.get("rauc_rc") == "0", f"{name}: rauc status failed with the copy plugged in: {out[-400:]}")
        return (f"root {f['root']} (PARTUUID {f['root_uuid'][:8]}..., also on {' '.join(c for c in copies if c.startswith('/dev/sd'))}), "
                f"ESP {f['esp']}, state {f['state']}, slots {f['slot0']} {f['slot1']}, rauc booted from {f.get('booted', '?')}")

    def clock_and_watchdog(self):
        """The board's clock after a start at RTC 1970 (what systemd made of it), the RTC
        itself (none on arm64: as on a Pi, the profile keeps its driver out), and the
        hardware watchdog systemd feeds. Returns a summary."""
        rc, out = self.sh("echo now=$(date -u +%Y-%m-%dT%H:%M:%SZ); echo rtc=$(cat /sys/class/rtc/rtc0/date 2>/dev/null); "
                          "echo wd_state=$(cat /sys/class/watchdog/watchdog0/state 2>/dev/null); "
                          "echo wd_timeout=$(cat /sys/class/watchdog/watchdog0/timeout 2>/dev/null); "
                          "echo wd_identity=$(cat /sys/class/watchdog/watchdog0/identity 2>/dev/null | tr ' ' _)")
        f = fields(out)
        require(f.get("rtc", "")[:4] < "2000", f"the board's RTC does not start in 1970 as a Pi's clock would: {f}")
        require(f.get("wd_state") == "active" and f.get("wd_timeout") == "60",
              f"no hardware watchdog fed by systemd (the test image's RuntimeWatchdogSec=60s): {f}")
        rtc = f"the RTC at {f['rtc']}" if f.get("rtc") else "no RTC"
        return f"clock {f.get('now')} with {rtc}; watchdog {f.get('wd_identity')} active, {f.get('wd_timeout')} s"

    def dbus_policy(self):
        """The kiosk's user may not call RAUC's Mark (which could switch or condemn a slot
        without an update): the D-Bus policy lets it call only Info and InstallBundle."""
        rc, out = self.sh("setpriv --reuid=boardwalk --regid=boardwalk --init-groups busctl --system call "
                          "de.pengutronix.rauc / de.pengutronix.rauc.Installer Mark ss bad other 2>&1")
        require(rc != 0 and "Access denied" in out, f"the kiosk's user could call RAUC's Mark ({rc}): {out[-300:]}")
        return "Mark refused to the kiosk's user"

    def wait_confirmed(self, slot, timeout=120):
        """Waits for the slot check to mark SLOT good (its X_TRY back to 0, X_OK 1)."""
        timeout *= self.slow
        deadline = time.monotonic() + timeout
        f = {}
        while time.monotonic() < deadline:
            f = self.facts()
            if f.get(f"{slot}_OK") == "1" and f.get(f"{slot}_TRY") == "0":
                return f
            time.sleep(2.0)
        raise Failed(f"slot {slot} was not marked good within {timeout} s: {f}")

    def install(self, bundle_name, timeout=900):
        """`rauc install` from the second disk (the command-line path), in the background
        (the command channel answers within 120 s; an install under TCG can take longer)."""
        rc, out = self.sh("mkdir -p /run/bundles && (mountpoint -q /run/bundles || "
                          "mount -o ro /dev/disk/by-id/virtio-usb0 /run/bundles) && ls /run/bundles")
        require(rc == 0 and bundle_name in out.split(), f"the bundle disk is not there or lacks {bundle_name}: {out}")
        self.sh("rm -f /run/rauc-install.rc; setsid sh -c 'rauc install /run/bundles/" + bundle_name +
                " > /run/rauc-install.log 2>&1; echo $? > /run/rauc-install.rc' >/dev/null 2>&1 &")
        timeout *= self.slow
        t0 = time.monotonic()
        while time.monotonic() < t0 + timeout:
            rc, out = self.sh("cat /run/rauc-install.rc 2>/dev/null")
            if out:
                rc, log = self.sh("tail -5 /run/rauc-install.log")
                require(out == "0", f"rauc install {bundle_name} failed ({out}): {log}")
                return time.monotonic() - t0
            time.sleep(3.0)
        raise Failed(f"rauc install {bundle_name} did not finish within {timeout} s")
