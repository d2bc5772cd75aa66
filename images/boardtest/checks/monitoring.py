"""What the fleet and the bench see: the node exporter on the board scraped from the host
(the kiosk's version, a coin and a play), an alert of the shipped rules fired and resolved
by a real Prometheus, and the idle menu's CPU per thread."""
import os
import re
import time

from .. import procstat
from ..kiosk import BELOW_TILES, SECOND_TILE, wait_until
from ..prometheus import TIME_SCALE, HostPrometheus
from ..results import require
from . import step


@step("metrics: the node exporter, scraped from the host, has the kiosk's version, a coin and a play")
def metrics(k):
    """The fleet's view: the node exporter on the board, scraped from this machine through
    QEMU's user network (the profile's [metrics] exporter_port, forwarded to a host port),
    serves the kiosk's textfile metrics: the image's version and slot, and a coin and a
    play counted after this check drops one and opens a game. Only the exporter listens;
    the kiosk has no network at all (PrivateNetwork=yes)."""
    require(k.vb.exporter_port, "the board profile names no [metrics] exporter_port")

    def scrape():
        text = k.vb.scrape()
        # The last scrape stays in the workdir, for a person to read.
        with open(os.path.join(k.vb.workdir, "metrics.txt"), "w") as f:
            f.write(text)
        return parse_prometheus(text)

    deadline = time.monotonic() + 120
    series, last_error = None, None
    while time.monotonic() < deadline:
        try:
            series = scrape()
            if any(key[0] == "boardwalk_build_info" for key in series):
                break
        except OSError as e:
            last_error = e
        time.sleep(3.0)
    require(series is not None, f"no answer from the exporter on 127.0.0.1:{k.vb.exporter_host_port} ({last_error})")
    require(any(key[0] == "boardwalk_build_info" for key in series),
            f"the exporter answers but has no boardwalk_* series (textfile errors: {series.get(('node_textfile_scrape_error', ()))})")
    require(series.get(("node_textfile_scrape_error", ())) == 0, "the textfile collector reports an error")
    rc, out = k.sh(". /etc/os-release; echo \"${IMAGE_VERSION:-unknown}\"; "
                   "tr ' ' '\\n' < /proc/cmdline | sed -n 's/^rauc\\.slot=//p' | tail -1")
    lines = out.split("\n")
    version, slot = lines[0].strip() or "unknown", (lines[1].strip() if len(lines) > 1 else "") or "unknown"
    info = [dict(key[1]) for key in series if key[0] == "boardwalk_build_info"]
    require(info[0].get("version") == version and info[0].get("slot") == slot,
            f"build info {info[0]}, but the guest says version {version}, slot {slot}")

    def total(name):
        return sum(v for key, v in series.items() if key[0] == name)
    plays0, coins0 = total("boardwalk_plays_total"), total("boardwalk_coins_total")
    # A coin, then a game opened with a tap on the menu's second tile, and back.
    k.vb.coin()
    k.tap(*SECOND_TILE)
    time.sleep(4.0)
    k.vb.chord("esc")
    # The kiosk writes once a minute; the exporter reads the file on each scrape.
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        time.sleep(10.0)
        series = scrape()
        if total("boardwalk_plays_total") > plays0 and total("boardwalk_coins_total") > coins0:
            break
    plays, coins = total("boardwalk_plays_total"), total("boardwalk_coins_total")
    require(plays > plays0 and coins > coins0, f"plays {plays0:g} -> {plays:g}, coins {coins0:g} -> {coins:g} within 3 minutes")
    played = sorted(dict(key[1])["game"] for key, v in series.items() if key[0] == "boardwalk_plays_total" and v > 0)
    for name in ("boardwalk_starts_total", "boardwalk_crashes_total", "boardwalk_watchdog_restarts_total",
                 "boardwalk_uptime_seconds_total", "boardwalk_cpu_seconds_total", "boardwalk_frame_seconds_count",
                 "boardwalk_play_seconds_total", "boardwalk_process_uptime_seconds"):
        require(any(key[0] == name for key in series), f"no {name} in the scrape")
    # The QMP tap's press and lift, timed by the kiosk from their evdev time to the flip
    # that showed them (under emulation: a figure of the board, not of a Pi).
    shown = total("boardwalk_input_to_photon_seconds_count")
    require(shown > 0, "no input-to-photon time after the tap (boardwalk_input_to_photon_seconds_count 0)")
    photon = photon_figures(series)
    # Who listens on TCP in the guest: the exporter's port and nothing else.
    rc, out = k.sh("cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '$4==\"0A\"{split($2,a,\":\"); print a[length(a)]}' | sort -u")
    ports = sorted({int(p, 16) for p in out.split()})
    require(ports == [k.vb.exporter_port], f"TCP ports listening in the guest: {ports}")
    u = k.unit("PrivateNetwork")
    require(u.get("PrivateNetwork") == "yes", f"the kiosk's PrivateNetwork is {u.get('PrivateNetwork')}")
    return (f"scraped 127.0.0.1:{k.vb.exporter_host_port} -> guest :{k.vb.exporter_port}: version {version}, slot {slot}; "
            f"plays {plays0:g} -> {plays:g} ({', '.join(played)}), coins {coins0:g} -> {coins:g}; "
            f"{sum(1 for key in series if key[0].startswith('boardwalk_'))} boardwalk_* series; listening: {ports}; "
            f"input to photon: {shown:g} inputs, {photon}")


def photon_figures(series):
    """p50 and p99 as the histogram's bucket bounds (histogram_quantile at its coarsest),
    and the kiosk's longest, in ms."""
    buckets = sorted((float(dict(key[1])["le"]), v) for key, v in series.items()
                     if key[0] == "boardwalk_input_to_photon_seconds_bucket")
    count = buckets[-1][1] if buckets else 0
    def bound(q):
        for le, n in buckets:
            if n >= q * count:
                return "over 1 s" if le == float("inf") else f"<= {le * 1000:g} ms"
        return "none"
    longest = sum(v for key, v in series.items() if key[0] == "boardwalk_input_to_photon_max_seconds")
    return f"p50 {bound(0.5)}, p99 {bound(0.99)}, max {longest * 1000:.1f} ms"


RESTARTED = "BoardwalkKioskRestarted"


@step(f"alerts: a real Prometheus scraping the board fires {RESTARTED} when the kiosk is killed, then resolves it")
def alert(k):
    """Prometheus (Debian's) on the host scrapes the board's exporter every second as job
    "cabinets" and evaluates fleet/prometheus/boardwalk-alerts.yml on a clock TIME_SCALE
    times faster (boardtest/prometheus.py). The kiosk is killed (SIGKILL: nothing saved,
    nothing said); systemd starts a new one, which writes its metrics file at its first
    frame with one more start; the alert fires, and resolves once that start has left the
    rule's window."""
    require(k.vb.exporter_port, "the board profile names no [metrics] exporter_port")
    with HostPrometheus(k.vb.workdir, f"127.0.0.1:{k.vb.exporter_host_port}") as prom:
        starts = 'boardwalk_starts_total{job="cabinets"}'
        # Two scrapes of the running kiosk first: the rule looks for a rise between them.
        require(wait_until(lambda: prom.query(f"count_over_time({starts}[1m]) >= 2"), 60),
                f"Prometheus has not scraped the kiosk's start count twice in 60 s (target: {prom.target_health()})")
        require(not prom.alerts(RESTARTED), f"{RESTARTED} before the kill: {prom.alerts(RESTARTED)}")
        pid = k.require_active()["MainPID"]
        rc, out = k.sh(f"kill -KILL {pid}")
        require(rc == 0, f"kill failed: {out}")
        killed = time.monotonic()
        require(k.wait_restarted(pid, 60), "the killed kiosk was not restarted within 60 s")
        fired = wait_until(lambda: any(state == "firing" for state, _ in prom.alerts(RESTARTED)), 120)
        require(fired, f"{RESTARTED} did not fire within 120 s of the restart (starts scraped: {prom.query(starts)}; "
                       f"target: {prom.target_health()})")
        t_fired = time.monotonic() - killed
        instance = prom.alerts(RESTARTED)[0][1].get("instance")
        resolved = wait_until(lambda: not prom.alerts(RESTARTED), 120)
        require(resolved, f"{RESTARTED} still {prom.alerts(RESTARTED)} 120 s after it fired")
        t_resolved = time.monotonic() - killed
    return (f"Prometheus scraping 127.0.0.1:{k.vb.exporter_host_port} (instance {instance}), the shipped rules at "
            f"{TIME_SCALE}x: {RESTARTED} firing {t_fired:.1f} s after SIGKILL, resolved {t_resolved:.1f} s after "
            f"(its 15 min window: {900 / TIME_SCALE:g} s)")


@step("idle menu: CPU per thread, once started")
def idle_cpu(k):
    """CPU of the idle menu, from /proc, per thread and for the whole process. Measured
    once the start-up work is over: the tunes are synthesized on a low-priority thread
    after the first frame (a minute or more under emulation), and the menu is shown
    afresh (a touch) so that its 60 s turn to the attract mode is well ahead."""
    ready = k.wait_journal("tunes ready", 300)
    require(ready, "the tunes were never ready (no 'tunes ready' in the journal after 300 s)")
    opened = k.wait_journal("audio: .* open, ", 5)
    require(opened, "the sound device was never opened (no 'audio: ... open' in the journal)")
    period = int(re.search(r"open, (\d+)-frame periods", opened).group(1))
    k.tap(*BELOW_TILES)  # wakes the attract mode, else nothing
    time.sleep(4.0)
    pid = k.pid()
    rc, hz = k.sh("getconf CLK_TCK")
    hz = int(hz.strip())
    threads_now = procstat.threads_command(pid)
    a, t0 = procstat.parse_threads(k.sh(threads_now)[1])
    time.sleep(20)
    b, t1 = procstat.parse_threads(k.sh(threads_now)[1])
    wall = t1 - t0
    _, main, total, threads = procstat.cpu_use(a, b, hz, wall, pid)
    zero = (0, 0, 0)
    sound = [key for key in b if key[1] == "sound"]
    require(len(sound) == 1, f"no one thread named 'sound' in the kiosk: {sorted(b)}")
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
    require(main < 5.0, f"the idle menu's loop used {main:.1f}% of a core (emulated; {threads})")
    require(0.5 * periods <= rests <= 3 * periods,
            f"the sound thread slept {rests:.0f} times a second, not once per {period}-frame period "
            f"({periods:.0f} a second): it spins or polls ({threads})")
    require(total < 60.0, f"the idle menu's process used {total:.1f}% of a core (emulated; {threads})")
    return (f"idle menu over {wall:.0f} s, after '{ready}': whole process {total:.2f}% of a core "
            f"(threads: {threads}); the sound thread {user:.1f}% user + {system:.1f}% kernel, "
            f"asleep {rests:.0f} times a second ({periods:.0f} periods of {period} frames), under TCG emulation")


def parse_prometheus(text):
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
