"""One way for the image and package tests to print what they checked (images/deb,
images/rpi): a line per check, `PASS what[: detail]` or `FAIL what[: detail]`, optionally
after a `[tag Ns]` prefix with the seconds since the test began, and the last line
`N passed, M failed`.

Two ways to check:
- `check(cond, what)`: each check needs the ones before it (a package test's steps); the
  first failure prints the summary and exits 1.
- `step(name, fn, *args)`: independent checks (a card's partitions, each overlay); `fn`
  returns a detail or None and fails by raising (an AssertionError's text is the detail);
  the test goes on, and `summary()` gives the exit status.
Python 3 standard library only."""
import sys
import time


class Results:
    def __init__(self, tag=None):
        self.tag = tag
        self.passed = 0
        self.failed = 0
        self.t0 = time.monotonic()

    def _prefix(self):
        return f"[{self.tag} {time.monotonic() - self.t0:5.0f}s] " if self.tag else ""

    def log(self, msg):
        """A line that is not a check (what the test is doing), with the same prefix."""
        print(f"{self._prefix()}{msg}", flush=True)

    def record(self, ok, what, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        print(f"{self._prefix()}{'PASS' if ok else 'FAIL'} {what}{': ' + detail if detail else ''}", flush=True)
        return ok

    def check(self, cond, what):
        """A check the rest depends on: on failure, the summary and exit status 1."""
        if not self.record(bool(cond), what):
            self.summary()
            sys.exit(1)

    def step(self, name, fn, *args):
        """An independent check: fn(*args) returns a detail (or None) or raises."""
        try:
            detail, ok = fn(*args) or "", True
        except AssertionError as e:
            detail, ok = str(e), False
        except Exception as e:
            detail, ok = f"{type(e).__name__}: {e}", False
        return self.record(ok, name, detail)

    def summary(self):
        """Prints `N passed, M failed`; the exit status (0 when nothing failed)."""
        print(f"{self.passed} passed, {self.failed} failed", flush=True)
        return 0 if self.failed == 0 and self.passed > 0 else 1
