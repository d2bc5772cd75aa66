"""The state files' rules and the verdict over the crash points (crashpoints.py replays
them): at every point each state file there parses whole by the kiosk's rules
(StateStore.parse, HighScoreTable.parseEntries); each is a whole version, old or new, never
a mix: the kiosk replaces a file by renaming a new one over it, so one inode (number and
generation) must hold the same bytes at every point it is seen, and a version once replaced
never comes back; a state file once there stays there; every coin the kiosk had reported
recorded is in the counters (counted from the books reset they followed), a books reset is
there from when the operator saw it done and not before it was asked for, and each file as
the test read it on the board is there by then. A control file rewritten in place (as the
kiosk must not) must be caught both torn and changed under one inode."""
import re

STATE_FILES = ("scores", "settings", "counters")
NUMERIC = ("scores", "counters")
# A high-score table's line in `scores` (StateStore.tablePrefix): the variant's key after it.
TABLE_PREFIX = b"top."
# The system test's control: a directory on the state disk where a file is rewritten in
# place (truncate, write, fsync), as the kiosk must not; the replay must find it torn.
CONTROL = "crash-control"
CONTROL_FILE = CONTROL + "/counters"
KEY = re.compile(rb"^[A-Za-z0-9._-]{1,128}$")
# A high-score table's entry (HighScoreEntry(stored:)): score, three letters, a date.
ENTRY = re.compile(rb"^[0-9]+:[A-Z]{3}:[0-9-]{10}$")

def parse_state(name, data):
    """None when `data` is a whole state file by the kiosk's rules (StateStore.parse),
    else why not."""
    if not data:
        return "empty"
    if not data.endswith(b"\n"):
        return "truncated (no final newline)"
    if b"\0" in data:
        return "holds NUL bytes"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8"
    for number, line in enumerate(data.split(b"\n")[:-1], 1):
        if not line or line.startswith(b"#"):
            continue
        key, eq, value = line.partition(b"=")
        if not eq:
            return f"line {number}: no '='"
        if not KEY.match(key):
            return f"line {number}: bad key"
        if name == "scores" and key.startswith(TABLE_PREFIX):
            parts = value.split(b",") if value else []
            if len(parts) > 10 or not all(ENTRY.match(p) for p in parts):
                return f"line {number}: not a high-score table"
        elif name in NUMERIC and not value.isdigit():
            return f"line {number}: not a whole number"
    return None


def counters_of(data):
    out = {}
    for line in data.split(b"\n"):
        key, eq, value = line.partition(b"=")
        if eq and value.isdigit():
            out[key.decode()] = int(value)
    return out


class Verdict:
    """The checks over the points in order (see the module's doc)."""

    def __init__(self, coins, expect, resets):
        self.failures = []
        # (coins, entries, the books' reset mark they count from: 0 before any reset)
        self.coins = sorted(((c[0], c[1], c[2] if len(c) > 2 else 0) for c in coins), key=lambda c: c[1])
        self.expect = expect
        self.resets = resets
        self.present = {}
        self.current = {}            # file -> (inode, generation) at the last point
        self.retired = {n: set() for n in STATE_FILES}
        self.bytes_of = {}           # (file, inode, generation) -> bytes
        self.mixed = set()           # (file, inode, generation) seen with two contents
        self.versions = {n: set() for n in STATE_FILES}
        self.first_seen = {}         # (file, bytes) -> first point
        self.highest_coins = 0
        self.control_seen = self.control_torn = 0
        self.parsed = {}

    def whole(self, name, data):
        if (name, data) not in self.parsed:
            self.parsed[(name, data)] = parse_state(name, data)
        return self.parsed[(name, data)]

    def same_inode(self, point, name, ident, data):
        """False (and a failure, once) when this inode held other bytes at another point."""
        key = (name,) + ident
        if self.bytes_of.setdefault(key, data) == data:
            return True
        if key not in self.mixed:
            self.mixed.add(key)
            if name != CONTROL_FILE:
                self.failures.append(f"point {point}: {name} changed in place (inode {ident[0]} holds other bytes "
                                     "than at an earlier point): a mix of old and new")
        return False

    def point(self, point, problem, files, ids):
        if problem:
            self.failures.append(f"point {point}: {problem}")
            return
        if CONTROL_FILE in files:
            self.control_seen += 1
            self.control_torn += parse_state("counters", files[CONTROL_FILE]) is not None
            self.same_inode(point, CONTROL_FILE, ids[CONTROL_FILE], files[CONTROL_FILE])
        for name in STATE_FILES:
            if name not in files:
                if name in self.present:
                    self.failures.append(f"point {point}: {name} is missing (there since point {self.present[name]})")
                continue
            data, ident = files[name], ids[name]
            why = self.whole(name, data)
            if why:
                self.failures.append(f"point {point}: {name} is not whole: {why}")
            self.same_inode(point, name, ident, data)
            if self.current.get(name) != ident:
                if ident in self.retired[name]:
                    self.failures.append(f"point {point}: {name} went back to a version it had left (inode {ident[0]})")
                if name in self.current:
                    self.retired[name].add(self.current[name])
                self.current[name] = ident
            self.versions[name].add(data)
            self.present.setdefault(name, point)
            self.first_seen.setdefault((name, data), point)
        counters = counters_of(files.get("counters", b""))
        have, mark = counters.get("coins", 0), counters.get("bookkeeping.reset_at", 0)
        self.highest_coins = max(self.highest_coins, have)
        # Coins count from the last books reset: those before it are owed until it is there.
        owed = max([n for n, at, since in self.coins if at <= point and since == mark], default=0)
        if have < owed:
            self.failures.append(f"point {point}: counters say coins={have}, but the kiosk had reported coin {owed} recorded")
        marks = [reset for reset, _, _ in self.resets]
        for i, (reset, asked, done) in enumerate(self.resets):
            if mark == reset and point < asked:
                self.failures.append(f"point {point}: the books read reset before the operator asked")
            if point >= done and mark not in marks[i:]:  # this reset or a later one
                self.failures.append(f"point {point}: the books reset the operator saw done is not there")

    def finish(self):
        for name, data, at in self.expect:
            seen = self.first_seen.get((name, data))
            if seen is None or seen > at:
                self.failures.append(f"{name} as read on the board after {at} log entries "
                                     f"{'was never seen' if seen is None else f'first appears at point {seen}'}: "
                                     f"{data[:80]!r}")
        control_mixed = sum(1 for key in self.mixed if key[0] == CONTROL_FILE)
        if self.control_seen and not self.control_torn:
            self.failures.append("the control's file, rewritten in place, was never found torn: the replay cannot see "
                                 "a torn write")
        if self.control_seen and not control_mixed:
            self.failures.append("the control's file, rewritten in place, never showed other bytes under one inode: "
                                 "the replay cannot see a mix")
        return control_mixed
