"""SD card wear and crash points: the bytes the kiosk writes to the state partition (none
while idle), and every crash point of those writes replayed (crashpoints.py): the state
whole, every coin the kiosk had counted there."""
import os
import re
import time

from .. import crashpoints
from ..kiosk import FIRST_TILE, wait_until
from ..results import require
from . import step


def disk_writes(k):
    """Bytes written so far to the state disk (vda) and to every other block device of
    the guest, from the kernel's counters (/sys/block/*/stat: sectors of 512 bytes)."""
    rc, out = k.sh("for d in /sys/block/*; do echo ${d##*/} $(cat $d/stat); done")
    require(rc == 0, f"no /sys/block: {out.strip()}")
    state = other = 0
    for line in out.splitlines():
        f = line.split()
        if len(f) < 8 or re.match(r"(loop|ram|zram)\d", f[0]):
            continue
        if f[0] == "vda":
            state += int(f[7]) * 512
        else:
            other += int(f[7]) * 512
    return state, other


def settled_writes(k, quiet=12.0, limit=90.0):
    """The counters once nothing has been written for `quiet` seconds (ext4 commits its
    journal within 5 s: commit=5 in the image's fstab), or after `limit`."""
    deadline = time.monotonic() + limit
    last, since = disk_writes(k), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(2.0)
        now = disk_writes(k)
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            break
    return last


@step("SD card wear: nothing written idle; bytes per coin and per game")
def wear(k):
    """SD card wear: bytes written to the state partition while idle (the menu, then the
    attract mode), per coin and per game, from the guest's block device counters. Idle
    must write nothing, and nothing may touch any other disk (this board's root is the
    initramfs, in RAM: any block device written besides the state disk is a fault)."""
    idle_seconds, coins = 60.0, 25
    pid = k.pid()

    k.vb.key("esc")
    start = settled_writes(k)
    time.sleep(idle_seconds)
    idle = disk_writes(k)
    idle_state = idle[0] - start[0]
    # A run of coins, each on disk before the next drops (the crash points check each
    # one is there at every point after the kiosk counted it).
    first = k.counter("coins")
    for n in range(first + 1, first + coins + 1):
        k.vb.coin()
        wait_until(lambda: k.counter("coins") >= n, 30, every=0.2)
        now = k.counter("coins")
        require(now == n, f"coin {n - first} of {coins} never reached the counters (coins={now})")
        k.note_coin(n)
    coined = settled_writes(k)
    k.tap(*FIRST_TILE)  # Beat Zombies
    time.sleep(10.0)
    k.vb.key("esc")  # leaving the game saves its play (and a new best)
    played = settled_writes(k)
    rc, files = k.sh("cd /var/lib/boardwalk && wc -c scores counters settings highscores 2>/dev/null | head -4")
    # The crash points' control (crashpoints.py): a file rewritten in place in two
    # steps, each fsync'd, as the kiosk must never write: the replay must catch it torn.
    rc, out = k.sh(f"mkdir -p /var/lib/boardwalk/{crashpoints.CONTROL} && cd /var/lib/boardwalk/{crashpoints.CONTROL} && "
                   "for n in 1 2 3; do printf '# control\\ncoins=' > counters && sync counters && "
                   "printf '%d\\n' $n >> counters && sync counters; done")
    require(rc == 0, f"the crash points' control could not be written: {out.strip()}")
    per_coin = (coined[0] - idle[0]) / coins
    per_game = played[0] - coined[0]
    require(k.pid() == pid, "the kiosk restarted during the measurement")
    require(idle_state == 0, f"the state partition took {idle_state} bytes in {idle_seconds:.0f} s idle "
            f"({idle_state * 3600 / idle_seconds / 1024:.0f} KiB an hour)")
    require(played[1] - start[1] == 0, f"{played[1] - start[1]} bytes written to a disk other than the state partition")
    return (f"state partition: 0 bytes in {idle_seconds:.0f} s idle (menu, then attract mode); "
            f"{per_coin / 1024:.1f} KiB per coin ({coins} coins); {per_game / 1024:.1f} KiB for a game opened, "
            f"played 10 s and left; other disks 0 bytes; state files now: {' '.join(files.split())}")


@step("every crash point of the state writes: the state whole, every recorded coin there")
def crash_points(workdir, coins):
    """Every crash point of the first boot's state writes: its disk's write log replayed
    onto the disk as it was before, stopped after each write and flush (crashpoints.py).
    COINS: (coins, log entries) as the Kiosk noted them."""
    lines, failures = crashpoints.run(os.path.join(workdir, "state-before.img"), os.path.join(workdir, "state.log"),
                                      coins)
    require(not failures, "; ".join(lines) + "; " + "; ".join(failures[:5]))
    return "; ".join(lines)
