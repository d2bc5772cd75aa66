"""A real Prometheus on the host (Debian's `prometheus`), scraping one board's node exporter
as a fleet's server does (job "cabinets") and evaluating the shipped alerting rules
(fleet/prometheus/boardwalk-alerts.yml) against it.

The rules' windows are minutes to days, for a fleet; a test cannot wait that long. So the
test's copy of the rules has every duration divided by 60 (a `for: 5m` becomes 5s, a
`[15m]` window 15s, a `[1d] offset 3h` 1440s offset 180s): the same expressions, labels
and annotations, on a clock 60 times faster. `promtool test rules` (make unit-test,
boardwalk-alerts.test.yml) checks the rules with their real durations."""
import json
import os
import re
import subprocess
import time
import urllib.parse
import urllib.request

from .board import free_port

HERE = os.path.dirname(os.path.abspath(__file__))
RULES = os.path.join(HERE, "..", "..", "fleet", "prometheus", "boardwalk-alerts.yml")
TIME_SCALE = 60
UNIT_SECONDS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "y": 31536000}
DURATION = r"(?:\d+(?:ms|[smhdwy]))+"


def seconds(duration):
    """A Prometheus duration ("1h30m", "15m", "500ms") in seconds."""
    return sum(int(n) * UNIT_SECONDS[u] for n, u in re.findall(r"(\d+)(ms|[smhdwy])", duration))


def scaled(duration):
    """The duration on the test's clock, in whole milliseconds (at least 1 ms)."""
    return f"{max(1, round(seconds(duration) * 1000 / TIME_SCALE))}ms"


def scaled_rules(text):
    """The rules file with every duration of its `for:` fields, range selectors and offsets
    divided by TIME_SCALE. Plain numbers (`> 180` seconds of a timestamp difference) are
    values, not durations, and stay as they are."""
    out = []
    for line in text.splitlines(keepends=True):
        if re.match(r"\s*for:\s", line):
            line = re.sub(rf"(for:\s*)({DURATION})", lambda m: m.group(1) + scaled(m.group(2)), line)
        elif not line.lstrip().startswith("#"):
            line = re.sub(rf"\[({DURATION})\]", lambda m: f"[{scaled(m.group(1))}]", line)
            line = re.sub(rf"\boffset\s+({DURATION})\b", lambda m: f"offset {scaled(m.group(1))}", line)
        out.append(line)
    return "".join(out)


class HostPrometheus:
    """Prometheus on 127.0.0.1 with its data in WORKDIR/prometheus, scraping TARGET
    ("127.0.0.1:PORT") every second; stop() ends it (use as a context manager)."""

    def __init__(self, workdir, target):
        self.dir = os.path.join(workdir, "prometheus")
        self.port = free_port()
        self.target = target
        self.proc = None

    def __enter__(self):
        os.makedirs(self.dir, exist_ok=True)
        with open(RULES) as f:
            rules = scaled_rules(f.read())
        rules_path = os.path.join(self.dir, "boardwalk-alerts.scaled.yml")
        with open(rules_path, "w") as f:
            f.write(rules)
        config = {
            "global": {"scrape_interval": "1s", "scrape_timeout": "900ms", "evaluation_interval": "1s"},
            "rule_files": [rules_path],
            "scrape_configs": [{"job_name": "cabinets", "static_configs": [{"targets": [self.target]}]}],
        }
        config_path = os.path.join(self.dir, "prometheus.yml")
        with open(config_path, "w") as f:
            json.dump(config, f)  # YAML is a superset of JSON
        check = subprocess.run(["promtool", "check", "config", config_path], capture_output=True, text=True)
        if check.returncode != 0:
            raise RuntimeError(f"promtool check config: {check.stdout}{check.stderr}")
        self.log = open(os.path.join(self.dir, "prometheus.log"), "w")
        self.proc = subprocess.Popen(
            ["prometheus", f"--config.file={config_path}", f"--storage.tsdb.path={self.dir}/data",
             f"--web.listen-address=127.0.0.1:{self.port}", "--storage.tsdb.retention.time=1d"],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"prometheus exited with {self.proc.returncode} ({self.dir}/prometheus.log)")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/-/ready", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                pass
            time.sleep(0.5)
        self.stop()
        raise RuntimeError("prometheus was not ready within 60 s")

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc:
            self.log.close()

    def api(self, path, **params):
        url = f"http://127.0.0.1:{self.port}/api/v1/{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        with urllib.request.urlopen(url, timeout=10) as r:
            body = json.load(r)
        if body.get("status") != "success":
            raise RuntimeError(f"prometheus {path}: {body}")
        return body["data"]

    def query(self, expr):
        """An instant query's samples as [(labels, value)]."""
        return [(s["metric"], float(s["value"][1])) for s in self.api("query", query=expr)["result"]]

    def alerts(self, name):
        """The alert NAME as Prometheus has it now: [(state, labels)], state 'pending' or 'firing'."""
        return [(a["state"], a["labels"]) for a in self.api("alerts")["alerts"] if a["labels"].get("alertname") == name]

    def target_health(self):
        """The scrape target's health ('up', 'down', 'unknown') and last error."""
        targets = self.api("targets")["activeTargets"]
        return (targets[0]["health"], targets[0].get("lastError", "")) if targets else ("none", "")
