"""The cabinet: a coin from the coin mech's own device is counted on the state partition;
a stranger's hot-plugged keyboard typing 5 is not a coin. (A coin through a power cut and
on an unwritable partition: faults.py; the coins' bytes on disk: wear.py.)"""
import time

from ..kiosk import wait_until
from ..results import require
from . import step


@step("a coin from the mech's own device is counted; a hot-plugged keyboard's 5 is not")
def coin(k):
    """A coin: KEY_5 on the coin mech's own device (the profile's `[coin] device`), sent
    through QMP. The kiosk counts it in the state directory's counters, written before it
    is logged. Then a stranger hot-plugs a keyboard and types 5 (and the passer-by's
    keyboard too): no coin. That a coin survives an immediate power-off is
    `coin_power_cut`'s."""
    before = k.counter("coins")
    k.vb.coin()
    wait_until(lambda: k.counter("coins") >= before + 1, 30)
    after = k.counter("coins")
    require(after == before + 1, f"coins in the state's counters went {before} -> {after} after one coin from the mech")
    line = k.wait_journal(f"coin: {after} since", 30)
    require(line is not None, "the journal has no 'coin:' line")
    k.note_coin(after)
    known = k.journal_count('": keyboard$')
    k.vb.plug_keyboard("stranger")
    require(wait_until(lambda: k.journal_count('": keyboard$') > known, 60, every=2.0),
            "the kiosk never opened the hot-plugged keyboard")
    for _ in range(3):
        k.vb.chord("5")
        time.sleep(0.3)
    time.sleep(3.0)
    stranger = k.counter("coins")
    require(stranger == after, f"a hot-plugged keyboard typing 5 moved the coins {after} -> {stranger}")
    return f"coins {before} -> {after} on disk; journal: {line}; a hot-plugged keyboard typing 5 three times: still {stranger}"
