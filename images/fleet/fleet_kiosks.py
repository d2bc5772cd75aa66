"""The simulated fleet's kiosks (images/fleet/fleet_sim.py): each cabinet runs the real
kiosk, `boardwalk --offscreen` (the live run loop, frames paced at 60 Hz into memory, no
display, input or sound card), with its own state directory, config file and metrics
directory, where it writes `boardwalk.prom` and `boardwalk-activity.prom` as on a board.
The cabinets' DDI clients read the activity file. Python 3 standard library only.
"""
import os
import signal
import subprocess
import time

from goosebit_server import proc_usage

# The venue's choice this fleet makes: no attract mode (it draws every frame; 100 of them
# would be 100 busy kiosks on 2 cores), so an untouched menu is the idle kiosk, which
# `boardwalk_activity` calls idle after 2 minutes.
KIOSK_CONF = "[kiosk]\nlanguage = en\nmenu_to_attract_seconds = 0\n"


class Kiosk:
    def __init__(self, binary, cab_dir, size):
        self.dir = cab_dir
        self.state = os.path.join(cab_dir, "state")
        self.metrics = os.path.join(cab_dir, "metrics")
        self.log_path = os.path.join(cab_dir, "kiosk.log")
        os.makedirs(self.state, exist_ok=True)
        os.makedirs(self.metrics, exist_ok=True)
        self.conf = os.path.join(cab_dir, "boardwalk.conf")
        with open(self.conf, "w") as f:
            f.write(KIOSK_CONF)
        self.cmd = [binary, "--offscreen", "--size", size, "--state-dir", self.state, "--config", self.conf,
                    "--set", f"metrics.textfile_dir={self.metrics}"]
        self.proc = None

    def start(self):
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen(self.cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def log_has(self, text):
        try:
            with open(self.log_path, errors="replace") as f:
                return text in f.read()
        except OSError:
            return False

    def ready(self):
        """Started up: its tunes made (the start-up work) and its activity file written."""
        return self.log_has("tunes ready") and os.path.exists(os.path.join(self.metrics, "boardwalk-activity.prom"))

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self):
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)

    def wait(self, timeout):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


class Kiosks:
    """N kiosks, cabinet I's in ROOT/cab-III/, started BATCH at a time (each batch's
    start-up work done before the next starts: a shared machine stays usable)."""

    def __init__(self, binary, dirs, size="800x480"):
        if not os.access(binary, os.X_OK):
            raise SystemExit(f"fleet sim: no kiosk binary at {binary} (make build, or --binary)")
        self.kiosks = [Kiosk(binary, d, size) for d in dirs]

    def start(self, batch=10, timeout=300, log=print):
        t0 = time.monotonic()
        for i in range(0, len(self.kiosks), batch):
            group = self.kiosks[i:i + batch]
            for k in group:
                k.start()
            deadline = time.monotonic() + timeout
            while not all(k.ready() for k in group):
                dead = [k for k in group if not k.alive()]
                if dead:
                    raise RuntimeError(f"kiosk in {dead[0].dir} ended at start (exit {dead[0].proc.returncode}); "
                                       f"see {dead[0].log_path}")
                if time.monotonic() > deadline:
                    late = next(k for k in group if not k.ready())
                    raise RuntimeError(f"kiosk in {late.dir} not ready within {timeout} s; see {late.log_path}")
                time.sleep(0.5)
            log(f"fleet sim: {i + len(group)} kiosks running ({time.monotonic() - t0:.0f} s)")
        return time.monotonic() - t0

    def usage(self):
        """The kiosks' CPU seconds, summed, and their resident memory (MB), summed."""
        cpu = rss = 0.0
        for k in self.kiosks:
            c, r = proc_usage(k.proc.pid)
            cpu += c
            rss += r
        return cpu, rss

    def dead(self):
        return [k for k in self.kiosks if not k.alive()]

    def stop(self):
        for k in self.kiosks:
            k.stop()
        for k in self.kiosks:
            if k.proc is not None:
                k.wait(15)
