"""The virtual board: the kiosk's image under QEMU (TCG), driven from the host.

The guest has real kernel drivers for what a board has: virtio-gpu (DRM/KMS), a virtio
tablet (evdev), a sound card recorded to a wav file (AC97 on x86_64, USB audio on the
arm64 virt machine), and uinput for replaying real touchscreen recordings. The host talks
to it over QEMU's channels (qemu.py): the HMP monitor (screendump, quit), QMP (taps, keys,
coins, hot-plug), the serial console's log, and the test images' root command channel.
Python 3 standard library (numpy for the screendumps' array methods).
"""
import os
import shutil
import socket
import subprocess
import sys
import threading
import time

from . import qemu
from .images import make_state_disk, profile_value
from .screendump import Image

HERE = os.path.dirname(os.path.abspath(__file__))
TCP_RELAY = os.path.join(os.path.dirname(HERE), "virtual-board", "tcp-relay.py")

# The disk board's UEFI firmware (Debian's ovmf, qemu-efi-aarch64's AAVMF), as (code,
# variables): the code read-only, the variables a copy per workdir.
UEFI = {"amd64": ("/usr/share/OVMF/OVMF_CODE_4M.fd", "/usr/share/OVMF/OVMF_VARS_4M.fd"),
        "arm64": ("/usr/share/AAVMF/AAVMF_CODE.fd", "/usr/share/AAVMF/AAVMF_VARS.fd")}
# The disk board's vCPUs: one on x86, where OVMF's wake-up of a second one hangs (below); two
# on arm64 (PSCI starts them, no such wake-up).
DISK_BOARD_CPUS = {"amd64": 1, "arm64": 2}
# How much longer the emulated board may take than the x86 one (TCG emulating arm64 on an
# x86 host: the arm64 disk board READY at 50-90 s of uptime on its first boot, the x86 one's
# 12-20 s, 2026-12-07): the disk board's waits are scaled by it, its checks are the same.
SLOWDOWN = {"amd64": 1.0, "arm64": 2.0}

# What differs between the two virtual boards; everything else is one recipe.
MACHINES = {
    # TCG: /dev/kvm hangs in the BIOS on these machines (notes/virtual-board.md).
    # Without -vga none the screendump shows the VGA text console, not the CRTC.
    "amd64": ["qemu-system-x86_64", "-vga", "none",
              "-audiodev", "wav,id=snd0,path={wav}", "-device", "AC97,audiodev=snd0"],
    # Debian's arm64 kernel has no AC97 and intel-hda's codecs don't probe under TCG: USB
    # audio on xhci.
    # `virt` has no hot-pluggable slot on its root bus: a PCIe root port gives one (the
    # stranger's keyboard, plug_keyboard).
    # No RTC, as on a Pi: the profile's command line keeps the PL031's driver out, and the
    # PL031 itself says 1970 should that ever change.
    "arm64": ["qemu-system-aarch64", "-M", "virt", "-cpu", "cortex-a72", "-rtc", "base=1970-01-01",
              "-audiodev", "wav,id=snd0,path={wav}", "-device", "qemu-xhci",
              "-device", "usb-audio,audiodev=snd0", "-device", "pcie-root-port,id=hotplug0,chassis=1"],
}


# The coin mech's serial number: the evdev uniq the profiles' `[coin] device` names.
COIN_MECH_SERIAL = "coin-mech"


def free_port():
    """A TCP port on 127.0.0.1 nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class VirtualBoard:
    def __init__(self, workdir, kernel, initrd, cmdline, display="none", memory_mb=1536, state_disk="auto",
                 arch="amd64", boot_disk=None, disks=(), usb_sticks=(), state_log=None, guestfwd=(),
                 serial_console=False, open_network=False):
        self.arch = arch
        self.slowdown = SLOWDOWN[arch]
        # guestfwd: (port, host port) pairs: the guest's connections to 10.0.2.100:port go to
        # 127.0.0.1:host port on this machine (the fleet's server, boardtest/fleet_server.py); nothing
        # else outside is reachable (restrict=on).
        self.guestfwd = list(guestfwd)
        # serial_console: the serial port also takes input (type_serial), for a guest without
        # the test agent (a stock Debian system: its getty on the console). open_network: the
        # user network unrestricted, so the guest reaches this machine at 10.0.2.2.
        self.serial_console, self.open_network = serial_console, open_network
        self._serial_in = None
        # The node exporter's port in the guest ([metrics] exporter_port of the profile), and
        # the host port QEMU's user network forwards to it (127.0.0.1 only); None without one.
        port = profile_value(arch, "metrics", "exporter_port")
        self.exporter_port = int(port) if port.isdigit() and int(port) > 0 else None
        self.exporter_host_port = free_port() if self.exporter_port else None
        # The disk board: boot_disk is build-disk.sh's A/B disk, booted through UEFI
        # and GRUB (kernel, initrd and cmdline unused); the guest may reboot itself (an
        # update, a rollback): QEMU quits and is started again on the same disks, as a
        # board's reset starts its firmware afresh. One QEMU through the guest's resets
        # slowed with each (TCG, 2026-12-05: the firmware 6 -> 65 s and GRUB to the kernel
        # 8 -> 211 s by the fourth boot; a fresh QEMU on that same disk: 6 s and 8 s). disks:
        # more raw images, read-only virtio disks with serials usb0, usb1, ... usb_sticks: raw
        # images plugged in as USB mass-storage devices on an xHCI controller, as an
        # operator's stick is (the image's udev rule mounts them for the kiosk).
        self.boot_disk, self.disks, self.usb_sticks = boot_disk, list(disks), list(usb_sticks)
        self.workdir = os.path.abspath(workdir)
        # The state partition (/var/lib/boardwalk): a raw ext4 image, "auto" (state.img in
        # the workdir, made when missing) or None (no disk: the kiosk keeps state in memory).
        if state_disk == "auto":
            state_disk = os.path.join(self.workdir, "state.img")
            if not os.path.exists(state_disk):
                make_state_disk(state_disk)
        self.state_disk = state_disk
        # state_log: a file that QEMU's blklogwrites driver fills with every write and flush
        # the guest sends the state disk (crashpoints.py replays it); started afresh here,
        # appended to across QEMU's restarts.
        self.state_log = state_log
        if state_log and os.path.exists(state_log):
            os.unlink(state_log)
        os.makedirs(self.workdir, exist_ok=True)
        self.kernel, self.initrd, self.cmdline = kernel, initrd, cmdline
        self.display, self.memory_mb = display, memory_mb
        self.monitor_path = os.path.join(self.workdir, "monitor.sock")
        self.qmp_path = os.path.join(self.workdir, "qmp.sock")
        # A second QMP socket, read for the life of each QEMU: its events (qemu.EventLog).
        self.events_path = os.path.join(self.workdir, "qmp-events.sock")
        self.events_log = os.path.join(self.workdir, "qemu-events.log")
        self.event_logs = []  # one qemu.EventLog per QEMU started (a disk board's reboots)
        self.shell_path = os.path.join(self.workdir, "shell.sock")
        self.serial_path = os.path.join(self.workdir, "serial.log")
        self.serial_sock = os.path.join(self.workdir, "serial.sock")
        self.wav_path = os.path.join(self.workdir, "audio.wav")
        self.proc = None
        self.started = None
        self.restarts = 0
        self._stopping = False
        self._supervisor = None
        self.shell = qemu.GuestShell(self.shell_path)

    def qemu_args(self):
        extra = os.environ.get("BOARDWALK_VB_CMDLINE_EXTRA", "")
        machine = [a.format(wav=self.wav_path) for a in MACHINES[self.arch]]
        if self.boot_disk:
            code, variables = UEFI[self.arch]
            vars_copy = os.path.join(self.workdir, "UEFI_VARS.fd")
            if not os.path.exists(vars_copy):
                shutil.copyfile(variables, vars_copy)
            # As a Raspberry Pi, which has no clock: the board starts in 1970 (systemd lifts
            # its clock to its own build date), and updates must install all the same (the
            # arm64 machine says so already). A hardware watchdog (i6300esb on PCI, on both
            # machines; the guest's systemd feeds it) resets a hung board.
            boot = ([] if "-rtc" in machine else ["-rtc", "base=1970-01-01"]) + [
                    "-device", "i6300esb",
                    "-drive", f"if=pflash,format=raw,unit=0,readonly=on,file={code}",
                    "-drive", f"if=pflash,format=raw,unit=1,file={vars_copy}",
                    "-drive", f"file={self.boot_disk},if=none,id=boot,format=raw",
                    "-device", "virtio-blk-pci,drive=boot,bootindex=0"]
            for i, d in enumerate(self.disks):
                boot += ["-drive", f"file={d},if=none,id=usb{i},format=raw,readonly=on",
                         "-device", f"virtio-blk-pci,drive=usb{i},serial=usb{i}"]
            if self.usb_sticks:
                boot += ["-device", "qemu-xhci,id=sticks"]
            for i, d in enumerate(self.usb_sticks):
                boot += ["-drive", f"file={d},if=none,id=stick{i},format=raw",
                         "-device", f"usb-storage,bus=sticks.0,drive=stick{i},removable=on"]
        else:
            boot = ["-kernel", self.kernel, "-initrd", self.initrd, "-append", (self.cmdline + " " + extra).strip()]
        return machine[:1] + [
            # Two vCPUs on two host threads: the test's own commands in the guest then
            # don't steal the kiosk's CPU while it restarts. The A/B disk board boots
            # OVMF, whose wake-up of the second CPU hung twice in four runs of its steps
            # on 2026-12-04 (three full CI runs, one of the A/B steps alone) after the
            # guest's own reboot: both vCPUs spinning in firmware, no serial output for
            # 10+ min, a system_reset no help (edk2 knows a boot CPU spinning forever on
            # a second one that missed its start-up IPI). It gets one vCPU (DISK_BOARD_CPUS).
            "-accel", "tcg,thread=multi", "-m", str(self.memory_mb),
            "-smp", str(DISK_BOARD_CPUS[self.arch] if self.boot_disk else 2),
            "-nodefaults", "-no-user-config", "-no-reboot",
        ] + machine[1:] + [
            "-device", "virtio-gpu-pci,id=video0",
            "-device", "virtio-tablet-pci",
            # A keyboard plugged into the kiosk (QMP send-key): the passer-by test.
            "-device", "virtio-keyboard-pci",
            # The coin mech: a keyboard of its own whose serial (the evdev uniq) the profile's
            # `[coin] device` names. Bound to the display's console, so QMP events aimed at
            # video0 reach it alone (coin()); events aimed at no device go to the keyboard.
            "-device", f"virtio-keyboard-pci,serial={COIN_MECH_SERIAL},display=video0",
            "-device", "virtio-serial-pci",
            "-chardev", f"socket,id=shell,path={self.shell_path},server=on,wait=off",
            "-device", "virtserialport,chardev=shell,name=bw.shell",
            "-monitor", f"unix:{self.monitor_path},server,nowait",
            "-qmp", f"unix:{self.qmp_path},server,nowait",
            "-qmp", f"unix:{self.events_path},server,nowait",
            # Appended to: a disk board's next boot (a new QEMU) adds to the same log.
            "-chardev", (f"socket,id=serial0,path={self.serial_sock},server=on,wait=off,logfile={self.serial_path},logappend=on"
                         if self.serial_console else f"file,id=serial0,path={self.serial_path},append=on"),
            "-serial", "chardev:serial0",
            "-display", self.display,
        ] + boot + self.state_drive() + (
            # A network card on QEMU's user network, closed to the outside (restrict=on): only
            # the exporter's port is reachable, from this machine, and the guest reaches only
            # the fleet's server (guestfwd; a board without the exporter has it for that).
            ["-netdev", "user,id=net0,restrict=on"
             + (f",hostfwd=tcp:127.0.0.1:{self.exporter_host_port}-:{self.exporter_port}" if self.exporter_port else "")
             + "".join(f",guestfwd=tcp:10.0.2.100:{port}-cmd:{TCP_RELAY} {host}"
                       for port, host in self.guestfwd),
             "-device", "virtio-net-pci,netdev=net0"] if (self.exporter_port or self.guestfwd) and not self.open_network else
            ["-netdev", "user,id=net0", "-device", "virtio-net-pci,netdev=net0"] if self.open_network else [])

    def state_drive(self):
        if not self.state_disk:
            return []
        if not self.state_log:
            return ["-drive", f"file={self.state_disk},if=none,id=state,format=raw",
                    "-device", "virtio-blk-pci,drive=state"]
        if not os.path.exists(self.state_log):
            open(self.state_log, "wb").close()
        return ["-blockdev", f"driver=file,filename={self.state_disk},node-name=state-file",
                "-blockdev", f"driver=file,filename={self.state_log},node-name=state-log",
                "-blockdev", "driver=blklogwrites,file=state-file,log=state-log,log-append=on,node-name=state",
                "-device", "virtio-blk-pci,drive=state"]

    def scrape(self, timeout=10):
        """The exporter's /metrics as text, fetched from the host through the forwarded port."""
        import urllib.request
        with urllib.request.urlopen(f"http://127.0.0.1:{self.exporter_host_port}/metrics", timeout=timeout) as r:
            return r.read().decode("utf-8", "replace")

    def start(self):
        for p in (self.monitor_path, self.qmp_path, self.shell_path, self.serial_path, self.wav_path, self.events_log):
            if os.path.exists(p):
                os.unlink(p)
        self.qemu_log = open(os.path.join(self.workdir, "qemu.log"), "wb")
        self.started = time.monotonic()
        self._launch()
        if self.boot_disk:
            self._supervisor = threading.Thread(target=self._restart_on_reset, daemon=True)
            self._supervisor.start()

    def _launch(self):
        for p in (self.monitor_path, self.qmp_path, self.events_path, self.shell_path, self.serial_sock):
            if os.path.exists(p):
                os.unlink(p)
        self._serial_from = len(self.serial())
        self.proc = subprocess.Popen(self.qemu_args(), stdin=subprocess.DEVNULL,
                                     stdout=self.qemu_log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while not os.path.exists(self.monitor_path):
            if self.proc.poll() is not None:
                raise RuntimeError(f"qemu exited ({self.proc.returncode}); see {self.qemu_log.name}")
            if time.monotonic() > deadline:
                raise RuntimeError("qemu's monitor socket never appeared")
            time.sleep(0.05)
        self.event_logs.append(qemu.EventLog(self.events_path, self.events_log))

    def _restart_on_reset(self):
        """The disk board: QEMU (-no-reboot) quits when the guest resets itself; start it
        again, unless the test stopped it or the guest powered off."""
        while True:
            rc = self.proc.wait()
            if self._stopping or rc != 0 or "reboot: Power down" in self.serial()[self._serial_from:]:
                return
            try:
                self.shell.close()
                self._launch()
                self.restarts += 1
            except Exception as e:  # reported by alive() as a QEMU that exited
                print(f"virtual board: QEMU did not start again after the guest's reset: {e}", file=sys.stderr, flush=True)
                return

    def alive(self):
        """QEMU runs, or is being started again after the guest's own reset."""
        if self.proc is not None and self.proc.poll() is None:
            return True
        t = self._supervisor
        deadline = time.monotonic() + 20
        while t is not None and t.is_alive() and time.monotonic() < deadline:
            if self.proc.poll() is None:
                return True
            time.sleep(0.05)
        return self.proc is not None and self.proc.poll() is None

    def watchdog_resets(self, since=0.0):
        """Host times at which QEMU's hardware watchdog (i6300esb) fired since SINCE."""
        return [t for log in self.event_logs for t in log.seen("WATCHDOG", since)]

    def wait(self):
        return self.proc.wait()

    def stop(self):
        self._stopping = True
        if self.proc and self.proc.poll() is None:
            try:
                self.monitor("quit", timeout=5)
            except OSError:
                self.proc.kill()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.shell.close()
        if self._serial_in:
            self._serial_in.close()
            self._serial_in = None

    # --- the HMP monitor (screendumps) and QMP (input: HMP's mouse_move sends relative
    # motion, which the absolute virtio tablet ignores) ---
    def monitor(self, command, timeout=30):
        return qemu.hmp(self.monitor_path, command, timeout)

    def qmp(self, command, arguments=None, timeout=30):
        return qemu.qmp(self.qmp_path, command, arguments, timeout)

    def screendump(self, name):
        """Saves NAME.ppm (for checks) and NAME.png (for people); returns the Image."""
        ppm = os.path.join(self.workdir, name + ".ppm")
        if os.path.exists(ppm):
            os.unlink(ppm)
        out = self.monitor(f"screendump {ppm}")
        if not os.path.exists(ppm):
            raise RuntimeError(f"screendump failed: {out}")
        self.monitor(f"screendump {os.path.join(self.workdir, name + '.png')} -f png")
        return Image(ppm)

    def pointer(self, x, y, width, height, down):
        """Moves the virtio tablet to screen pixel (x, y) and sets its button. QEMU's
        absolute axes run 0..0x7fff over the screen."""
        ax = int(x * 0x7FFF / max(width - 1, 1))
        ay = int(y * 0x7FFF / max(height - 1, 1))
        self.qmp("input-send-event", {"events": [
            {"type": "abs", "data": {"axis": "x", "value": ax}},
            {"type": "abs", "data": {"axis": "y", "value": ay}},
            {"type": "btn", "data": {"button": "left", "down": down}},
        ]})

    def tap(self, x, y, width, height, hold=0.1):
        """A tap at screen pixel (x, y) through the virtio tablet."""
        self.pointer(x, y, width, height, True)
        time.sleep(hold)
        self.pointer(x, y, width, height, False)

    def coin(self, hold=0.1):
        """One coin through the coin mech (KEY_5 on its own device, as a gpio-keys pin)."""
        def event(down):
            return {"device": "video0", "head": 0,
                    "events": [{"type": "key", "data": {"down": down, "key": {"type": "qcode", "data": "5"}}}]}
        self.qmp("input-send-event", event(True))
        time.sleep(hold)
        self.qmp("input-send-event", event(False))

    def plug_keyboard(self, name):
        """Hot-plugs another virtio keyboard (a stranger's USB keyboard); keys sent to no
        device then go to it, the newest one the guest opened."""
        args = {"driver": "virtio-keyboard-pci", "id": name}
        if self.arch == "arm64":
            args["bus"] = "hotplug0"
        self.qmp("device_add", args)

    def key(self, qcode):
        """Presses and releases one key on the guest's keyboard (a QEMU qcode: "esc")."""
        self.qmp("send-key", {"keys": [{"type": "qcode", "data": qcode}]})

    def chord(self, *qcodes, hold=0.1):
        """Presses keys in order and releases them in reverse ("ctrl", "alt", "delete"), and
        returns when the guest has them: input-send-event delivers at once, where send-key
        queues its events with delays and a burst of chords arrives seconds late."""
        def events(keys, down):
            return {"events": [{"type": "key", "data": {"down": down, "key": {"type": "qcode", "data": q}}}
                               for q in keys]}
        self.qmp("input-send-event", events(qcodes, True))
        time.sleep(hold)
        self.qmp("input-send-event", events(reversed(qcodes), False))

    # --- serial console ---
    def serial(self):
        return qemu.read_log(self.serial_path)

    def type_serial(self, text):
        """Types text on the serial console (serial_console=True)."""
        if self._serial_in is None:
            self._serial_in = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self._serial_in.connect(self.serial_sock)
            # The guest's output comes here too (and to the log): read and dropped, or the
            # socket's buffer fills (a skb per byte the UART sends) and the console stalls.
            threading.Thread(target=self._drain_serial, args=(self._serial_in,), daemon=True).start()
        self._serial_in.sendall(text.encode())

    @staticmethod
    def _drain_serial(sock):
        try:
            while sock.recv(65536):
                pass
        except OSError:
            pass

    def wait_serial(self, pattern, timeout):
        """(match, host time seen) of a pattern on the serial console, or (None, now)."""
        return qemu.wait_log(self.serial_path, pattern, timeout, alive=self.alive)

    # --- the root command channel (guest/bw-agent) ---
    def sh(self, command, timeout=60):
        """Runs a shell command as root in the guest; returns (status, output)."""
        return self.shell.run(command, timeout)

    def wait_shell(self, timeout):
        """Waits until the guest's command channel answers."""
        return self.shell.wait(timeout)
