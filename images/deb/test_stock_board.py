#!/usr/bin/env python3
"""A stock Debian 13 system into which only `apt install ./boardwalk_VERSION_ARCH.deb` put
Boardwalk (scripts/deb.sh stock-board), booted on the x86 or arm64 virtual board: Debian's
own kernel and initramfs, the root on a virtio disk, no test agent in the guest. Checked
from outside only, as a person would: after boot the kiosk's menu is on the screen (not a
console), and a tap on a game's tile through the virtual touchscreen opens the game.

With --repo (a board made by `deb.sh stock-board OLD.deb WORKDIR REPO`): the repository is
served over HTTP from this machine, and an operator logs in on the serial console: the
PIN's hash is in the state directory's operator-pin only, and the kiosk's journal has no
word of a missing or unusable PIN; then `apt-get update && apt-get upgrade` takes the
running kiosk's version (its journal's `system:` line) from OLD to NEW in a new process,
back on the screen, coins and score kept.

    images/deb/test_stock_board.py WORKDIR [--arch arm64] [--repo DIR --old V --new V]
Prints its checks and `N passed, 0 failed` (images/boardtest/results.py)."""
import argparse
import functools
import http.server
import os
import re
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from boardtest.board import VirtualBoard  # noqa: E402
from boardtest.screendump import looks_like_console  # noqa: E402
from boardtest.results import Results  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("workdir")
ap.add_argument("--arch", default="amd64", choices=("amd64", "arm64"))
ap.add_argument("--repo", help="the apt repository (deb.sh apt-repo) the board's sources.list names")
ap.add_argument("--old", help="the version installed on the board")
ap.add_argument("--new", help="the version in the repository")
args = ap.parse_args()

BOOT_TIMEOUT = float(os.environ.get("BOARDWALK_STOCK_BOOT_TIMEOUT", "420" if args.arch == "amd64" else "900"))
ROOT_PASSWORD = os.environ.get("BOARDWALK_STOCK_ROOT_PASSWORD", "boardwalk-stock")
work = os.path.abspath(args.workdir)
results = Results(f"stock-board {args.arch}")
log, check = results.log, results.check


def on_screen(name, timeout, like=None):
    """The kiosk's screen once settled (two shots 2 s apart nearly alike, not a console;
    with `like`, also close to that shot); None after timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and vb.alive():
        time.sleep(5)
        img = vb.screendump(name)
        st = img.stats()
        if not looks_like_console(st) and st["colours"] >= 3:
            time.sleep(2)
            again = vb.screendump(name)
            if again.differs(img) < img.width * img.height // 50 and (
                    like is None or again.differs(like) < img.width * img.height // 10):
                return again
    return None


class Console:
    """root on the board's serial console (its getty), typed as an operator would."""

    def __init__(self):
        self.n = 0

    def login(self, timeout):
        m, _ = vb.wait_serial(r"cabinet login: *$", timeout)
        if not m:
            # The prompt may have scrolled under kernel lines: ask the getty again.
            vb.type_serial("\n")
            m, _ = vb.wait_serial(r"cabinet login:", 30)
        if not m:
            return False
        vb.type_serial("root\n")
        if not vb.wait_serial(r"Password: *$", 60)[0]:
            return False
        vb.type_serial(ROOT_PASSWORD + "\n")
        # Typed only at the prompt: login discards what was typed ahead.
        if not vb.wait_serial(r"root@cabinet:[^\n]*# *$", 120)[0]:
            return False
        return self.run("true", 120)[0] == 0

    def run(self, command, timeout):
        """(exit status or None on timeout, output): output is the serial log from the
        command to its end marker (kernel lines on the console may be among it)."""
        self.n += 1
        mark = f"@@BW{self.n}:"
        start = len(vb.serial())
        # The typed line holds `$?`, the output its value: only the output matches.
        vb.type_serial(f"{command}; echo \"{mark}$?@@\"\n")
        m, _ = vb.wait_serial(re.escape(mark) + r"(\d+)@@", timeout)
        # Without the terminal's codes (bash's bracketed-paste switch starts each output) and CRs.
        text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", vb.serial()[start:]).replace("\r", "")
        if not m:
            return None, text
        end = text.find(m.group(0).replace("\r", ""))
        return int(m.group(1)), text[:end] if end >= 0 else text


def kiosk_version(con):
    """The version in the running kiosk's journal `system:` line, and its main PID."""
    _, out = con.run("journalctl -b -u boardwalk.service -o cat --no-pager | grep -a 'system: version' | tail -n 1; "
                     "systemctl show -p MainPID boardwalk.service", 60)
    versions = re.findall(r"system: version (\S+)", out)
    pid = re.findall(r"MainPID=(\d+)", out)
    return (versions[-1] if versions else None), (pid[-1] if pid else None)


def upgrade(menu):
    con = Console()
    check(con.login(180), "root logs in on the serial console")
    version, pid = kiosk_version(con)
    check(version == args.old and pid not in (None, "0"),
          f"the running kiosk (pid {pid}) says version {version} in its journal (the installed {args.old})")
    # The PIN's hash (preseeded at install) is in the state directory only, and the kiosk took
    # it from there: its journal says neither "no PIN is set" nor that operator-pin was unusable.
    _, out = con.run("echo \"pin_file=$(grep -c '^pbkdf2-sha256[$]' /var/lib/boardwalk/operator-pin)"
                     " conf_pin=$(grep -c '^[[:space:]]*operator_pin' /etc/boardwalk/boardwalk.conf)"
                     " warnings=$(journalctl -b -u boardwalk.service -o cat --no-pager | grep -a -c -e 'no PIN' -e 'operator-pin')\"", 60)
    m = re.search(r"pin_file=(\d+) conf_pin=(\d+) warnings=(\d+)", out)
    check(m is not None and m.groups() == ("1", "0", "0"),
          "the PIN's hash is in /var/lib/boardwalk/operator-pin, none in boardwalk.conf, and the kiosk took it "
          f"(hash lines, conf lines, journal warnings: {m.groups() if m else out[-200:]})")
    # A board without a clock (the arm64 board's RTC starts at 1970, as a Pi has none) boots
    # with systemd's fallback time, its build's, and gets the time from the network
    # (Raspberry Pi OS: systemd-timesyncd) before apt trusts a repository: a signature made
    # after that fallback time is "not live until" then. The board's network reaches only
    # this machine, so the test sets the clock as the time sync would.
    _, said = con.run("date -u +%s", 60)
    guest = re.search(r"^(\d{6,})$", said, re.M)
    if guest and int(guest.group(1)) < time.time() - 60:
        con.run(f"date -u -s @{int(time.time())}", 60)
        log(f"the board's clock was {time.time() - int(guest.group(1)):.0f} s behind: set to this machine's, "
            "as a time sync would")
    t = time.monotonic()
    rc, out = con.run("apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get upgrade -y -q", 900)
    log(f"apt-get update && apt-get upgrade: {time.monotonic() - t:.0f} s; served {len(fetched)} requests: "
        + " ".join(sorted(set(p.rsplit('/', 1)[-1] for p in fetched))))
    check(rc == 0 and re.search(r"Setting up boardwalk \(" + re.escape(args.new), out) is not None,
          f"apt-get upgrade from http://10.0.2.2:{port}/ (signed) installed {args.new} (exit {rc}: {out.strip()[-300:]})")
    _, out = con.run("dpkg-query -W -f='${Version}\\n' boardwalk", 60)
    check(re.search(r"^" + re.escape(args.new) + r"$", out, re.M) is not None, f"dpkg: boardwalk {args.new}")
    # The postinst restarts a running kiosk: a new process, whose journal line has the new version.
    deadline = time.monotonic() + 180
    while True:
        version2, pid2 = kiosk_version(con)
        if (version2 == args.new and pid2 not in (None, "0", pid)) or time.monotonic() > deadline:
            break
        time.sleep(5)
    check(version2 == args.new and pid2 not in (None, "0", pid),
          f"the unit restarted into the new version: pid {pid} -> {pid2}, journal: version {version2}")
    again = on_screen("upgraded", 180)
    check(again is not None, "the kiosk is back on the screen (run/upgraded.png)")
    _, books = con.run("boardwalk bookkeeping --state-dir /var/lib/boardwalk; cat /var/lib/boardwalk/scores", 120)
    check(re.search(r"^coins: 7$", books, re.M) and re.search(r"^credits_left: 3$", books, re.M)
          and re.search(r"^2048\.best\.5x5=1234$", books, re.M),
          "the upgrade kept the coins, the credits and the score (boardwalk bookkeeping, /var/lib/boardwalk/scores)")


# The disk is the root (/dev/vda, its fstab's); the command line is Debian's default plus
# the serial console. No state disk: the package keeps state in /var/lib.
console = "ttyS0,115200" if args.arch == "amd64" else "ttyAMA0"
vb = VirtualBoard(os.path.join(work, "run"), os.path.join(work, "vmlinuz"), os.path.join(work, "initrd"),
                  f"root=/dev/vda ro console={console}", state_disk=os.path.join(work, "disk.img"),
                  arch=args.arch, serial_console=bool(args.repo), open_network=bool(args.repo))
server = None
if args.repo:
    # The venue's repository on this machine: the board's sources.list names
    # http://10.0.2.2:PORT/ (QEMU's user network: 10.0.2.2 is this machine's 127.0.0.1).
    port = int(re.search(r":(\d+)/", open(os.path.join(work, "repo-url")).read()).group(1))
    fetched = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, fmt, *a):
            fetched.append(self.path)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(Handler, directory=args.repo))
    threading.Thread(target=server.serve_forever, daemon=True).start()
t0 = time.monotonic()
vb.start()
try:
    menu = on_screen("menu", BOOT_TIMEOUT)
    serial = vb.serial()
    check(menu is not None, f"the kiosk is on screen after boot ({time.monotonic() - t0:.0f} s; "
          f"Debian's kernel: {'Linux version' in serial}, systemd: {'systemd' in serial})")
    log(f"screen {menu.width}x{menu.height}, {menu.stats()['colours']} colours (run/menu.png)")
    w, h = menu.width, menu.height
    # A tap on the 2048 tile; the game opens within seconds (a loaded emulated board takes
    # longer: tapped again after 20 s, three times at most).
    changed, taps = 0, 0
    while taps < 3 and changed <= w * h // 5:
        vb.tap(int(w * 0.62), int(h * 0.55), w, h)
        taps += 1
        until = time.monotonic() + 20
        while time.monotonic() < until and changed <= w * h // 5:
            time.sleep(2)
            game = vb.screendump("after-tap")
            changed = game.differs(menu)
    check(changed > w * h // 5, f"a tap on the 2048 tile opened it ({taps} tap(s), {changed * 100 // (w * h)}% "
          "of the screen changed; run/after-tap.png)")
    vb.key("esc")
    until = time.monotonic() + 20
    while True:
        time.sleep(2)
        back = vb.screendump("back")
        if back.differs(menu) < changed // 2 or time.monotonic() > until:
            break
    check(back.differs(menu) < changed // 2, "Esc on the plugged-in keyboard goes back to the menu (run/back.png)")
    if args.repo:
        upgrade(menu)
    sys.exit(results.summary())
finally:
    vb.stop()
    if server:
        server.shutdown()
