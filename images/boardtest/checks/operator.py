"""The operator's menu on the A/B disk board, used as an operator does: the service key,
the PIN on the pad, the System tab read with OCR (tesseract), "Update from USB" and its
Install; and the USB sticks, mounted only while an operator page asks for them."""
import difflib
import os
import subprocess
import time

from ..results import require


class OperatorMenu:
    def __init__(self, ab):
        self.ab, self.vb, self.kiosk, self.dir, self.sh = ab, ab.vb, ab.kiosk, ab.dir, ab.sh
        # How much slower than the x86 board this one runs (its waits are scaled by it).
        self.slow = ab.vb.slowdown
        # What was mounted under /run/boardwalk-usb while the System tab was open.
        self.mounted_for_operator = []

    # Where the operator's PIN pad, System tab and update page buttons are on the 1280x800
    # board (screen pixels, from screendumps of the same screens).
    PIN_KEYS = {"1": (442, 268), "2": (640, 268), "3": (837, 268), "4": (442, 416), "5": (640, 416),
                "6": (837, 416), "7": (442, 565), "8": (640, 565), "9": (837, 565), "0": (640, 714)}
    PIN_OK = (837, 714)
    SYSTEM_TAB = (923, 64)
    DONE = (1158, 64)
    UPDATE_BUTTON = (1132, 381)   # the System tab's "Update from USB" row
    SERVICE_TAB = (664, 64)
    BOOKS_OPEN = (1132, 381)      # the Service tab's "Bookkeeping" row
    VOLUME_DOWN = (1062, 176)     # the Screen tab's first row, its "−"
    BOOKS_RESET = (1132, 518)     # the books page's Reset, under the counters of four games
    INSTALL_BUTTON = (1132, 279)  # the update page's "Its version" row
    PRIMARY = (255, 185, 60)      # Theme.accent: a primary button's face
    W, H = 1280, 800

    def tap(self, point, wait=0.4):
        self.vb.tap(*point, self.W, self.H)
        time.sleep(wait)

    def open_menu(self):
        """As an operator: the service key (F12), the PIN tapped on the pad; the menu opens
        on its Screen tab."""
        self.kiosk.wait_active(180 * self.slow)
        # No wait for the start-up work (the tunes: minutes under TCG on one vCPU): the
        # PIN's PBKDF2 runs on a thread of its own, and the run loop feeds the watchdog.
        opened = lambda: int(self.sh("journalctl -b -u boardwalk.service -o cat | grep -c '^operator menu: opened'")[1] or 0)
        before = opened()
        self.vb.chord("f12")
        time.sleep(2.0)
        # Typed again if a tap was missed (a busy emulated guest): the pad clears a wrong PIN.
        for attempt in range(2):
            for digit in os.environ["BOARDWALK_VB_PIN"]:
                self.tap(self.PIN_KEYS[digit])
            self.tap(self.PIN_OK, 2.0)
            deadline = time.monotonic() + 60 * self.slow  # the PIN's PBKDF2 (100k rounds) under emulation
            while opened() == before and time.monotonic() < deadline:
                time.sleep(2.0)
            if opened() > before:
                break
        require(opened() > before, "the operator menu did not open: the PIN typed twice on the pad was not taken")

    def open_system_tab(self):
        self.open_menu()
        self.tap(self.SYSTEM_TAB, 2.0)

    def primary_button(self, name):
        """The centre of a dialog's one bright primary button over the dimmed page (the
        page's own buttons are at its right edge), or None."""
        import numpy as np
        a = self.kiosk.shot(name).array()[150:750, 250:1000]
        ys, xs = np.nonzero((np.abs(a - np.array(self.PRIMARY)) < 40).all(axis=2))
        return (int(xs.mean()) + 250, int(ys.mean()) + 150) if len(xs) > 2000 else None

    def ocr(self, name):
        """A screendump (NAME.png in the workdir) read by tesseract."""
        self.kiosk.shot(name)
        png = os.path.join(self.dir, name + ".png")
        return subprocess.run(["tesseract", png, "-", "--psm", "6"], capture_output=True, text=True).stdout

    @staticmethod
    def near(a, b):
        """OCR misreads a character or two of a commit id: at most 2 edits apart."""
        return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b).get_opcodes()
                   if tag != "equal") <= 2

    def version_on_screen(self, name, expected, not_expected):
        """Reads the version as an operator does, on the System tab (OCR); returns the line
        it read. Leaves the menu with Done."""
        self.open_system_tab()
        text = self.ocr(name)
        self.tap(self.DONE)
        line = next((l.strip() for l in text.splitlines() if l.strip().lower().startswith("version")), "")
        require(line, f"{name}: no Version line on the System tab (OCR read: {text.strip()[:300]!r})")
        word = (line.split(None, 1)[1].split() or [""])[0] if " " in line else ""
        require(self.near(word, expected) and not self.near(word, not_expected),
              f"{name}: the System tab says {line!r}, not version {expected}")
        return line

    def usb_mounts(self):
        """What is mounted under /run/boardwalk-usb: (device, file system) pairs."""
        rc, out = self.sh("findmnt -rn -o SOURCE,FSTYPE,TARGET | grep ' /run/boardwalk-usb/' || true")
        return [tuple(l.split()[:2]) for l in out.splitlines() if l.strip()]

    def sticks_unmounted(self, when, timeout=30):
        """The USB sticks plugged in all along (the bundle's FAT stick, the copies of the
        disk and the state) are not mounted while no operator page asks for them. Returns
        a summary."""
        rc, out = self.sh("ls /sys/class/block | grep -c '^sd' || true")
        deadline = time.monotonic() + timeout
        mounts = self.usb_mounts()
        while mounts and time.monotonic() < deadline:
            time.sleep(2.0)
            mounts = self.usb_mounts()
        require(int(out.strip() or 0) > 0, f"{when}: no USB stick's block device on the board")
        require(not mounts, f"{when}: USB sticks mounted while no operator page asks for them: {mounts}")
        return f"{out.strip()} stick block devices, none mounted {when}"

    def install_from_menu(self, bundle_name, version, timeout=900):
        """"Update from USB" as an operator does it: the System tab finds the bundle on the
        stick, its page reads the version (RAUC's Info over D-Bus), Install, the dialog's
        Install, then the progress until the page says installed (the kiosk's journal says
        the same). Returns the seconds the install took."""
        self.open_system_tab()
        # The sticks are mounted once the tab asks (boardwalk-usb.path), which it looks at
        # again every 2 s: a few seconds on a busy emulated board.
        for attempt in range(10):
            text = self.ocr("ab-menu-01-system-tab")
            if any(self.near(word, bundle_name) for word in text.split()):
                break
            time.sleep(3.0)
        require(any(self.near(word, bundle_name) for word in text.split()),
              f"the System tab does not offer {bundle_name} (OCR read: {text.strip()[:300]!r})")
        self.mounted_for_operator = self.usb_mounts()
        require(self.mounted_for_operator and all(fs in ("vfat", "exfat") for _, fs in self.mounted_for_operator),
              f"with the System tab open, the sticks mounted are not FAT or exFAT alone: {self.mounted_for_operator}")
        self.tap(self.UPDATE_BUTTON, 1.0)
        deadline = time.monotonic() + 120 * self.slow
        while time.monotonic() < deadline:
            rc, log = self.sh("journalctl -b -u boardwalk.service -o cat | grep -e '^update: ' | tail -1")
            if "ready(" in log or "failed(" in log:
                break
            time.sleep(2.0)
        require("ready(" in log and version in log, f"the update page did not read the bundle's version: {log}")
        # The dialog's Install: the one bright primary button in the middle of the screen,
        # over the dimmed page (the page's own Install and Done are at its right edge).
        # Tapped again if the dialog is not up yet (a busy emulated guest can miss a tap).
        button = None
        for attempt in range(3):
            self.tap(self.INSTALL_BUTTON, 2.0)
            button = self.primary_button("ab-menu-02-dialog")
            if button:
                break
        require(button, "no confirmation dialog with an Install button on the screen")
        timeout *= self.slow
        t0 = time.monotonic()
        self.tap(button, 3.0)
        self.kiosk.shot("ab-menu-03-installing")
        while time.monotonic() < t0 + timeout:
            rc, log = self.sh("journalctl -b -u boardwalk.service -o cat | grep -e '^update: ' | tail -1")
            if " installed " in log or "failed" in log:
                break
            time.sleep(3.0)
        require(" installed " in log, f"the install from the menu did not end installed: {log}")
        took = time.monotonic() - t0
        for attempt in range(6):  # the page shows it on its next frame
            time.sleep(2.0)
            text = self.ocr("ab-menu-04-installed")
            if "is installed" in text:
                break
        require("is installed" in text, f"the update page does not say installed (OCR read: {text.strip()[:300]!r})")
        self.tap(self.DONE)
        return took
