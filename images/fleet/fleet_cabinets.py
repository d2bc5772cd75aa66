#!/usr/bin/env python3
"""The simulated fleet's cabinets, their DDI side: one process, one thread per cabinet, each
doing what rauc-hawkbit-updater does on a real one (docs/FLEET.md) against a hawkBit DDI
server, with a fake RAUC (a directory per cabinet standing for its slots):

  - poll the controller base (`GET /TENANT/controller/v1/NAME`), sleeping what the server says;
  - when asked (`configData`): send the cabinet's attributes: hw_boardname (RAUC's
    compatible), sw_version and slot (the fake RAUC's), board (its profile's name) and
    kiosk_state (from its kiosk's own `boardwalk-activity.prom`);
  - when offered (`deploymentBase`): read the action, report it proceeding, download the
    artifact, check its size and SHA-1, "install" it (the bundle written into the slot not
    booted, that slot marked to boot next: FakeRauc), report the result (closed, success or
    failure, with details);
  - after an install, "reboot" once the kiosk's activity says idle or closed (as
    boardwalk-fleet reboot-when-idle does): the fake RAUC boots the new slot; the kiosk
    process itself runs on.

A cabinet whose rauc directory holds `fail-install` fails its next install (the fleet sim
injects it). Events go to stdout as JSON lines (`registered`, `offered`, `installed`,
`failed`, `rebooted`, `error`, and `stats` every 2 s with the request counts).

    fleet_cabinets.py SPEC.json    (SPEC: {"server", "tenant", "compatible", "cabinets": [
                                    {"name", "dir", "metrics_dir", "board", "version"}]})
Python 3 standard library only (the cabinets' side needs nothing from goosebit's virtualenv).
"""
import hashlib
import json
import os
import random
import re
import sys
import threading
import time
import urllib.error
import urllib.request

OUT_LOCK = threading.Lock()
COUNTS = {"poll": 0, "configData": 0, "deploymentBase": 0, "download": 0, "feedback": 0, "errors": 0}


def emit(event, **fields):
    with OUT_LOCK:
        sys.stdout.write(json.dumps(dict(t=round(time.time(), 3), event=event, **fields)) + "\n")
        sys.stdout.flush()


def count(kind):
    with OUT_LOCK:
        COUNTS[kind] += 1


class InstallError(Exception):
    pass


class FakeRauc:
    """A cabinet's RAUC stood in by a directory: slot-A/ and slot-B/ (each holds the bundle
    written into it), status.json (booted slot, the slot to boot next, each slot's version)."""

    def __init__(self, root, version):
        self.root = root
        self.status_path = os.path.join(root, "status.json")
        if not os.path.exists(self.status_path):
            os.makedirs(os.path.join(root, "slot-A"), exist_ok=True)
            os.makedirs(os.path.join(root, "slot-B"), exist_ok=True)
            self.write({"booted": "A", "next": "A", "slots": {"A": {"version": version, "state": "good"},
                                                             "B": {"version": None, "state": "empty"}}})

    def status(self):
        with open(self.status_path) as f:
            return json.load(f)

    def write(self, status):
        tmp = self.status_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(status, f)
        os.replace(tmp, self.status_path)

    def booted(self):
        s = self.status()
        return s["booted"], s["slots"][s["booted"]]["version"]

    def install(self, bundle, version):
        """The bundle into the other slot, which boots next; InstallError when injected."""
        s = self.status()
        other = "B" if s["booted"] == "A" else "A"
        flag = os.path.join(self.root, "fail-install")
        if os.path.exists(flag):
            os.remove(flag)
            s["slots"][other] = {"version": None, "state": "bad"}
            self.write(s)
            raise InstallError(f"writing slot {other} failed (injected by the fleet sim)")
        os.replace(bundle, os.path.join(self.root, f"slot-{other}", "bundle.raucb"))
        s["slots"][other] = {"version": version, "state": "installed"}
        s["next"] = other
        self.write(s)
        return other

    def pending(self):
        s = self.status()
        return s["next"] != s["booted"]

    def reboot(self):
        s = self.status()
        s["booted"] = s["next"]
        s["slots"][s["booted"]]["state"] = "good"
        self.write(s)
        return self.booted()


ACTIVITY = re.compile(r'^boardwalk_activity\{state="([a-z]+)"\}\s+1\s*$', re.M)


def kiosk_state(metrics_dir):
    """The kiosk's own word (`boardwalk_activity`), or "stopped" without its file."""
    try:
        with open(os.path.join(metrics_dir, "boardwalk-activity.prom")) as f:
            m = ACTIVITY.search(f.read())
        return m.group(1) if m else "unknown"
    except OSError:
        return "stopped"


def sleep_seconds(text, default):
    try:
        h, m, s = (int(x) for x in text.split(":"))
        return h * 3600 + m * 60 + s
    except (ValueError, AttributeError):
        return default


class Cabinet(threading.Thread):
    def __init__(self, spec, server, tenant, compatible, stop):
        super().__init__(name=spec["name"], daemon=True)
        self.name_ = spec["name"]
        self.dir = spec["dir"]
        self.metrics_dir = spec["metrics_dir"]
        self.board = spec["board"]
        self.compatible = compatible
        self.base = f"{server}/{tenant}/controller/v1/{self.name_}"
        self.rauc = FakeRauc(os.path.join(self.dir, "rauc"), spec["version"])
        self.stop = stop
        self.registered = False
        self.reboot_pending = self.rauc.pending()

    def http(self, kind, method, url, body=None, raw=False):
        count(kind)
        req = urllib.request.Request(url, data=json.dumps(body).encode() if body is not None else None,
                                     method=method, headers={"Content-Type": "application/json",
                                                             "Accept": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            data = r.read()
        if raw:
            return data
        return json.loads(data) if data else None

    def attributes(self):
        slot, version = self.rauc.booted()
        return {"hw_boardname": self.compatible, "sw_version": version, "slot": slot,
                "board": self.board, "kiosk_state": kiosk_state(self.metrics_dir)}

    def feedback(self, action, execution, finished, details):
        self.http("feedback", "POST", f"{self.base}/deploymentBase/{action}/feedback",
                  {"id": action, "status": {"execution": execution, "result": {"finished": finished},
                                            "details": details}})

    def deploy(self, href):
        action = self.http("deploymentBase", "GET", href)
        aid = action["id"]
        chunk = action["deployment"]["chunks"][0]
        artifact = chunk["artifacts"][0]
        emit("offered", cab=self.name_, action=aid, version=chunk["version"])
        self.feedback(aid, "proceeding", "none", ["Download started"])
        data = self.http("download", "GET", artifact["_links"]["download"]["href"], raw=True)
        sha1 = hashlib.sha1(data).hexdigest()
        if len(data) != artifact["size"] or sha1 != artifact["hashes"]["sha1"]:
            self.feedback(aid, "closed", "failure", [f"Download failed: {len(data)} bytes, sha1 {sha1}"])
            emit("failed", cab=self.name_, action=aid, why="checksum")
            return
        path = os.path.join(self.dir, "download.raucb")
        with open(path, "wb") as f:
            f.write(data)
        self.feedback(aid, "proceeding", "none", ["Download complete, installing"])
        try:
            slot = self.rauc.install(path, chunk["version"])
        except InstallError as e:
            self.feedback(aid, "closed", "failure", [f"Installation failed: {e}"])
            emit("failed", cab=self.name_, action=aid, version=chunk["version"], why=str(e))
            return
        self.feedback(aid, "closed", "success", [f"Software bundle installed into slot {slot}"])
        self.reboot_pending = True
        emit("installed", cab=self.name_, action=aid, version=chunk["version"], slot=slot)

    def poll_once(self):
        reply = self.http("poll", "GET", self.base)
        links = reply.get("_links", {})
        if "configData" in links:
            attrs = self.attributes()
            self.http("configData", "PUT", links["configData"]["href"], {"mode": "merge", "data": attrs})
            if not self.registered:
                self.registered = True
                emit("registered", cab=self.name_, **attrs)
        if "deploymentBase" in links:
            self.deploy(links["deploymentBase"]["href"])
        return sleep_seconds(reply.get("config", {}).get("polling", {}).get("sleep"), 60)

    def run(self):
        sleep = 5.0
        # Cabinets do not all boot in the same second: the first polls spread over 5 s.
        if self.stop.wait(random.uniform(0, sleep)):
            return
        while not self.stop.is_set():
            try:
                sleep = self.poll_once()
            except (urllib.error.URLError, OSError, ValueError, KeyError) as e:
                count("errors")
                emit("error", cab=self.name_, why=f"{type(e).__name__}: {e}")
                sleep = 5.0
            # The reboot into the new slot waits for an idle or closed kiosk, checked each
            # second while one is pending.
            deadline = time.monotonic() + sleep
            while not self.stop.is_set() and time.monotonic() < deadline:
                if self.reboot_pending and kiosk_state(self.metrics_dir) in ("idle", "closed", "stopped"):
                    self.reboot_pending = False
                    slot, version = self.rauc.reboot()
                    emit("rebooted", cab=self.name_, slot=slot, version=version)
                self.stop.wait(min(1.0, max(0.0, deadline - time.monotonic())))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: fleet_cabinets.py SPEC.json")
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    stop = threading.Event()
    cabinets = [Cabinet(c, spec["server"], spec.get("tenant", "DEFAULT"), spec["compatible"], stop)
                for c in spec["cabinets"]]
    for c in cabinets:
        c.start()
    try:
        # Until the fleet sim closes our stdin (or ends).
        threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
        while not stop.wait(2.0):
            with OUT_LOCK:
                counts = dict(COUNTS)
            emit("stats", **counts)
    except KeyboardInterrupt:
        stop.set()
    for c in cabinets:
        c.join(5)


if __name__ == "__main__":
    main()
