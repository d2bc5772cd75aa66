"""The kiosk on a virtual board as the system test's checks see it from the host: its unit,
its journal, its screen, its counters on the state partition, and a few timings kept
across checks (the start at boot, the coins seen on disk)."""
import base64
import os
import time

from . import crashpoints, screendump
from .results import require

READY_TIMEOUT = float(os.environ.get("BOARDWALK_VB_READY_TIMEOUT", "600"))
READY_MARK = r"BW-MARK ready uptime=([0-9.]+)"
JOURNAL = "journalctl -b -u boardwalk.service --no-pager -o cat"
# Where the menu's tiles are, as fractions of the screen: a tap on a tile opens its game
# (the first, Beat Zombies; the second), one below them only wakes the attract mode.
FIRST_TILE, SECOND_TILE, BELOW_TILES = (0.1375, 0.55), (0.375, 0.55), (0.5, 0.95)


def wait_until(condition, timeout, every=1.0):
    """Polls condition() until it is true or timeout seconds pass; returns its last value."""
    deadline = time.monotonic() + timeout
    value = condition()
    while not value and time.monotonic() < deadline:
        time.sleep(every)
        value = condition()
    return value


def fields(out):
    """`key=value` lines as a dict."""
    return dict(l.split("=", 1) for l in out.splitlines() if "=" in l)


class Kiosk:
    def __init__(self, vb, host_binary=None, sounds_dir=None):
        self.vb = vb
        # Runs on this machine (sound-export): the kiosk built for its CPU.
        self.host_binary = host_binary
        self.sounds_dir = sounds_dir
        self.size = (1280, 800)
        # (QEMU start to READY, the kiosk's exec to READY) at boot, once measured.
        self.first_frame = None
        # For crashpoints.py, each with the entries in the state disk's write log then:
        # (coins, entries, the books' reset mark) when the kiosk had reported each coin
        # recorded; (file, bytes, entries) as the test read a state file on the board;
        # (reset mark, entries before asking, entries once done) for each books reset.
        self.coins_recorded = []
        self.files_read = []
        self.resets = []

    def sh(self, cmd, timeout=60):
        return self.vb.sh(cmd, timeout=timeout)

    def unit(self, *props):
        rc, out = self.sh("systemctl show boardwalk.service " + " ".join("-p " + p for p in props))
        return fields(out)

    def pid(self):
        return self.unit("MainPID")["MainPID"]

    def wait_active(self, timeout=120):
        """The kiosk as it is now, once it is up (an earlier step may have restarted it)."""
        deadline = time.monotonic() + timeout
        while True:
            u = self.unit("MainPID", "ActiveState", "NRestarts")
            if u.get("ActiveState") == "active" or time.monotonic() > deadline:
                return u
            time.sleep(1.0)

    def require_active(self):
        """The running kiosk's unit properties; Failed when it is not running."""
        u = self.wait_active()
        require(u.get("ActiveState") == "active", f"the kiosk is not running before the test: {u}")
        return u

    def wait_ready(self):
        """After the board's start: the READY marker, the command channel and an active unit."""
        m, _ = self.vb.wait_serial(READY_MARK, READY_TIMEOUT)
        require(m, f"the kiosk never reported READY within {READY_TIMEOUT:.0f} s")
        require(self.vb.wait_shell(300), "the guest's command channel never answered")
        u = self.wait_active()
        require(u.get("ActiveState") == "active", f"boardwalk.service is not active: {u}")

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

    def journal_line(self, pattern):
        """The first line of the kiosk's journal (this boot) matching a grep pattern, or None."""
        rc, out = self.sh(f"{JOURNAL} | grep -m1 -e '{pattern}'")
        return out.strip() if rc == 0 and out.strip() else None

    def journal_line_last(self, pattern):
        """The last line of the kiosk's journal (this boot) matching a grep pattern, or None."""
        rc, out = self.sh(f"{JOURNAL} | grep -e '{pattern}' | tail -1")
        return out.strip() if rc == 0 and out.strip() else None

    def wait_journal(self, pattern, timeout):
        """Waits for a line of the kiosk's journal (this boot) matching a grep pattern."""
        return wait_until(lambda: self.journal_line(pattern), timeout, every=5.0) or None

    def journal_count(self, pattern):
        """How many lines of the kiosk's journal (this boot) match a grep pattern."""
        rc, out = self.sh(f"{JOURNAL} | grep -c -e '{pattern}'")
        return int(out.strip() or 0)

    def counter(self, name, missing=0):
        """A counter from the state partition's `counters` file (missing: when unreadable)."""
        rc, out = self.sh(f"sed -n 's/^{name}=//p' /var/lib/boardwalk/counters")
        return int(out.strip() or 0) if rc == 0 else missing

    def log_entries(self):
        """Entries in the state disk's write log now (0 when it is not logged)."""
        return crashpoints.entry_count(self.vb.state_log) if getattr(self.vb, "state_log", None) else 0

    def note_coin(self, coins, reset_mark=0):
        """Records that COINS coins are on disk now (since the books reset RESET_MARK), for
        the crash points."""
        if getattr(self.vb, "state_log", None):
            self.coins_recorded.append((coins, self.log_entries(), reset_mark))

    def note_files(self):
        """Reads the state files on the board (once they are on disk: after a quiet spell)
        for the crash points: each must be there by now. Returns {name: bytes}."""
        rc, out = self.sh("cd /var/lib/boardwalk && for f in " + " ".join(crashpoints.STATE_FILES)
                          + "; do [ -f $f ] && echo $f $(base64 -w0 $f); done")
        at = self.log_entries()
        files = {}
        for line in out.splitlines():
            name, _, text = line.partition(" ")
            if name in crashpoints.STATE_FILES:
                files[name] = base64.b64decode(text)
                self.files_read.append((name, files[name], at))
        return files

    def crash_notes(self):
        """What the crash points check against, as JSON (crash-expect.json)."""
        return {"coins": self.coins_recorded, "resets": self.resets,
                "files": [(name, data.decode("utf-8", "replace"), at) for name, data, at in self.files_read]}

    def shot(self, name):
        img = self.vb.screendump(name)
        self.size = (img.width, img.height)
        return img

    def on_screen(self, name):
        """A screendump that must show the kiosk: not a text console, not blank."""
        img = self.shot(name)
        st = img.stats()
        require(not screendump.looks_like_console(st),
                f"{name}: looks like a text console (black {st['black']:.0%}, grey {st['grey']:.0%})")
        require(st["colours"] >= 3, f"{name}: a blank screen ({st['colours']} colours)")
        return img, st

    def tap(self, fx, fy):
        """A tap at a point given as fractions of the screen; returns the pixel (x, y)."""
        w, h = self.size
        x, y = int(w * fx), int(h * fy)
        self.vb.tap(x, y, w, h)
        return x, y

    def restart_breakdown(self, t0, u):
        """Where a restart's time went, from systemd's timestamps (guest seconds)."""
        p = self.unit("InactiveEnterTimestampMonotonic", "InactiveExitTimestampMonotonic")
        died = int(p["InactiveEnterTimestampMonotonic"]) / 1e6
        started = int(p["InactiveExitTimestampMonotonic"]) / 1e6
        ready = int(u["ActiveEnterTimestampMonotonic"]) / 1e6
        return f"old process gone after {died - t0:.1f} s, new start {started - died:.1f} s later, READY {ready - started:.1f} s after that"


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
