#!/usr/bin/env python3
"""Tests for images/fleet/boardwalk-fleet, the cabinet's side of the fleet: the real script
run with sh, with rauc and systemctl in front of it on PATH as small fakes that read and write
files (RAUC's slots, the kiosk unit's state, the reboot), the kiosk's activity file and the
config files as files. What it must do on a cabinet: write rauc-hawkbit-updater's config
from [fleet] (and nothing without a server), and reboot into an installed update only once
the kiosk is idle or closed, never in a game or the operator menu.

    python3 images/fleet/test_fleet.py
"""
import os
import subprocess
import tempfile
import textwrap
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "boardwalk-fleet")

FAKES = {
    "systemctl": r"""
        case "$1" in
        show) cat "$FAKE/unit" ;;
        reboot) echo reboot >> "$FAKE/calls" ;;
        *) exit 2 ;;
        esac
    """,
    # The DDI server: each call's method and URL logged; answers from files.
    "curl": r"""
        url=""; method=GET
        while [ $# -gt 0 ]; do
            case "$1" in -X) method=$2; shift ;; -H|--data|--max-time) shift ;; -*) ;; *) url=$1 ;; esac
            shift
        done
        hdr=$(cat)
        echo "$method $url $hdr" >> "$FAKE/curl"
        [ -e "$FAKE/server-down" ] && exit 7
        case "$method $url" in
        GET*) cat "$FAKE/poll" ;;
        *) echo '{}' ;;
        esac
    """,
    "rauc": r"""
        [ "$1" = status ] || exit 2
        cat "$FAKE/rauc-status"
    """,
}


def rauc_status(booted, primary):
    """RAUC's shell output (as RAUC 1.8 prints it) for slots A and B."""
    names = {"A": "rootfs.0", "B": "rootfs.1"}
    return (f"RAUC_SYSTEM_COMPATIBLE='boardwalk-qemu-x86_64'\nRAUC_SYSTEM_VARIANT=''\n"
            f"RAUC_SYSTEM_BOOTED_BOOTNAME='{booted}'\nRAUC_BOOT_PRIMARY='{names[primary]}'\n"
            f"RAUC_SYSTEM_SLOTS='rootfs.1 rootfs.0'\nRAUC_SLOTS='1 2'\n"
            f"RAUC_SLOT_STATE_1='{'booted' if booted == 'B' else 'inactive'}'\nRAUC_SLOT_BOOTNAME_1='B'\n"
            f"RAUC_SLOT_STATUS_BUNDLE_VERSION_1='2.0.0'\n"
            f"RAUC_SLOT_STATE_2='{'booted' if booted == 'A' else 'inactive'}'\nRAUC_SLOT_BOOTNAME_2='A'\n"
            f"RAUC_SLOT_STATUS_BUNDLE_VERSION_2='1.0.0'\n")


class Cabinet:
    def __init__(self, tmp):
        self.dir = tmp
        self.fake = os.path.join(tmp, "fake")
        os.makedirs(self.fake)
        bindir = os.path.join(tmp, "bin")
        os.makedirs(bindir)
        for name, body in FAKES.items():
            path = os.path.join(bindir, name)
            with open(path, "w") as f:
                f.write("#!/bin/sh\n" + textwrap.dedent(body))
            os.chmod(path, 0o755)
        self.conf = os.path.join(tmp, "boardwalk.conf")
        self.activity = os.path.join(tmp, "boardwalk-activity.prom")
        self.write("cmdline", "quiet rauc.slot=A panic=10\n")
        self.write("system.conf", "[system]\ncompatible=boardwalk-qemu-x86_64\nbootloader=grub\n")
        self.write("os-release", 'ID=debian\nIMAGE_ID=boardwalk\nIMAGE_VERSION="2026.12.1+alpha"\n')
        self.unit("active")
        self.slots(booted="A", primary="A")
        self.kiosk("play")
        self.env = dict(os.environ, PATH=bindir + ":" + os.environ["PATH"], FAKE=self.fake,
                        BW_FLEET_CONFS=self.conf, BW_FLEET_CMDLINE=os.path.join(self.fake, "cmdline"),
                        BW_FLEET_OS_RELEASE=os.path.join(self.fake, "os-release"),
                        BW_FLEET_ACTIVITY=self.activity, BW_FLEET_POLL="0.1", BW_FLEET_SETTLE="2",
                        BW_FLEET_USER="no-such-user-bw",
                        BW_FLEET_RAUC_CONF=os.path.join(self.fake, "system.conf"),
                        BW_FLEET_RECORD_DIR=os.path.join(tmp, "esp"), BW_FLEET_METRICS=os.path.join(tmp, "m", "fleet.prom"),
                        BW_FLEET_UPDATER_CONF=os.path.join(tmp, "updater.conf"), BW_FLEET_SLOT_CHECK_CONF="/nonexistent")

    def write(self, name, text):
        with open(os.path.join(self.fake, name), "w") as f:
            f.write(text)

    def unit(self, state):
        self.write("unit", state + "\n")

    def slots(self, booted, primary):
        self.write("rauc-status", rauc_status(booted, primary))

    def kiosk(self, state):
        with open(self.activity + ".new", "w") as f:
            f.write(f'# HELP boardwalk_activity x\n# TYPE boardwalk_activity gauge\nboardwalk_activity{{state="{state}"}} 1\n')
        os.rename(self.activity + ".new", self.activity)

    def reboots(self):
        try:
            with open(os.path.join(self.fake, "calls")) as f:
                return f.read().split().count("reboot")
        except FileNotFoundError:
            return 0

    def run(self, *args):
        return subprocess.run(["sh", SCRIPT, *args], env=self.env, capture_output=True, text=True, timeout=30)

    def start_loop(self):
        return subprocess.Popen(["sh", SCRIPT, "reboot-when-idle"], env=self.env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


class ConfigTests(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.cab = Cabinet(self.tmp.name)
        self.out = os.path.join(self.tmp.name, "run", "rauc-hawkbit-updater.conf")

    def tearDown(self):
        self.tmp.cleanup()

    def config(self, text):
        with open(self.cab.conf, "w") as f:
            f.write(text)
        return self.cab.run("config", self.out)

    def parsed(self):
        sections, cur = {}, None
        with open(self.out) as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                if line.startswith("["):
                    cur = sections.setdefault(line.strip("[]"), {})
                else:
                    k, v = (x.strip() for x in line.split("=", 1))
                    cur[k] = v
        return sections

    def test_no_server_no_updater(self):
        r = self.config("[audio]\nvolume = 40\n[fleet]\n# server = http://fleet:8080\ntoken = x\n")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("no [fleet] server", r.stdout)
        self.assertFalse(os.path.exists(self.out), "no config: the updater's unit does not start")

    def test_a_server_without_credentials_stays_off(self):
        r = self.config("[fleet]\nserver = https://fleet.example\n")
        self.assertEqual(r.returncode, 1)
        self.assertFalse(os.path.exists(self.out))

    def test_the_updaters_config(self):
        self.cab.kiosk("idle")
        r = self.config("[fleet]\nserver = http://10.0.2.2:60053/\ntarget = cab-07\ntoken = s3cret\n"
                        "retry_seconds = 60\n[audio]\nvolume = 40\n")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("s3cret", r.stdout + r.stderr, "the token stays out of the journal")
        self.assertEqual(os.stat(self.out).st_mode & 0o777, 0o600, "the token is root's only (and the updater's group on a cabinet)")
        c = self.parsed()
        self.assertEqual(c["client"]["hawkbit_server"], "10.0.2.2:60053")
        self.assertEqual(c["client"]["ssl"], "false")
        self.assertEqual(c["client"]["target_name"], "cab-07")
        self.assertEqual(c["client"]["auth_token"], "s3cret")
        self.assertEqual(c["client"]["tenant_id"], "DEFAULT")
        self.assertEqual(c["client"]["retry_wait"], "60")
        self.assertEqual(c["client"]["post_update_reboot"], "false", "the reboot waits for an idle kiosk")
        self.assertEqual(c["client"]["bundle_download_location"], "/run/boardwalk-fleet/bundle.raucb")
        self.assertNotIn("stream_bundle", c["client"])
        self.assertEqual(c["device"]["sw_version"], "2026.12.1+alpha")
        self.assertEqual(c["device"]["hw_boardname"], "boardwalk-qemu-x86_64", "RAUC's compatible")
        self.assertEqual(c["device"]["slot"], "A")
        self.assertEqual(c["device"]["kiosk_state"], "idle")

    def test_streaming_https_and_later_files_win(self):
        second = os.path.join(self.tmp.name, "second.conf")
        with open(second, "w") as f:
            f.write("[fleet]\nstream = true\ntarget = cab-09\n")
        self.cab.env["BW_FLEET_CONFS"] = self.cab.conf + " " + second
        r = self.config("[fleet]\nserver = fleet.example:8443\ntarget = cab-01\ntoken = t\n")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        c = self.parsed()
        self.assertEqual(c["client"]["ssl"], "true", "https without a scheme")
        self.assertEqual(c["client"]["hawkbit_server"], "fleet.example:8443")
        self.assertEqual(c["client"]["target_name"], "cab-09")
        self.assertEqual(c["client"]["stream_bundle"], "true")
        self.assertNotIn("bundle_download_location", c["client"])


class RebootWhenIdleTests(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.cab = Cabinet(self.tmp.name)
        self.loop = None

    def tearDown(self):
        if self.loop and self.loop.poll() is None:
            self.loop.kill()
            self.loop.wait()
        if self.loop:
            self.loop.stdout.close()
        self.tmp.cleanup()

    def wait_reboot(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if self.cab.reboots():
                return True
            time.sleep(0.1)
        return False

    def test_nothing_installed_no_reboot(self):
        self.cab.kiosk("idle")
        self.loop = self.cab.start_loop()
        self.assertFalse(self.wait_reboot(1.5))

    def test_waits_through_a_game_and_the_operator_menu_then_reboots_when_idle(self):
        self.cab.slots(booted="A", primary="B")   # rauc install finished: B boots next
        self.loop = self.cab.start_loop()
        self.assertFalse(self.wait_reboot(1.5), "in play: no reboot")
        self.cab.kiosk("service")
        self.assertFalse(self.wait_reboot(1.5), "the operator menu: no reboot")
        self.cab.kiosk("idle")
        time.sleep(0.5)
        self.cab.kiosk("play")                    # a player walks up before it settles
        self.assertFalse(self.wait_reboot(2.5), "idle for less than the settle time (2 s here): no reboot")
        self.cab.kiosk("closed")
        self.assertTrue(self.wait_reboot(5), "closed: reboots")
        self.loop.wait(timeout=5)
        self.assertEqual(self.cab.reboots(), 1)
        out = self.loop.stdout.read()
        self.assertIn("waits for the kiosk to be idle or closed (now: play)", out)
        self.assertIn("the kiosk is closed: rebooting", out)
        with open(os.path.join(self.tmp.name, "esp", "fleet-pending")) as f:
            self.assertEqual(f.read(), "slot=B version=2.0.0\n", "what the next boot compares with")

    def test_a_stopped_kiosk_does_not_hold_the_update(self):
        self.cab.slots(booted="B", primary="A")
        self.cab.unit("failed")
        self.loop = self.cab.start_loop()
        self.assertTrue(self.wait_reboot(5))

    def test_after_a_rollback_no_reboot(self):
        # The trial slot was marked bad: RAUC's next boot is the booted slot again.
        self.cab.slots(booted="B", primary="B")
        self.cab.kiosk("idle")
        self.loop = self.cab.start_loop()
        self.assertFalse(self.wait_reboot(1.5))


class ReportTests(unittest.TestCase):
    """At boot: an update that did not come up is told to the server and to Prometheus."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.cab = Cabinet(self.tmp.name)
        with open(os.path.join(self.tmp.name, "updater.conf"), "w") as f:
            f.write("[client]\nhawkbit_server = 10.0.2.100:8080\nssl = false\ntenant_id = DEFAULT\n"
                    "target_name = cab-07\nauth_token = s3cret\n[device]\nhw_boardname = boardwalk-qemu-x86_64\n")
        self.cab.write("poll", '{"config":{"polling":{"sleep":"00:00:10"}},"_links":{"deploymentBase":'
                       '{"href":"http://10.0.2.100:8080/DEFAULT/controller/v1/cab-07/deploymentBase/3"}}}')
        os.makedirs(os.path.join(self.tmp.name, "esp"))
        self.pending = os.path.join(self.tmp.name, "esp", "fleet-pending")

    def tearDown(self):
        self.tmp.cleanup()

    def calls(self):
        try:
            with open(os.path.join(self.cab.fake, "curl")) as f:
                return f.read().splitlines()
        except FileNotFoundError:
            return []

    def metric(self):
        with open(os.path.join(self.tmp.name, "m", "fleet.prom")) as f:
            return [line for line in f.read().splitlines() if not line.startswith("#")]

    def test_nothing_pending(self):
        r = self.cab.run("report")
        self.assertEqual(r.returncode, 0)
        self.assertEqual(self.calls(), [])

    def test_the_update_came_up(self):
        with open(self.pending, "w") as f:
            f.write("slot=A version=2026.12.1+alpha\n")
        r = self.cab.run("report")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.calls(), [], "the updater said success already")
        self.assertEqual(self.metric(), ['boardwalk_update_failed{version="2026.12.1+alpha",reason="none"} 0'])

    def test_rolled_back_is_told_once(self):
        with open(self.pending, "w") as f:
            f.write("slot=B version=2.0.0\n")   # installed into B; the board runs A again
        r = self.cab.run("report")
        self.assertEqual(r.returncode, 0, r.stderr)
        calls = self.calls()
        base = "http://10.0.2.100:8080/DEFAULT/controller/v1/cab-07"
        self.assertEqual([c.split(" ")[:2] for c in calls],
                         [["PUT", base + "/configData"], ["GET", base], ["POST", base + "/deploymentBase/3/feedback"]])
        self.assertTrue(all(c.endswith("Authorization: TargetToken s3cret") for c in calls), calls)
        self.assertIn("told the server: action 3 failed", r.stdout)
        self.assertNotIn("s3cret", r.stdout + r.stderr)
        self.assertEqual(self.metric(), ['boardwalk_update_failed{version="2.0.0",reason="rolled back"} 1'])
        r = self.cab.run("report")   # the next boot: said already
        self.assertEqual(len(self.calls()), 3)
        self.assertEqual(self.metric(), ['boardwalk_update_failed{version="2.0.0",reason="rolled back"} 1'])

    def test_server_down_tries_at_the_next_boot(self):
        with open(self.pending, "w") as f:
            f.write("slot=B version=2.0.0\n")
        open(os.path.join(self.cab.fake, "server-down"), "w").close()
        r = self.cab.run("report")
        self.assertEqual(r.returncode, 0)
        self.assertIn("trying at the next boot", r.stdout)
        os.unlink(os.path.join(self.cab.fake, "server-down"))
        self.cab.run("report")
        self.assertEqual(self.calls()[-1].split(" ")[0], "POST")


if __name__ == "__main__":
    unittest.main()
