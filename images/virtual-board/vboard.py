#!/usr/bin/env python3
"""The virtual board: boots the kiosk's image under QEMU (TCG) and drives it from the host.

The guest has real kernel drivers for what a board has: virtio-gpu (DRM/KMS), a virtio
tablet (evdev), a sound card recorded to a wav file (AC97 on x86_64, USB audio on the
arm64 virt machine), and uinput for replaying real touchscreen recordings. The host talks to it over three channels:
  - the HMP monitor (a unix socket): screendump, quit; QMP: input-send-event (taps);
  - the serial console (a log file): kernel and marker lines;
  - a root command channel on a virtio serial port (guest/bw-agent), test images only.

Used by test_system.py, and by scripts/run.sh to boot the kiosk in a window:
    vboard.py run BINARY [--vnc]
Python 3 standard library, and numpy for the sound analysis (wav_peak, wav_channels, find_sound).
"""
import argparse
import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def find_testdata():
    """The shared recordings: beside the repo (CI), or beside the worktrees."""
    env = os.environ.get("BOARDWALK_TESTDATA")
    candidates = [env] if env else []
    candidates += [os.path.join(REPO, "..", "shared", "testdata"),
                   os.path.join(REPO, "..", "..", "shared", "testdata")]
    for c in candidates:
        if c and os.path.isdir(os.path.join(c, "evemu")):
            return os.path.abspath(c)
    return None


def build(binary, outdir, testdata=None, log=None, arch="amd64"):
    """Builds (or takes from the cache) the kernel and initrd; returns (kernel, initrd, cmdline)."""
    cmd = [os.path.join(HERE, "build.sh"), "--arch", arch, binary, outdir]
    if testdata:
        cmd.append(testdata)
    if os.geteuid() != 0 and shutil.which("sudo"):
        cmd = ["sudo", "-E"] + cmd
    subprocess.run(cmd, check=True, stdout=log, stderr=log)
    with open(os.path.join(outdir, "cmdline")) as f:
        cmdline = f.read().strip()
    return os.path.join(outdir, "vmlinuz"), os.path.join(outdir, "initrd"), cmdline


class Image:
    """A screendump: width, height and RGB bytes (from QEMU's PPM output)."""

    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        # P6 header: magic, width, height, maxval, each separated by whitespace.
        m = re.match(rb"P6\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
        if not m:
            raise ValueError(f"{path}: not a binary PPM")
        self.width, self.height = int(m.group(1)), int(m.group(2))
        self.rgb = data[m.end():m.end() + self.width * self.height * 3]

    def pixels(self, step=1):
        rgb = self.rgb
        for i in range(0, len(rgb) - 2, 3 * step):
            yield rgb[i], rgb[i + 1], rgb[i + 2]

    def stats(self):
        """Fractions of black, console-grey/white pixels and the count of distinct colours,
        sampled on every 7th pixel (enough to tell a menu from a text console)."""
        n = black = grey = 0
        colours = set()
        for r, g, b in self.pixels(step=7):
            n += 1
            colours.add((r, g, b))
            if r < 8 and g < 8 and b < 8:
                black += 1
            elif abs(r - g) < 8 and abs(g - b) < 8 and r > 64:
                grey += 1
        return {"black": black / max(n, 1), "grey": grey / max(n, 1), "colours": len(colours)}

    def array(self):
        """The pixels as a numpy array, height x width x 3 (int16, for differences)."""
        import numpy as np
        return np.frombuffer(self.rgb, dtype=np.uint8).reshape(self.height, self.width, 3).astype(np.int16)

    def busiest_motion(self, later, region, box=96, threshold=48):
        """Where most moved between this screendump and a later one: the centre (x, y) of
        the box x box square inside region (x0, y0, x1, y1) holding the most changed
        pixels, and that count. Walkers that overlap still leave one densest body."""
        import numpy as np
        x0, y0, x1, y1 = region
        changed = (np.abs(later.array() - self.array()).sum(axis=2) > threshold)[y0:y1, x0:x1]
        if changed.shape[0] < box or changed.shape[1] < box:
            return None, 0
        sums = np.pad(changed.astype(np.int32).cumsum(0).cumsum(1), ((1, 0), (1, 0)))
        counts = sums[box:, box:] - sums[:-box, box:] - sums[box:, :-box] + sums[:-box, :-box]
        r, c = np.unravel_index(int(np.argmax(counts)), counts.shape)
        return (x0 + int(c) + box // 2, y0 + int(r) + box // 2), int(counts[r, c])

    def region_differs(self, other, region, threshold=48):
        """How many pixels differ noticeably inside region (x0, y0, x1, y1)."""
        import numpy as np
        x0, y0, x1, y1 = region
        d = np.abs(other.array()[y0:y1, x0:x1] - self.array()[y0:y1, x0:x1]).sum(axis=2)
        return int((d > threshold).sum())

    def differs_allowing_shift(self, other, shift=4, threshold=32):
        """differs(), at the best offset of up to `shift` pixels each way: the kiosk's screen
        care moves the whole picture 2 px every 2 minutes (pixel shift), which is not a change."""
        import numpy as np
        if (self.width, self.height) != (other.width, other.height):
            return self.width * self.height
        a, b, s = self.array(), other.array(), shift
        h, w = self.height, self.width
        core = a[s:h - s, s:w - s]
        best = None
        for dy in range(-s, s + 1):
            for dx in range(-s, s + 1):
                d = np.abs(b[s + dy:h - s + dy, s + dx:w - s + dx] - core).sum(axis=2)
                n = int((d > threshold).reshape(-1)[::3].sum())
                best = n if best is None else min(best, n)
        return best

    def differs(self, other, threshold=32):
        """How many pixels (sampled) differ noticeably from another screendump."""
        if (self.width, self.height) != (other.width, other.height):
            return self.width * self.height
        a, b = self.rgb, other.rgb
        changed = 0
        for i in range(0, len(a) - 2, 3 * 3):
            if abs(a[i] - b[i]) + abs(a[i + 1] - b[i + 1]) + abs(a[i + 2] - b[i + 2]) > threshold:
                changed += 1
        return changed


def looks_like_console(stats):
    """A Linux text console: black with grey/white glyphs, nearly nothing else."""
    return stats["black"] + stats["grey"] > 0.97


def wav_peak(path, start_byte=0):
    """Peak |sample| (0..1) of a 16-bit PCM wav from QEMU's wav audiodev, from start_byte
    of the sample data on, and how many bytes of samples that was."""
    _, samples = wav_channels(path, start_byte)
    return (float(abs(samples).max()) if samples.size else 0.0), samples.size * 2


def wav_channels(path, start_byte=0, end_byte=None):
    """(rate, samples) of a 16-bit PCM wav's data from start_byte (aligned down to a
    frame) to end_byte: a numpy float array in -1..1, one column per channel."""
    import numpy as np
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise ValueError(f"{path}: not a wav file")
    pos, fmt, body = 12, None, None
    while pos + 8 <= len(data):
        cid, size = data[pos:pos + 4], struct.unpack_from("<I", data, pos + 4)[0]
        if cid == b"fmt ":
            fmt = struct.unpack_from("<HHIIHH", data, pos + 8)
        if cid == b"data":
            body = data[pos + 8:]  # QEMU fills in the size only when it exits
            break
        pos += 8 + size
    if fmt is None or body is None or fmt[5] != 16:
        raise ValueError(f"{path}: no 16-bit PCM data")
    channels, rate = fmt[1], fmt[2]
    frame = 2 * channels
    start = max(0, start_byte) // frame * frame
    end = len(body) if end_byte is None else min(len(body), end_byte)
    end = start + max(0, end - start) // frame * frame
    pcm = np.frombuffer(body[start:end], dtype="<i2").astype(np.float64) / 32768.0
    return rate, pcm.reshape(-1, channels)


def find_sound(recording, rate, clip_path, highpass=250.0):
    """Where a clip (a wav file) sounds in a recording (wav_channels' array), by normalized
    cross-correlation on each channel: (best correlation 0..1, its offset in seconds).
    Gain, pan and other sounds mixed in only lower the figure. Both are high-passed first,
    so the music's kick drum does not pass for an effect's thump. The clip is resampled to
    the recording's rate (QEMU records at 44.1 kHz what the guest plays at 48 kHz)."""
    import numpy as np
    clip_rate, clip = wav_channels(clip_path)
    clip = clip.mean(axis=1)
    if clip_rate != rate:
        t = np.arange(int(len(clip) * rate / clip_rate)) * (clip_rate / rate)
        clip = np.interp(t, np.arange(len(clip)), clip)
    n, m = len(recording), len(clip)
    if n < m or not np.any(clip):
        return 0.0, 0.0
    size = 1 << int(np.ceil(np.log2(n + m)))
    keep = np.fft.rfftfreq(size, 1.0 / rate) >= highpass
    c = np.fft.irfft(np.fft.rfft(clip, size) * keep, size)[:m]
    spectrum_c = np.conj(np.fft.rfft(c, size))
    best, at = 0.0, 0
    for channel in recording.T:
        x = np.fft.irfft(np.fft.rfft(channel, size) * keep, size)[:n]
        dots = np.fft.irfft(np.fft.rfft(x, size) * spectrum_c, size)[:n - m + 1]
        energy = np.concatenate(([0.0], np.cumsum(x ** 2)))
        window = np.sqrt(np.maximum(energy[m:] - energy[:-m], 1e-12))
        ncc = dots / (window * np.sqrt(np.sum(c ** 2)))
        ncc[window < 1e-4 * np.sqrt(m)] = 0.0  # near-silence correlates with anything
        i = int(np.argmax(ncc))
        if ncc[i] > best:
            best, at = float(ncc[i]), i
    return best, at / rate


def wav_data_bytes(path):
    """Bytes of sample data written so far (the header is 44 bytes)."""
    try:
        return max(os.path.getsize(path) - 44, 0)
    except OSError:
        return 0


def build_disk(binary, outdir, testdata=None, log=None, version=None, bundle_only=False):
    """Builds the A/B disk board (build-disk.sh): OUTDIR/disk.img (unless bundle_only),
    OUTDIR/update.raucb and OUTDIR/rootfs.ext4 for the version given (else the build's).
    Returns (disk or None, bundle, version)."""
    cmd = [os.path.join(HERE, "build-disk.sh")] + (["--bundle-only"] if bundle_only else []) + [binary, outdir]
    if testdata:
        cmd.append(testdata)
    env = dict(os.environ)
    if version:
        env["BOARDWALK_IMAGE_VERSION"] = version
    if os.geteuid() != 0 and shutil.which("sudo"):
        cmd = ["sudo", "-E"] + cmd
    subprocess.run(cmd, check=True, stdout=log, stderr=log, env=env)
    with open(os.path.join(outdir, "version")) as f:
        built = f.read().strip()
    disk = None if bundle_only else os.path.join(outdir, "disk.img")
    return disk, os.path.join(outdir, "update.raucb"), built


def make_stick(path, files, size_mb=None):
    """A FAT disk image holding files (a USB stick with bundles), made with mtools."""
    if os.path.exists(path):
        os.unlink(path)
    need = sum(os.path.getsize(f) for f in files) // (1 << 20)
    size_mb = size_mb or need + need // 8 + 16
    subprocess.run(["mkfs.vfat", "-n", "BWSTICK", "-C", path, str(size_mb * 1024)], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["mcopy", "-i", path] + list(files) + ["::/"], check=True)


# UEFI firmware for the disk board (Debian's ovmf): the code read-only, the variables a
# copy per workdir.
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"


def make_state_disk(path, size_mb=16, files=None):
    """A fresh ext4 state partition image (the kiosk's unit gives its root to the kiosk's
    user at start), empty or holding files ({name: text}: state a cabinet already had)."""
    if os.path.exists(path):
        os.unlink(path)
    with tempfile.TemporaryDirectory() as d:
        for name, text in (files or {}).items():
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        subprocess.run(["mkfs.ext4", "-q", "-F", "-L", "bw-state"] + (["-d", d] if files else []) + [path, f"{size_mb}M"],
                       check=True, stdout=subprocess.DEVNULL)


def binary_arch(path):
    """amd64 or arm64, from the ELF header's machine field."""
    with open(path, "rb") as f:
        header = f.read(20)
    machine = struct.unpack_from("<H", header, 18)[0]
    return {0x3E: "amd64", 0xB7: "arm64"}.get(machine, f"machine {machine:#x}")


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


PROFILES = {"amd64": "qemu-x86_64", "arm64": "qemu-arm64"}
# The coin mech's serial number: the evdev uniq the profiles' `[coin] device` names.
COIN_MECH_SERIAL = "coin-mech"


def profile_value(arch, section, key):
    """One value from the board profile of the virtual board for arch ("" when absent)."""
    path = os.path.join(REPO, "boards", PROFILES[arch] + ".conf")
    current = None
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line.startswith("["):
                current = line.strip("[]").strip()
            elif "=" in line and current == section:
                k, v = line.split("=", 1)
                if k.strip() == key:
                    return v.strip()
    return ""


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
        # guestfwd: (port, host port) pairs: the guest's connections to 10.0.2.100:port go to
        # 127.0.0.1:host port on this machine (the fleet's server, fleet_check.py); nothing
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
        # The disk board (x86): boot_disk is build-disk.sh's A/B disk, booted through OVMF
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
        self.shell_path = os.path.join(self.workdir, "shell.sock")
        self.serial_path = os.path.join(self.workdir, "serial.log")
        self.serial_sock = os.path.join(self.workdir, "serial.sock")
        self.wav_path = os.path.join(self.workdir, "audio.wav")
        self.proc = None
        self.started = None
        self.restarts = 0
        self._stopping = False
        self._supervisor = None
        self._shell = None
        self._shell_buf = b""
        self._next_id = 1

    def qemu_args(self):
        extra = os.environ.get("BOARDWALK_VB_CMDLINE_EXTRA", "")
        machine = [a.format(wav=self.wav_path) for a in MACHINES[self.arch]]
        if self.boot_disk:
            vars_copy = os.path.join(self.workdir, "OVMF_VARS.fd")
            if not os.path.exists(vars_copy):
                shutil.copyfile(OVMF_VARS, vars_copy)
            # As a Raspberry Pi, which has no clock: the board starts in 1970 (systemd lifts
            # its clock to its own build date), and updates must install all the same. A
            # hardware watchdog (i6300esb; the guest's systemd feeds it) resets a hung board.
            boot = ["-rtc", "base=1970-01-01", "-device", "i6300esb",
                    "-drive", f"if=pflash,format=raw,unit=0,readonly=on,file={OVMF_CODE}",
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
            # a second one that missed its start-up IPI). It gets one vCPU.
            "-accel", "tcg,thread=multi", "-m", str(self.memory_mb), "-smp", "1" if self.boot_disk else "2",
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
            # Appended to: a disk board's next boot (a new QEMU) adds to the same log.
            "-chardev", (f"socket,id=serial0,path={self.serial_sock},server=on,wait=off,logfile={self.serial_path},logappend=on"
                         if self.serial_console else f"file,id=serial0,path={self.serial_path},append=on"),
            "-serial", "chardev:serial0",
            "-display", self.display,
        ] + boot + self.state_drive() + (
            # A network card on QEMU's user network, closed to the outside (restrict=on): only
            # the exporter's port is reachable, from this machine.
            ["-netdev", f"user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:{self.exporter_host_port}-:{self.exporter_port}"
             + "".join(f",guestfwd=tcp:10.0.2.100:{port}-cmd:{os.path.join(HERE, 'tcp-relay.py')} {host}"
                       for port, host in self.guestfwd),
             "-device", "virtio-net-pci,netdev=net0"] if self.exporter_port and not self.open_network else
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
        for p in (self.monitor_path, self.qmp_path, self.shell_path, self.serial_path, self.wav_path):
            if os.path.exists(p):
                os.unlink(p)
        self.qemu_log = open(os.path.join(self.workdir, "qemu.log"), "wb")
        self.started = time.monotonic()
        self._launch()
        if self.boot_disk:
            self._supervisor = threading.Thread(target=self._restart_on_reset, daemon=True)
            self._supervisor.start()

    def _launch(self):
        for p in (self.monitor_path, self.qmp_path, self.shell_path, self.serial_sock):
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

    def _restart_on_reset(self):
        """The disk board: QEMU (-no-reboot) quits when the guest resets itself; start it
        again, unless the test stopped it or the guest powered off."""
        while True:
            rc = self.proc.wait()
            if self._stopping or rc != 0 or "reboot: Power down" in self.serial()[self._serial_from:]:
                return
            try:
                if self._shell:
                    self._shell.close()
                    self._shell = None
                self._launch()
                self.restarts += 1
            except Exception as e:  # reported by alive() as a QEMU that exited
                print(f"vboard: QEMU did not start again after the guest's reset: {e}", file=sys.stderr, flush=True)
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
        if self._shell:
            self._shell.close()
            self._shell = None
        if self._serial_in:
            self._serial_in.close()
            self._serial_in = None

    # --- HMP monitor ---
    def monitor(self, command, timeout=30):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        s.connect(self.monitor_path)
        buf = b""
        try:
            while not buf.endswith(b"(qemu) "):
                chunk = s.recv(4096)
                if not chunk:
                    return buf.decode(errors="replace")
                buf += chunk
            s.sendall(command.encode() + b"\n")
            if command == "quit":
                return ""
            buf = b""
            while not buf.endswith(b"(qemu) "):
                chunk = s.recv(4096)
                if not chunk:
                    break
                buf += chunk
        finally:
            s.close()
        # The reply echoes the command (with terminal escapes); keep what follows it.
        text = re.sub(rb"\x1b\[[0-9;]*[A-Za-z]", b"", buf).decode(errors="replace")
        lines = [l for l in text.replace("\r", "").split("\n") if l and not l.startswith("(qemu)")]
        return "\n".join(l for l in lines if l.strip() != command)

    def screendump(self, name):
        """Saves NAME.ppm (for checks) and NAME.png (for people); returns the Image."""
        ppm = os.path.join(self.workdir, name + ".ppm")
        for p in (ppm,):
            if os.path.exists(p):
                os.unlink(p)
        out = self.monitor(f"screendump {ppm}")
        if not os.path.exists(ppm):
            raise RuntimeError(f"screendump failed: {out}")
        self.monitor(f"screendump {os.path.join(self.workdir, name + '.png')} -f png")
        return Image(ppm)

    # --- QMP (only for input: HMP's mouse_move sends relative motion, which the
    # absolute virtio tablet ignores) ---
    def qmp(self, command, arguments=None, timeout=30):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        s.connect(self.qmp_path)
        f = s.makefile("rwb")
        try:
            json.loads(f.readline())  # the greeting
            for cmd, args in (("qmp_capabilities", None), (command, arguments)):
                msg = {"execute": cmd}
                if args is not None:
                    msg["arguments"] = args
                f.write(json.dumps(msg).encode() + b"\n")
                f.flush()
                while True:
                    reply = json.loads(f.readline())
                    if "return" in reply or "error" in reply:
                        break  # anything else is an asynchronous event
                if "error" in reply:
                    raise RuntimeError(f"QMP {cmd}: {reply['error']}")
            return reply["return"]
        finally:
            f.close()
            s.close()

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
        try:
            with open(self.serial_path, "rb") as f:
                return f.read().decode(errors="replace")
        except OSError:
            return ""

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
        deadline = time.monotonic() + timeout
        rx = re.compile(pattern)
        while time.monotonic() < deadline:
            m = rx.search(self.serial())
            if m:
                return m, time.monotonic()
            if not self.alive():
                raise RuntimeError("qemu exited while waiting for " + pattern)
            time.sleep(0.05)
        return None, time.monotonic()

    # --- root command channel (guest/bw-agent) ---
    def _connect_shell(self):
        if self._shell is None:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(self.shell_path)
            self._shell = s
            self._shell_buf = b""

    def sh(self, command, timeout=60):
        """Runs a shell command as root in the guest; returns (status, output)."""
        self._connect_shell()
        rid = str(self._next_id)
        self._next_id += 1
        self._shell.sendall(f"{rid} {base64.b64encode(command.encode()).decode()}\n".encode())
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" in self._shell_buf:
                line, self._shell_buf = self._shell_buf.split(b"\n", 1)
                parts = line.decode(errors="replace").split(" ")
                if len(parts) >= 3 and parts[0] == "RC" and parts[1] == rid:
                    out = base64.b64decode(parts[3]) if len(parts) > 3 else b""
                    return int(parts[2]), out.decode(errors="replace")
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"guest command timed out: {command}")
            self._shell.settimeout(left)
            chunk = self._shell.recv(65536)
            if not chunk:
                self._shell.close()
                self._shell = None
                raise ConnectionError("guest command channel closed")
            self._shell_buf += chunk

    def wait_shell(self, timeout):
        """Waits until the guest's command channel answers."""
        deadline = time.monotonic() + timeout
        wait = 2.0
        while time.monotonic() < deadline:
            try:
                if self.sh("true", timeout=wait)[0] == 0:
                    return True
            except (OSError, TimeoutError, ConnectionError):
                if self._shell:
                    self._shell.close()
                    self._shell = None
                # A guest busy starting the kiosk (emulated, on a loaded machine) can take
                # seconds to answer even `true`: each try waits longer.
                wait = min(wait * 2, 30.0)
                time.sleep(0.5)
        return False


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="boot the kiosk in a window (or VNC) until it is closed")
    run.add_argument("binary", help="an amd64 or arm64 build: it picks the board")
    run.add_argument("--vnc", action="store_true", help="serve the screen over VNC instead of a window")
    run.add_argument("--workdir", default=os.path.join(REPO, "out", "virtual-board"))
    args = ap.parse_args()

    os.makedirs(args.workdir, exist_ok=True)
    arch = binary_arch(args.binary)
    kernel, initrd, cmdline = build(os.path.abspath(args.binary), os.path.join(args.workdir, "image"), arch=arch)
    has_window = os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    backends = subprocess.run([MACHINES[arch][0], "-display", "help"], capture_output=True, text=True).stdout
    if has_window and not args.vnc and "gtk" not in backends.split():
        print("virtual board: this QEMU has no window (install qemu-system-gui); using VNC")
        has_window = None
    if args.vnc or not has_window:
        display = "vnc=127.0.0.1:0"
        print("virtual board: VNC on 127.0.0.1:5900 (e.g. `vncviewer localhost:0`); Ctrl-C stops it")
    else:
        display = "gtk"
        print("virtual board: in a window; tap the kiosk with the mouse, close the window to stop")
    vb = VirtualBoard(args.workdir, kernel, initrd, cmdline, display=display, arch=arch)
    vb.start()
    try:
        sys.exit(vb.wait())
    except KeyboardInterrupt:
        vb.stop()


if __name__ == "__main__":
    main()
