"""The one way the image, package and board tests print what they checked: a line per
check, `PASS what[ (N.N s)][: detail]` or `FAIL ...`, optionally after a `[tag Ns]` prefix
with the seconds since the test began, and the last line `N passed, M failed`.

Two ways to check:
- `check(cond, what)`: each check needs the ones before it (a package test's steps); the
  first failure prints the summary and exits 1.
- `step(name, fn, *args)`: independent checks (a card's partitions, a board's checks); `fn`
  returns a detail or None and fails by raising `Failed` (or any AssertionError: its text
  is the detail); the test goes on, and `summary()` gives the exit status. A broken rig
  (any other exception) is a failure too, with its traceback on stderr.
Python 3 standard library only."""
import sys
import time
import traceback


class Failed(AssertionError):
    """A check that did not hold; its text says what was seen."""


def require(cond, message):
    """Raises Failed(message) unless cond holds."""
    if not cond:
        raise Failed(message)


class Results:
    def __init__(self, tag=None, timed=False):
        self.tag = tag
        # timed: each step's line carries its seconds, `PASS what (12.3 s): detail`.
        self.timed = timed
        self.passed = 0
        self.failed = 0
        self.t0 = time.monotonic()

    def _prefix(self):
        return f"[{self.tag} {time.monotonic() - self.t0:5.0f}s] " if self.tag else ""

    def log(self, msg):
        """A line that is not a check (what the test is doing), with the same prefix."""
        print(f"{self._prefix()}{msg}", flush=True)

    def record(self, ok, what, detail="", seconds=None):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        took = f" ({seconds:.1f} s)" if seconds is not None else ""
        print(f"{self._prefix()}{'PASS' if ok else 'FAIL'} {what}{took}{': ' + detail if detail else ''}", flush=True)
        return ok

    def check(self, cond, what):
        """A check the rest depends on: on failure, the summary and exit status 1."""
        if not self.record(bool(cond), what):
            self.summary()
            sys.exit(1)

    def step(self, name, fn, *args):
        """An independent check: fn(*args) returns a detail (or None) or raises."""
        t0 = time.monotonic()
        try:
            detail, ok = fn(*args) or "", True
        except AssertionError as e:
            detail, ok = str(e), False
        except Exception as e:
            detail, ok = f"{type(e).__name__}: {e}", False
            traceback.print_exc(file=sys.stderr)
        return self.record(ok, name, detail, time.monotonic() - t0 if self.timed else None)

    def summary(self):
        """Prints `N passed, M failed`; the exit status (0 when nothing failed)."""
        print(f"{self.passed} passed, {self.failed} failed", flush=True)
        return 0 if self.failed == 0 and self.passed > 0 else 1
