#!/usr/bin/env python3
"""The cabinet's report after a rollback (images/fleet/boardwalk-fleet report, with the real
curl) against a real goosebit (images/fleet/goosebit_server.py, from PyPI, cached): a cabinet
registers and installs a bundle as rauc-hawkbit-updater does (DDI: poll, configData,
deploymentBase, download, feedback), the server records the success; the cabinet then comes
back on its old slot and its boot's report must leave the server showing the failure, the
cabinet's real version, and no further offer of that bundle.

    python3 images/fleet/test_fleet_server.py     (make fleet-test)
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import goosebit_server  # noqa: E402



def bundle(tmp, version, compatible="boardwalk-qemu-x86_64"):
    """A small signed RAUC bundle (rauc on this machine) with VERSION in its manifest."""
    return goosebit_server.signed_bundle(tmp, version, compatible, goosebit_server.bundle_keys(tmp), 64 * 1024)


class ReportAgainstGoosebit(unittest.TestCase):
    def test_rollback_reported(self):
        with tempfile.TemporaryDirectory() as tmp:
            server = goosebit_server.Goosebit(os.path.join(tmp, "server")).start()
            try:
                self.run_flow(tmp, server)
            finally:
                server.stop()

    def run_flow(self, tmp, server):
        base = f"{server.url}/DEFAULT/controller/v1/cab-07"

        def ddi(method, url, body=None):
            req = urllib.request.Request(url, data=json.dumps(body).encode() if body else None, method=method,
                                         headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=30) as r:
                data = r.read()
            return json.loads(data) if data[:1] in (b"{", b"[") else data

        # What rauc-hawkbit-updater does: poll, register its attributes, poll again.
        self.assertIn("configData", ddi("GET", base)["_links"])
        ddi("PUT", base + "/configData", {"mode": "merge", "data": {"hw_boardname": "boardwalk-qemu-x86_64",
                                                                     "sw_version": "0.2.0+bravo", "slot": "A"}})
        self.assertEqual(ddi("GET", base)["_links"], {}, "nothing assigned yet")
        sw = server.upload(bundle(tmp, "0.3.0+broken"))
        server.api("PATCH", "/api/v1/devices", {"devices": ["cab-07"], "software": str(sw)})
        href = ddi("GET", base)["_links"]["deploymentBase"]["href"]
        action = ddi("GET", href)
        artifact = action["deployment"]["chunks"][0]["artifacts"][0]
        data = ddi("GET", artifact["_links"]["download"]["href"])
        self.assertEqual(hashlib.sha1(data).hexdigest(), artifact["hashes"]["sha1"])
        aid = action["id"]
        for execution, finished in (("proceeding", "none"), ("closed", "success")):
            ddi("POST", f"{base}/deploymentBase/{aid}/feedback",
                {"id": aid, "status": {"execution": execution, "result": {"finished": finished}}})
        d = server.device("cab-07")
        self.assertEqual((d["last_state"], d["sw_version"]), ("Finished", "0.3.0+broken"), "the updater's success")

        # The board rebooted into slot B, whose trial failed: it runs A (0.2.0+bravo) again.
        fake = os.path.join(tmp, "fake")
        os.makedirs(os.path.join(fake, "esp"))
        files = {"cmdline": "quiet rauc.slot=A\n", "os-release": 'IMAGE_VERSION="0.2.0+bravo"\n',
                 "esp/fleet-pending": "slot=B version=0.3.0+broken\n",
                 "updater.conf": f"[client]\nhawkbit_server = 127.0.0.1:{server.port}\nssl = false\n"
                                 "tenant_id = DEFAULT\ntarget_name = cab-07\nauth_token = t0ken\n"
                                 "[device]\nhw_boardname = boardwalk-qemu-x86_64\n"}
        for name, text in files.items():
            with open(os.path.join(fake, name), "w") as f:
                f.write(text)
        env = dict(os.environ, BW_FLEET_CMDLINE=os.path.join(fake, "cmdline"),
                   BW_FLEET_OS_RELEASE=os.path.join(fake, "os-release"), BW_FLEET_RECORD_DIR=os.path.join(fake, "esp"),
                   BW_FLEET_UPDATER_CONF=os.path.join(fake, "updater.conf"),
                   BW_FLEET_METRICS=os.path.join(fake, "fleet.prom"), BW_FLEET_SLOT_CHECK_CONF="/nonexistent")
        r = subprocess.run(["sh", os.path.join(HERE, "boardwalk-fleet"), "report"], env=env,
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn(f"told the server: action {aid} failed", r.stdout, r.stdout + r.stderr)
        d = server.device("cab-07")
        self.assertEqual((d["last_state"], d["sw_version"]), ("Error", "0.2.0+bravo"), d)
        self.assertEqual(ddi("GET", base)["_links"], {}, "the failed bundle is not offered again")
        with open(os.path.join(fake, "fleet.prom")) as f:
            self.assertIn('boardwalk_update_failed{version="0.3.0+broken",reason="rolled back"} 1', f.read())


if __name__ == "__main__":
    unittest.main()
