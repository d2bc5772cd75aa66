"""SD card wear and crash points: the bytes the kiosk writes to the state partition (none
while idle), and every crash point of those writes replayed (crashpoints.py): the state
whole, every coin the kiosk had counted there."""
import json
import os
import re
import time
import types

from .. import crashpoints
from ..kiosk import FIRST_TILE, wait_until

# Beat Zombies' "Play again" on its end panel, as fractions of the screen (640, 688 of 1280x800).
PLAY_AGAIN = (0.5, 0.86)
from ..results import require
from . import step
from .operator import OperatorMenu


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


def operator_menu(k):
    """The operator menu's helper (operator.py) on this board."""
    return OperatorMenu(types.SimpleNamespace(vb=k.vb, kiosk=k, dir=k.vb.workdir, sh=k.sh))


def drop_coins(k, count, first, burst=1, mark=0, between=None):
    """COUNT coins from FIRST + 1 on, BURST at a time, each burst on disk before the next
    drops; each burst's coins noted for the crash points. BETWEEN: called after each burst.
    The pulses are 0.25 s apart, three times the mech's bounce interval, but a loaded host
    can hand QEMU's events to the guest closer together: a pulse the kiosk bounced is one
    it never counted (its journal's last coin line is the counters' value), and is dropped
    again. Returns the coins now."""
    n = first
    while n < first + count:
        if between and n > first:
            between()
        step = min(burst, first + count - n)
        for _ in range(step):
            k.vb.coin()
            time.sleep(0.15)
        wait_until(lambda: k.counter("coins") >= n + step, 30, every=0.2)
        now = k.counter("coins")
        if now < n + step:
            time.sleep(2.0)
            now = k.counter("coins")
            line = k.journal_line_last("^coin: ")
            counted = int(line.split()[1]) if line else -1
            require(n <= now == counted, f"coins {n + 1}-{n + step} of {first + count}: the counters say {now}, "
                    f"the kiosk's journal counted {counted}")
        require(now <= n + step, f"{now - n} coins counted for {step} dropped")
        n = now
        k.note_coin(n, mark)
    return n


def high_score(k, coins_from, coins):
    """Beat Zombies played with Enter for a while, then left until the zombies win (~50 s),
    coins dropping all along (more crash points in the same minute), then initials for its top-ten table, as a player
    types them once the screen asks (read with OCR): a letter up, Enter for each slot.
    Returns (the journal's high-score line, the coins now, the disk's counters once the
    last coin was on disk, or None when the table's entry was already written then: the
    zombies won and the initials screen gave up while coins still dropped)."""
    known = k.journal_count("^high scores: ")
    op = operator_menu(k)
    k.tap(*FIRST_TILE)
    t0 = time.monotonic()

    def play():
        # Enter beats the zombie nearest the selection: a score above 0, so a new best
        # (`scores`) as well as the table; well before the zombies win (Enter would then
        # press the restart button).
        if 12 < time.monotonic() - t0 < 35:
            k.vb.key("ret")
    n = drop_coins(k, coins, coins_from, burst=8, between=play)
    # The game's own writes counted from here: its coins are on disk (each fsync'd).
    after_coins = disk_writes(k) if k.journal_count("^high scores: ") == known else None
    # The initials screen times out after 20 s and takes "AAA": the entry is written either way.
    while k.journal_count("^high scores: ") == known and time.monotonic() < t0 + 150:
        time.sleep(3.0)
        if time.monotonic() > t0 + 45 and "high score" in op.ocr("11-zombies-initials").lower():
            for key in ("up", "ret", "ret", "ret"):
                k.vb.key(key)
                time.sleep(0.5)
            wait_until(lambda: k.journal_count("^high scores: ") > known, 20, every=2.0)
    require(k.journal_count("^high scores: ") > known, "no high score entered after Beat Zombies ended "
            f"({time.monotonic() - t0:.0f} s)")
    line = k.journal_line("^high scores: ")
    time.sleep(2.0)
    for _ in range(2):  # the table, then the game's end: home
        k.vb.key("esc")
        time.sleep(1.0)
    # Beat Zombies keeps its finished game: opened again it shows "The zombies won!".
    # Play again, and home, so that the next check finds zombies walking.
    k.tap(*FIRST_TILE)
    time.sleep(3.0)
    k.tap(*PLAY_AGAIN)
    time.sleep(3.0)
    k.vb.key("esc")
    time.sleep(1.0)
    return line, n, after_coins


def operator_change_and_reset(k):
    """As an operator: the menu (F12, the PIN), the volume down a step (`settings`), the
    books reset (`counters`), confirmed in its dialog. Returns the reset's mark."""
    op = operator_menu(k)
    op.open_menu()
    time.sleep(2.0)
    before = k.sh("cat /var/lib/boardwalk/settings 2>/dev/null")[1]
    # Written within the store's 10 s, or with the reset's flush, whichever comes first.
    op.tap(op.VOLUME_DOWN, 1.0)
    op.tap(op.SERVICE_TAB, 2.0)
    op.tap(op.BOOKS_OPEN, 2.0)
    asked = k.log_entries()
    resets = k.journal_count("^bookkeeping: counters reset")
    button = None
    for attempt in range(3):
        op.tap(op.BOOKS_RESET, 2.0)
        button = op.primary_button(f"12-books-reset-dialog-{attempt}")
        if button:
            break
    require(button, "no confirmation dialog with a Reset button on the books page")
    op.tap(button, 2.0)
    require(wait_until(lambda: k.journal_count("^bookkeeping: counters reset") > resets, 30, every=2.0),
            "the books reset was confirmed, but the journal never said so")
    require(wait_until(lambda: k.sh("cat /var/lib/boardwalk/settings 2>/dev/null")[1] != before, 30, every=2.0),
            "the volume stepped down in the operator menu never reached the settings file")
    mark = k.counter("bookkeeping.reset_at")
    k.resets.append((mark, asked, k.log_entries()))
    for _ in range(3):  # the books page, the menu, home
        k.vb.key("esc")
        time.sleep(1.0)
    return mark


@step("SD card wear: nothing written idle; bytes per coin, game, high score, operator change, books reset")
def wear(k):
    """SD card wear: bytes written to the state partition while idle (the menu, then the
    attract mode), per coin, per game with its high score, per operator change and books
    reset, from the guest's block device counters. Idle must write nothing, and nothing may
    touch any other disk (this board's root is the initramfs, in RAM: any block device
    written besides the state disk is a fault). The writes go to the crash points: the state
    files are read after each part, the coins as each is on disk."""
    idle_seconds, coins, game_coins = 60.0, 24, 160
    pid = k.pid()

    k.vb.key("esc")
    start = settled_writes(k)
    time.sleep(idle_seconds)
    idle = disk_writes(k)
    idle_state = idle[0] - start[0]
    # Coins, each on disk before the next drops, then in fours.
    first = k.counter("coins")
    n = drop_coins(k, 10, first)
    n = drop_coins(k, coins - 10, n, burst=4)
    coined = settled_writes(k)
    k.note_files()
    scored, n, after_coins = high_score(k, n, game_coins)
    played = settled_writes(k)
    k.note_files()
    mark = operator_change_and_reset(k)
    n = drop_coins(k, 8, 0, burst=4, mark=mark)
    operated = settled_writes(k)
    k.note_files()
    rc, files = k.sh("cd /var/lib/boardwalk && wc -c scores counters settings 2>/dev/null | head -3")
    # The crash points' control (crashstate.py): a file rewritten in place in two steps,
    # each fsync'd, as the kiosk must never write: the replay must catch it torn, and
    # holding other bytes under the same inode.
    rc, out = k.sh(f"mkdir -p /var/lib/boardwalk/{crashpoints.CONTROL} && cd /var/lib/boardwalk/{crashpoints.CONTROL} && "
                   "for n in 1 2 3; do printf '# control\\ncoins=' > counters && sync counters && "
                   "printf '%d\\n' $n >> counters && sync counters; done")
    require(rc == 0, f"the crash points' control could not be written: {out.strip()}")
    per_coin = (coined[0] - idle[0]) / coins
    per_game = played[0] - after_coins[0] if after_coins else None
    per_operator = operated[0] - played[0] - 8 * per_coin
    require(k.pid() == pid, "the kiosk restarted during the measurement")
    require(idle_state == 0, f"the state partition took {idle_state} bytes in {idle_seconds:.0f} s idle "
            f"({idle_state * 3600 / idle_seconds / 1024:.0f} KiB an hour)")
    require(operated[1] - start[1] == 0, f"{operated[1] - start[1]} bytes written to a disk other than the state partition")
    game = (f"{per_game / 1024:.1f} KiB for a game to its end and its high score" if per_game is not None else
            "a game's end and its high score not measured (its entry was on disk before the last coin)")
    return (f"state partition: 0 bytes in {idle_seconds:.0f} s idle (menu, then attract mode); "
            f"{per_coin / 1024:.1f} KiB per coin ({coins} coins); {game} "
            f"({scored}; from its last coin on: {game_coins} coins dropped while it played); "
            f"{per_operator / 1024:.1f} KiB for a volume change and a books reset (8 coins after it taken out); "
            f"other disks 0 bytes; state files now: {' '.join(files.split())}")


@step("every crash point of the state writes: the state whole, old or new, every recorded coin there")
def crash_points(workdir, notes):
    """Every crash point of the first boot's state writes: its disk's write log replayed
    onto the disk as it was before, stopped after each write and flush (crashpoints.py).
    NOTES: the Kiosk's crash_notes() (the coins, the files read, the books resets), kept in
    crash-expect.json beside the log for a replay by hand."""
    with open(os.path.join(workdir, "crash-expect.json"), "w") as f:
        json.dump(notes, f)
    lines, failures = crashpoints.run(os.path.join(workdir, "state-before.img"), os.path.join(workdir, "state.log"),
                                      notes["coins"], expect=[(n, t.encode(), at) for n, t, at in notes["files"]],
                                      resets=notes["resets"])
    require(not failures, "; ".join(lines) + "; " + "; ".join(failures[:5]))
    return "; ".join(lines)
