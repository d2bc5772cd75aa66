"""The system test's checks, one module per concern: startup, display (screen and touch),
sound, cabinet (coins), lockdown, faults, monitoring (metrics and CPU), storage (wear and
crash points), updates (the A/B disk board; ab_board and operator are its helpers). A
check on the first boot is a function of the Kiosk (boardtest.kiosk) that returns a detail
line or raises Failed; `step` gives it the text of its PASS/FAIL line.
images/virtual-board/test_system.py puts them in order; its `--only` takes a check's
function name or a module's name."""


def step(title):
    """Names a check: the text of its PASS/FAIL line."""
    def mark(fn):
        fn.title = title
        return fn
    return mark
