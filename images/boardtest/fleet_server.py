"""The fleet's server for the A/B board's fleet step (checks/updates.py): goosebit
(images/fleet/goosebit_server.py) on this machine, reached from the guest at
http://10.0.2.100 (QEMU's guestfwd; nothing else outside is reachable). The board is
enrolled as an operator would: its own [fleet] section (name, token) written to the state
partition, then the fleet's units started. Bundles are uploaded and assigned through
goosebit's management API; the board's rauc-hawkbit-updater (Debian's) polls, downloads and
installs them, and the board reboots by itself once its kiosk is idle
(images/fleet/boardwalk-fleet). docs/FLEET.md.
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fleet"))
import goosebit_server  # noqa: E402

TARGET = "ab-board"
GUEST_PORT = 80


def semver(n, base, word):
    """A version goosebit takes (it reads bundles' versions as semver): 0.N.0+BASE.WORD."""
    return f"0.{n}.0+{re.sub(r'[^0-9A-Za-z-]', '-', base)}.{word}"


class FleetServer:
    def __init__(self, workdir):
        self.server = goosebit_server.Goosebit(os.path.join(workdir, "goosebit"), poll_seconds=10)
        # The bundles it serves the board (checks/updates.py make_board): an update, a broken one.
        self.good_bundle = self.broken_bundle = None

    def start(self):
        self.server.start()
        return self

    @property
    def guestfwd(self):
        return [(GUEST_PORT, self.server.port)]

    def stop(self):
        self.server.stop()

    def device(self):
        return self.server.device(TARGET) or {}

    def state(self):
        d = self.device()
        return (f"{d.get('last_state')} sw_version={d.get('sw_version')} "
                f"assigned={(d.get('assigned_software') or {}).get('version')} hardware={(d.get('hardware') or {}).get('model')}")

    def wait(self, what, cond, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            d = self.device()
            if d and cond(d):
                return d
            time.sleep(2.0)
        raise TimeoutError(f"the server: {what} not within {timeout:.0f} s (device: {self.state()})")

    def enroll(self, ab, timeout=240):
        """The board's [fleet] on its state partition, the fleet's units started; waits for
        it to register (its attributes: RAUC's compatible as goosebit's hardware, its
        version). Returns seconds taken."""
        t0 = time.monotonic()
        rc, out = ab.sh(f"printf '[fleet]\\nserver = http://10.0.2.100:{GUEST_PORT}\\ntarget = {TARGET}\\n"
                        f"token = ab-board-test-token\\nretry_seconds = 20\\n' > /var/lib/boardwalk/fleet.conf && "
                        "systemctl restart boardwalk-fleet-config && "
                        "systemctl start boardwalk-fleet-report rauc-hawkbit-updater boardwalk-fleet-reboot && "
                        "systemctl is-active rauc-hawkbit-updater boardwalk-fleet-reboot", timeout=120)
        if rc != 0:
            raise RuntimeError(f"the fleet's units did not start: {out[-600:]}")
        self.wait("the board registered", lambda d: (d.get("hardware") or {}).get("model") not in (None, "default")
                  and d.get("sw_version"), timeout)
        return time.monotonic() - t0

    def assign(self, bundle, timeout=900):
        """BUNDLE uploaded and assigned to the board (forced: a board whose last update failed
        gets no other until told); waits for the board to report the install's end (success:
        RAUC wrote the slot). Returns (software id, version, seconds from the assignment)."""
        sw = self.server.upload(bundle)
        version = next(s["version"] for s in self.server.api("GET", "/api/v1/software")["software"] if s["id"] == sw)
        t0 = time.monotonic()
        self.server.api("PATCH", "/api/v1/devices", {"devices": [TARGET], "software": str(sw), "force_update": True})
        self.wait(f"the install of {version} reported", lambda d: str(d.get("last_state")).lower() in ("finished", "error")
                  and d.get("sw_version") == version, timeout)
        return sw, version, time.monotonic() - t0

    def wait_failure(self, version, timeout=300):
        """After a rollback: the board told the server (its report at boot)."""
        return self.wait(f"the failure of {version}", lambda d: str(d.get("last_state")).lower() == "error", timeout)
