#!/usr/bin/env python3
"""A fleet, simulated (docs/FLEET.md, "A simulated fleet"): a goosebit server on loopback
(images/fleet/goosebit_server.py), N cabinets on this machine, each a real
`boardwalk --offscreen` kiosk (images/fleet/fleet_kiosks.py) and a DDI client doing what
rauc-hawkbit-updater does against a fake RAUC (images/fleet/fleet_cabinets.py: one process,
a thread per cabinet), then two staged rollouts through goosebit's own feeds and rollouts,
driven through its management API as an operator's script would:

  1. version N+1: a tenth of the cabinets (feed `canary`) first; once every canary reports
     success, the rest (feed `main`); until every cabinet has rebooted into it (each waits
     for its kiosk to say idle);
  2. version N+2 with one canary's install made to fail: the canary rollout is paused at the
     server's first failure and `main` never gets it (goosebit then offers the canaries the
     feed's previous rollout again: those that took N+2 are sent N+1).

Measured: the polling fleet (server, DDI clients and kiosks' CPU; requests per second),
each rollout's stages, the server's CPU and memory from /proc; printed with the arithmetic
for 10,000 cabinets, and written to WORK/report.json.

    python3 images/fleet/fleet_sim.py [--binary .build/release/boardwalk] [--cabinets 100]
                                      [--poll 10] [--measure 60] [--work out/fleet-sim]
(make fleet-sim). Needs rauc (bundles) and the goosebit virtualenv (made once, cached).
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import goosebit_server  # noqa: E402
from fleet_kiosks import Kiosks  # noqa: E402

COMPATIBLE = "boardwalk-fleet-sim"
BOARDS = ["rpi4-hdmi-touch", "rpi4-official-7in", "rpi5-hdmi-touch", "rpi5-official-7in", "rpi-zero2w-spi35"]
VERSIONS = ("2026.12.1", "2026.12.2", "2026.12.3")  # running, rollout 1, rollout 2


def say(text):
    print(f"[fleet-sim {time.strftime('%H:%M:%S')}] {text}", flush=True)


def make_bundle(work, version, size_mb):
    """A RAUC bundle (rauc on this machine) with VERSION in its manifest and a SIZE_MB image
    (goosebit reads the manifest only; the fake RAUC checks the download's SHA-1)."""
    keys = goosebit_server.bundle_keys(work)
    return goosebit_server.signed_bundle(work, version, COMPATIBLE, keys, size_mb << 20)


class Cabinets:
    """The DDI clients' process and what it reports (its JSON lines)."""

    def __init__(self, spec, work):
        path = os.path.join(work, "cabinets.json")
        with open(path, "w") as f:
            json.dump(spec, f)
        self.log = open(os.path.join(work, "cabinets.log"), "w")
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "fleet_cabinets.py"), path],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.events, self.stats = [], {}
        self.cond = threading.Condition()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.proc.stdout:
            e = json.loads(line)
            with self.cond:
                if e["event"] == "stats":
                    self.stats = e
                else:
                    self.events.append(e)
                    self.log.write(line)
                self.cond.notify_all()

    def who(self, event, version=None):
        with self.cond:
            return {e["cab"]: e["t"] for e in self.events
                    if e["event"] == event and (version is None or e.get("version") == version)}

    def requests(self):
        with self.cond:
            return sum(v for k, v in self.stats.items() if k not in ("t", "event", "errors"))

    def errors(self):
        return [e for e in self.events if e["event"] == "error"]

    def stop(self):
        self.proc.stdin.close()
        self.proc.wait(30)
        self.log.close()


class Meter:
    """CPU seconds and memory of the server, the DDI clients and the kiosks, from /proc."""

    def __init__(self, server, cabinets, kiosks):
        self.server, self.cabinets, self.kiosks = server, cabinets, kiosks
        self.peak_rss = 0.0

    def sample(self):
        s_cpu, s_rss = self.server.resource()
        self.peak_rss = max(self.peak_rss, s_rss)
        c_cpu, c_rss = goosebit_server.proc_usage(self.cabinets.proc.pid)
        k_cpu, k_rss = self.kiosks.usage()
        return {"t": time.monotonic(), "server_cpu": s_cpu, "server_rss": s_rss, "client_cpu": c_cpu,
                "client_rss": c_rss, "kiosk_cpu": k_cpu, "kiosk_rss": k_rss, "requests": self.cabinets.requests()}

    @staticmethod
    def window(a, b, n):
        dt = b["t"] - a["t"]
        req = b["requests"] - a["requests"]
        return {"seconds": round(dt, 1), "requests": req, "requests_per_s": round(req / dt, 2),
                "server_core_pct": round(100 * (b["server_cpu"] - a["server_cpu"]) / dt, 2),
                "server_ms_per_request": round(1000 * (b["server_cpu"] - a["server_cpu"]) / max(req, 1), 2),
                "server_rss_mb": round(b["server_rss"], 1),
                "client_core_pct": round(100 * (b["client_cpu"] - a["client_cpu"]) / dt, 2),
                "client_pct_per_cabinet": round(100 * (b["client_cpu"] - a["client_cpu"]) / dt / n, 3),
                "client_ms_per_request": round(1000 * (b["client_cpu"] - a["client_cpu"]) / max(req, 1), 2),
                "client_rss_mb": round(b["client_rss"], 1),
                "kiosks_core_pct": round(100 * (b["kiosk_cpu"] - a["kiosk_cpu"]) / dt, 2),
                "kiosk_pct_each": round(100 * (b["kiosk_cpu"] - a["kiosk_cpu"]) / dt / n, 3),
                "kiosk_rss_mb_each": round(b["kiosk_rss"] / n, 1)}


def wait(cond_fn, timeout, what, meter, step=0.5):
    deadline = time.monotonic() + timeout
    while True:
        meter.sample()
        result = cond_fn()
        if result:
            return result
        if time.monotonic() > deadline:
            raise RuntimeError(f"fleet sim: {what} not within {timeout:.0f} s")
        time.sleep(step)


def stage(server, cabinets, meter, feed, group, sw_id, version, timeout):
    """One feed's rollout: created, then watched until every cabinet in GROUP reported success,
    or paused at the server's first reported failure. Its figures."""
    t0, a = time.time(), meter.sample()
    rid = server.rollout(f"{version} {feed}", feed, sw_id)["id"]
    checked = [0.0]

    def done():
        if time.monotonic() - checked[0] >= 1.0:  # the operator's view: goosebit's rollout
            checked[0] = time.monotonic()
            r = next(r for r in server.rollouts() if r["id"] == rid)
            if r["failure_count"] > 0:
                server.pause([rid])
                return "paused"
        ok = cabinets.who("installed", version)
        return "success" if all(c in ok for c in group) else None

    outcome = wait(done, timeout, f"rollout {version} to {feed}", meter)
    t1, b = time.time(), meter.sample()
    ok = {c: t for c, t in cabinets.who("installed", version).items() if c in group}
    failed = {c: t for c, t in cabinets.who("failed", version).items() if c in group}
    r = {"feed": feed, "cabinets": len(group), "outcome": outcome, "seconds": round(t1 - t0, 1),
         "installed": len(ok), "failed": len(failed),
         "last_success_after_s": round(max(ok.values()) - t0, 1) if ok else None,
         "server_cpu_s": round(b["server_cpu"] - a["server_cpu"], 2), "server_peak_rss_mb": round(meter.peak_rss, 1),
         "requests": b["requests"] - a["requests"]}
    if failed:
        r["first_failure_after_s"] = round(min(failed.values()) - t0, 1)
        r["paused_after_failure_s"] = round(t1 - min(failed.values()), 1)
        r["rollout_id"] = rid
    return r


def server_view(server):
    """goosebit's own account: how many cabinets at each (version, state)."""
    view = {}
    for d in server.devices():
        key = f"{d['sw_version']} {d['last_state']}"
        view[key] = view.get(key, 0) + 1
    return view


def rollout(server, cabinets, meter, bundle, version, previous, canary, main, poll, inject=None):
    say(f"rollout {version}: {len(canary)} canaries first, then {len(main)}")
    sw_id = server.upload(bundle)
    t0 = time.time()
    first = stage(server, cabinets, meter, "canary", canary, sw_id, version, 20 * poll + 60)
    say(f"  canary: {first}")
    result = {"version": version, "injected_failure": inject, "stages": [first]}
    if first["outcome"] == "paused":
        # Stopped: what was already downloading may still finish; main is offered nothing.
        # goosebit then offers the feed its latest unpaused rollout's version: canaries that
        # took this one are sent the previous one again.
        paused_at = time.time()
        time.sleep(2 * poll + 5)
        late = [c for c, t in cabinets.who("installed", version).items() if t > paused_at]
        back = [c for c, t in cabinets.who("installed", previous).items() if t > paused_at]
        main_offered = [c for c in cabinets.who("offered", version) if c in main]
        result.update(installed_after_pause=len(late), sent_back_to_previous=len(back), main_offered=len(main_offered),
                      seconds=round(time.time() - t0, 1), server_view=server_view(server))
        say(f"  stopped: {result}")
        return result
    rest = stage(server, cabinets, meter, "main", main, sw_id, version, 20 * poll + 120)
    say(f"  main: {rest}")
    result["stages"].append(rest)
    result["reported_seconds"] = round(time.time() - t0, 1)
    everyone = canary + main
    # Each cabinet reboots into the new slot once its kiosk says idle (2 minutes untouched).
    wait(lambda: all(c in cabinets.who("rebooted", version) for c in everyone), 600,
         f"every cabinet running {version}", meter, step=1.0)
    result["running_seconds"] = round(max(cabinets.who("rebooted", version).values()) - t0, 1)
    result["server_view"] = server_view(server)
    say(f"  every cabinet reported {version} after {result['reported_seconds']} s, runs it after {result['running_seconds']} s")
    return result


def machine():
    with open("/proc/cpuinfo") as f:
        model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "unknown")
    with open("/proc/meminfo") as f:
        mem = int(f.readline().split()[1]) // 1024
    commit = subprocess.run(["git", "-C", REPO, "describe", "--always", "--dirty"], capture_output=True, text=True).stdout.strip()
    return {"cpu": model, "cores": os.cpu_count(), "memory_mb": mem, "kernel": platform.release(), "commit": commit,
            "python": platform.python_version(), "goosebit": goosebit_server.VERSION,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def extrapolate(polling, per=10000):
    """What one server needs for PER cabinets, from the polling window's CPU per request."""
    ms = polling["server_ms_per_request"]
    rows = []
    for poll in (60, 300):
        rps = per / poll
        rows.append({"poll_s": poll, "requests_per_s": round(rps, 1), "server_cores": round(rps * ms / 1000, 2)})
    return {"cabinets": per, "server_ms_per_request": ms, "rows": rows,
            "shortest_poll_one_core_s": round(per * ms / 1000, 1)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(REPO, ".build/release/boardwalk"))
    ap.add_argument("--cabinets", type=int, default=100)
    ap.add_argument("--canary", type=float, default=0.1, help="the share of cabinets in the first stage")
    ap.add_argument("--poll", type=int, default=10, help="the server's poll time, seconds")
    ap.add_argument("--measure", type=float, default=60, help="seconds of the polling fleet measured")
    ap.add_argument("--bundle-mb", type=int, default=2)
    ap.add_argument("--work", default=os.path.join(REPO, "out", "fleet-sim"))
    args = ap.parse_args()
    if args.cabinets < 3:
        ap.error("--cabinets: at least 3 (a canary, the failing canary and one more)")
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    report = {"machine": machine(), "cabinets": args.cabinets, "poll_s": args.poll, "bundle_mb": args.bundle_mb,
              "load_at_start": os.getloadavg()}
    say(f"{args.cabinets} cabinets, poll {args.poll} s, work in {work}; machine {report['machine']}")
    server = goosebit_server.Goosebit(os.path.join(work, "server"), poll_seconds=args.poll).start()
    cabinets = kiosks = None
    try:
        bundles = [make_bundle(work, v, args.bundle_mb) for v in VERSIONS[1:]]
        names = [f"cab-{i + 1:03d}" for i in range(args.cabinets)]
        dirs = {n: os.path.join(work, "cabs", n) for n in names}
        kiosks = Kiosks(args.binary, [dirs[n] for n in names])
        report["kiosks_start_s"] = round(kiosks.start(log=say), 1)
        spec = {"server": server.url, "compatible": COMPATIBLE,
                "cabinets": [{"name": n, "dir": dirs[n], "metrics_dir": os.path.join(dirs[n], "metrics"),
                              "board": BOARDS[i % len(BOARDS)], "version": VERSIONS[0]} for i, n in enumerate(names)]}
        _, rss0 = server.resource()
        cabinets = Cabinets(spec, work)
        meter = Meter(server, cabinets, kiosks)
        t0 = time.time()
        wait(lambda: len(cabinets.who("registered")) == len(names), 120 + 3 * args.poll, "every cabinet registered", meter)
        report["registered_s"] = round(time.time() - t0, 1)
        report["kiosk_states_at_registration"] = sorted(e["kiosk_state"] for e in cabinets.events if e["event"] == "registered")
        say(f"all {len(names)} registered in {report['registered_s']} s; measuring the polling fleet for {args.measure:.0f} s")
        time.sleep(10 + args.poll)  # past the registration's own 10 s polls
        a = meter.sample()
        time.sleep(args.measure)
        polling = Meter.window(a, meter.sample(), len(names))
        polling["server_rss_growth_mb"] = round(polling["server_rss_mb"] - rss0, 1)
        report["polling"] = polling
        say(f"polling: {polling}")

        step = max(1, round(1 / args.canary))
        canary = [n for i, n in enumerate(names) if i % step == 0]
        main_feed = [n for n in names if n not in canary]
        server.api("PATCH", "/api/v1/devices", {"devices": canary, "feed": "canary", "software": "rollout"})
        server.api("PATCH", "/api/v1/devices", {"devices": main_feed, "feed": "main", "software": "rollout"})
        report["rollout_1"] = rollout(server, cabinets, meter, bundles[0], VERSIONS[1], VERSIONS[0], canary, main_feed, args.poll)
        bad = canary[len(canary) // 2]
        open(os.path.join(dirs[bad], "rauc", "fail-install"), "w").close()
        report["rollout_2"] = rollout(server, cabinets, meter, bundles[1], VERSIONS[2], VERSIONS[1], canary, main_feed, args.poll,
                                      inject=bad)
        report["server_view"] = server_view(server)
        report["rollouts"] = server.rollouts()
        report["dead_kiosks"] = [k.dir for k in kiosks.dead()]
        report["client_errors"] = len(cabinets.errors())
        report["server_peak_rss_mb"] = round(meter.peak_rss, 1)
        report["extrapolation"] = extrapolate(polling)
        report["load_at_end"] = os.getloadavg()
    finally:
        if cabinets:
            cabinets.stop()
        if kiosks:
            kiosks.stop()
        server.stop()
    with open(os.path.join(work, "report.json"), "w") as f:
        json.dump(report, f, indent=1)
    say(f"server view at the end: {report['server_view']}; kiosks ended early: {len(report['dead_kiosks'])}; "
        f"client errors: {report['client_errors']}")
    for r in report.get("rollouts", []):
        say(f"goosebit's rollout {r['name']!r}: success_count {r['success_count']}, failure_count {r['failure_count']}, "
            f"paused {r['paused']}")
    x = report["extrapolation"]
    for row in x["rows"]:
        say(f"10,000 cabinets polling every {row['poll_s']} s: {row['requests_per_s']} requests/s x "
            f"{x['server_ms_per_request']} ms CPU each = {row['server_cores']} cores")
    say(f"report: {os.path.join(work, 'report.json')}")
    r2 = report["rollout_2"]
    ok = (r2["stages"][0]["outcome"] == "paused" and r2["main_offered"] == 0 and not report["dead_kiosks"]
          and report["rollout_1"]["stages"][-1]["outcome"] == "success")
    say("PASS" if ok else "FAIL: see the report")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
