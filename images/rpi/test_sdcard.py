#!/usr/bin/env python3
"""The Pi card test: opens a finished card image (images/rpi/build-sdcard.sh) and the RAUC
bundle built beside it without loop devices or mounting, and checks what a Pi's firmware,
kernel, systemd and RAUC will find.

    images/rpi/test_sdcard.py CARD.img BOARD [BUNDLE.raucb]   (default: CARD.raucb)

The partition table is read from the MBR and its extended partition's EBRs; the FAT
partitions through mtools (`mdir`, `mtype` with an @@offset), the ext4 ones through
`debugfs` on a copy of each. Checks: the A/B layout (1 FAT16 boot selection, 2 and 3 FAT32
boot partitions of slots A and B, 4 extended, 5 and 6 equal root slots, 7 state), the disk
id the slots are named by; autoboot.txt (tryboot_a_b=1, slot A's partition committed, slot
B's under [tryboot]) and the slots' states beside it (with Debian's kernel also U-Boot's
boot.scr, made from images/rpi/boot.cmd, and boot.env); on each boot partition the Pi firmware
(bootcode.bin, start*.elf, fixup*.dat), the kernel and initramfs that config.txt names (Debian's
kernel gzip'd, the initramfs at most 16 MB: the kiosk's cut one), the
board's DTBs, config.txt with arm_64bit=1 and the profile's lines, this project's display
overlays the profile names (as boards/overlays compiles them, applying to the card's own DTB
with fdtoverlay) and a panel's init file in /usr/lib/firmware, cmdline.txt (with Debian's
kernel: config.txt starting u-boot.bin, slot.env naming the kernel, the initramfs and
bootargs=) with the profile's line, root= its own slot's partition, rauc.slot= and `ro`;
fstab (state `nofail`,
partition 1 on /boot/firmware, no slot in it); the kernel's modules; the unit enabled; user
boardwalk owning the state partition; /usr/bin/boardwalk an AArch64 ELF; RAUC: system.conf
(compatible, bootloader=custom, the backend, the four slots), the keyring, the backend
installed and executable, the slot check enabled, and the backend itself answering on the
card's own files; the bundle: signed by the card's keyring (`rauc info` on this machine),
its compatible the card's, the version in the card's os-release, a boot and a root image.
The last line is 'N passed, N failed'. Python 3 standard library; mtools, e2fsprogs, rauc,
device-tree-compiler.
"""
import configparser
import functools
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from boardtest.results import Results  # noqa: E402
from cardimage import partitions, profile_get  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The device trees each board's firmware loads, as Debian's kernel names them (raspi-firmware
# copies broadcom/bcm*.dtb; the Pi 4 and Zero 2 W firmware look for these names).
# The initramfs a card's boot reads (build-sdcard.sh: MODULES=list); Debian's generic one is
# 36.8 MB.
INITRD_LIMIT = 16_000_000
BOARD_DTBS = {
    "rpi4": ["bcm2711-rpi-4-b.dtb", "bcm2711-rpi-400.dtb"],
    "rpi-zero2w": ["bcm2837-rpi-zero-2-w.dtb"],
}


class CardTest:
    def __init__(self, image, board, bundle, tmp):
        self.image, self.board, self.bundle, self.tmp = image, board, bundle, tmp
        self.results = Results()
        self.run = self.results.step

    # --- reading the card ---
    def fat(self, part, *args):
        at = f"{self.image}@@{self.parts[part]['offset']}"
        return subprocess.run(args[:1] + ("-i", at) + args[1:], capture_output=True, text=True, check=True,
                              env=dict(os.environ, MTOOLS_SKIP_CHECK="1")).stdout

    def fat_file(self, part, name):
        return self.fat(part, "mtype", "::/" + name)

    def fat_names(self, part, path="::/"):
        listing = self.fat(part, "mdir", "-b", path)
        return {os.path.basename(l.strip()) for l in listing.splitlines() if l.strip()}

    def extract(self, part):
        path = os.path.join(self.tmp, f"part{part}.img")
        if not os.path.exists(path):
            p = self.parts[part]
            # A sparse copy of the partition: debugfs reads file systems from files.
            subprocess.run(["dd", f"if={self.image}", f"of={path}", "bs=1M", f"skip={p['offset'] // 1048576}",
                            f"count={p['size'] // 1048576}", "conv=sparse", "status=none"], check=True)
        return path

    def debugfs(self, part, request):
        r = subprocess.run(["debugfs", "-R", request, self.extract(part)], capture_output=True, text=True)
        return r.stdout

    def root_file(self, path, dest=None):
        out = dest or os.path.join(self.tmp, "dump")
        if os.path.exists(out):
            os.unlink(out)
        subprocess.run(["debugfs", "-R", f"dump -p {path} {out}", self.extract(ROOT_A)], capture_output=True, check=True)
        assert os.path.exists(out) and os.path.getsize(out) > 0, f"{path} is not in the root"
        with open(out, "rb") as f:
            return f.read()

    def root_stat(self, path):
        return self.debugfs(ROOT_A, f"stat {path}")

    # --- the checks ---
    def layout(self):
        self.disk_id, self.parts = partitions(self.image)
        kinds = {n: p["type"] for n, p in self.parts.items()}
        want = {1: 0x0E, 2: 0x0C, 3: 0x0C, 4: 0x05, 5: 0x83, 6: 0x83, 7: 0x83}
        assert kinds == want, f"partition types {({n: hex(k) for n, k in kinds.items()})}, want {({n: hex(k) for n, k in want.items()})}"
        assert all(p["offset"] % (4 << 20) == 0 for n, p in self.parts.items() if n != 4), "partitions not 4 MiB aligned"
        assert self.parts[2]["size"] == self.parts[3]["size"], "boot partitions A and B differ in size"
        assert self.parts[5]["size"] == self.parts[6]["size"], "root slots A and B differ in size"
        ends = sorted((p["offset"], p["offset"] + p["size"]) for n, p in self.parts.items() if n != 4)
        assert all(a[1] <= b[0] for a, b in zip(ends, ends[1:])), "partitions overlap"
        ext = self.parts[4]
        assert all(ext["offset"] < self.parts[n]["offset"] and self.parts[n]["offset"] + self.parts[n]["size"] <= ext["offset"] + ext["size"]
                   for n in (5, 6, 7)), "logical partitions outside the extended one"
        labels = {}
        for n in (5, 7):
            m = re.search(r"Filesystem volume name:\s+(\S+)", self.debugfs(n, "stats"))
            labels[n] = m.group(1) if m else None
        assert labels == {5: "bw-root", 7: "bw-state"}, f"ext4 labels {labels}"
        fat_labels = {}
        for n in (1, 2, 3):
            m = re.search(r"Volume label is (\S+)", self.fat(n, "mlabel", "-s", "::"))
            fat_labels[n] = m.group(1) if m else None
        assert fat_labels == {1: "BW-AUTOBOOT", 2: "BW-BOOT", 3: "BW-BOOT"}, f"FAT labels {fat_labels}"
        mib = {n: p["size"] >> 20 for n, p in self.parts.items()}
        return (f"disk id {self.disk_id}; 1 boot selection {mib[1]} MiB, 2/3 boot A/B {mib[2]} MiB, "
                f"5/6 root A/B {mib[5]} MiB, 7 state {mib[7]} MiB; card {os.path.getsize(self.image) >> 20} MiB, "
                f"{os.stat(self.image).st_blocks * 512 >> 20} MiB allocated")

    @functools.cached_property
    def uboot(self):
        """A card with Debian's kernel (vmlinuz-*-arm64), which U-Boot starts (TRIAL=uboot)."""
        return any(re.fullmatch(r"vmlinuz-.*-arm64", n) for n in self.fat_names(2))

    def uboot_env(self):
        """uboot.env on partition 1, as U-Boot reads it: CRC32 of the rest, then name=value
        strings ending in an empty one (rpi_arm64: 16 KiB)."""
        path = os.path.join(self.tmp, "uboot.env")
        self.fat(1, "mcopy", "-o", "::/uboot.env", path)
        with open(path, "rb") as f:
            blob = f.read()
        assert len(blob) == 0x4000, f"uboot.env is {len(blob)} bytes, not rpi_arm64's 16 KiB"
        assert int.from_bytes(blob[:4], "little") == zlib.crc32(blob[4:]), "uboot.env's CRC is wrong: U-Boot would ignore it"
        data = blob[4:].split(b"\0\0", 1)[0]
        return dict(s.decode().split("=", 1) for s in data.split(b"\0") if s)

    def autoboot(self):
        text = self.fat_file(1, "autoboot.txt")
        assert len(text.encode()) <= 512, f"autoboot.txt is {len(text.encode())} bytes; the firmware reads 512"
        lines = [l.strip() for l in text.splitlines() if l.strip()]
        want = ["[all]", "tryboot_a_b=1", "boot_partition=2", "[tryboot]", "boot_partition=3"]
        assert lines == want, f"autoboot.txt: {lines}, want {want}"
        states = [l.strip() for l in self.fat_file(1, "boardwalk/slots").splitlines() if l.strip() and not l.startswith("#")]
        assert states == ["A=good", "B=bad", "trial=none"], f"boardwalk/slots: {states}"
        assert "bootcode.bin" in self.fat_names(1), "no bootcode.bin on partition 1 (the Pi 3 and Zero 2 W ROM loads it there)"
        self.autoboot_text, self.slots_text = text, self.fat_file(1, "boardwalk/slots")
        said = "tryboot_a_b=1, boot_partition=2 (A), [tryboot] boot_partition=3 (B); A good, B bad (empty), no trial"
        if self.uboot:
            assert self.fat_file(1, "boardwalk/boot.env").strip() == "bw_committed=A", "boardwalk/boot.env does not commit A"
            assert "trial.env" not in self.fat_names(1, "::/boardwalk"), "a new card with a trial armed"
            script = os.path.join(self.tmp, "boot.scr")
            self.fat(1, "mcopy", "-o", "::/boot.scr", script)
            with open(script, "rb") as f:
                body = f.read()
            # A legacy U-Boot image (magic 27051956, type script) holding boot.cmd.
            assert body[:4] == bytes.fromhex("27051956"), "boot.scr is not a U-Boot image"
            assert body[30] == 6, f"boot.scr's image type is {body[30]}, not a script (6)"
            assert open(os.path.join(REPO, "images/rpi/boot.cmd"), "rb").read() in body, "boot.scr is not images/rpi/boot.cmd"
            env = self.uboot_env()
            want = {"bootdelay": "-2", "stdin": "serial", "stdout": "serial", "boot_targets": "mmc"}
            assert {k: env.get(k) for k in want} == want and "preboot" not in env, \
                f"uboot.env: {[f'{k}={env.get(k)}' for k in (*want, 'preboot')]}, want {want} and no preboot"
            said += ("; U-Boot's boot.scr (boot.cmd), boot.env bw_committed=A, no trial.env; "
                     f"uboot.env ({len(env)} variables, CRC good): bootdelay=-2, console on serial only, no preboot, boot_targets=mmc")
        return said

    def firmware(self):
        self.names = {}
        for n in (2, 3):
            names = self.fat_names(n)
            for need in ("bootcode.bin", "start.elf", "start4.elf", "fixup.dat", "fixup4.dat"):
                assert need in names, f"{need} missing from boot partition {n}"
            kernel = sorted(x for x in names if x.startswith("vmlinuz-"))
            initrd = sorted(x for x in names if x.startswith("initrd.img-"))
            assert kernel and initrd, f"no kernel or initramfs on partition {n}: {sorted(names)}"
            family = "rpi4" if self.board.startswith("rpi4") else "rpi-zero2w" if "zero2w" in self.board else None
            for dtb in BOARD_DTBS.get(family, []):
                assert dtb in names, f"{dtb} missing from partition {n} (the firmware loads it on this board)"
            if self.uboot:
                assert "u-boot.bin" in names and "slot.env" in names and "cmdline.txt" not in names, \
                    f"partition {n}: a U-Boot card's boot partition holds u-boot.bin and slot.env, no cmdline.txt"
            self.names[n] = names
        assert self.names[2] == self.names[3], "boot partitions A and B hold different files"
        self.kernel = kernel
        dtbs = sorted(x for x in names if x.endswith(".dtb"))
        return f"both slots: {kernel[-1]}, {initrd[-1]}, {len(dtbs)} DTBs ({', '.join(BOARD_DTBS.get(family, []))})"

    def config_txt(self):
        texts = [self.fat_file(n, "config.txt") for n in (2, 3)]
        assert texts[0] == texts[1], "config.txt differs between the slots"
        text = texts[0]
        lines = [l.strip() for l in text.splitlines()]
        assert "arm_64bit=1" in lines, "config.txt lacks arm_64bit=1"
        m = re.search(r"^kernel=(\S+)", text, re.M)
        kernel = m.group(1) if m else None
        assert kernel in self.names[2], f"config.txt names kernel {kernel}, not on the card"
        if self.uboot:
            # The firmware starts U-Boot; slot.env names what U-Boot starts.
            assert kernel == "u-boot.bin", f"config.txt's kernel is {kernel}, not u-boot.bin"
            assert not re.search(r"^initramfs ", text, re.M), "config.txt names an initramfs: U-Boot loads it"
            env = dict(l.split("=", 1) for l in self.fat_file(2, "slot.env").splitlines() if "=" in l)
            kernel, initrd = env.get("bw_kernel"), env.get("bw_initramfs")
            assert kernel in self.names[2], f"slot.env names kernel {kernel}, not on the card"
            via = "U-Boot (kernel=u-boot.bin), slot.env: "
        else:
            m2 = re.search(r"^initramfs (\S+)", text, re.M)
            initrd, via = m2.group(1) if m2 else None, ""
        assert initrd in self.names[2], f"the initramfs named, {initrd}, is not on the card"
        self.kernel_name, self.initrd_name = kernel, initrd
        fragment = os.path.join(REPO, "boards", profile_get(self.profile, "boot", "config_txt"))
        for line in open(fragment):
            line = line.strip()
            if line and not line.startswith("#"):
                assert line in lines, f"config.txt lacks the profile's line {line!r}"
        return f"arm_64bit=1, {via}kernel {kernel}, initramfs {initrd}, the profile's lines"

    def boot_read(self):
        """What the firmware reads from the card at every boot (build-sdcard.sh
        bw_rpi_boot_files): Debian's kernel gzip'd, an initramfs of the root's modules only."""
        sizes = {}
        for name in (self.kernel_name, self.initrd_name):
            dest = os.path.join(self.tmp, name)
            self.fat(2, "mcopy", "-o", "::/" + name, dest)
            sizes[name] = os.path.getsize(dest)
            with open(dest, "rb") as f:
                head = f.read(64)
            if name == self.kernel_name and name.endswith("-arm64"):
                assert head[:2] == b"\x1f\x8b", f"{name} is not gzip'd (the firmware unpacks a gzip'd Image)"
        assert sizes[self.initrd_name] <= INITRD_LIMIT, \
            f"{self.initrd_name} is {sizes[self.initrd_name] / 1e6:.1f} MB: not the kiosk's cut one (at most {INITRD_LIMIT / 1e6:.0f} MB)"
        reader = "U-Boot" if self.uboot else "the firmware"
        return (f"{self.kernel_name} {sizes[self.kernel_name] / 1e6:.1f} MB, {self.initrd_name} "
                f"{sizes[self.initrd_name] / 1e6:.1f} MB: {sum(sizes.values()) / 1e6:.1f} MB read at boot (by {reader})")

    def overlays(self):
        """This project's display overlays (dtoverlay=boardwalk-* in config.txt) on a card with
        Debian's kernel: each on both boot partitions as boards/overlays compiles it, applying
        to the board's DTB on the card, and a panel-mipi-dbi panel's init file in the root."""
        fragment = os.path.join(REPO, "boards", profile_get(self.profile, "boot", "config_txt"))
        names = re.findall(r"^dtoverlay=(boardwalk-[^,\s]+)", open(fragment).read(), re.M)
        if not self.kernel[-1].endswith("-arm64"):
            return f"not Debian's kernel ({self.kernel[-1]}): its own overlays instead of {names}"
        if not names:
            return "the profile names none"
        said = []
        for name in names:
            dts = os.path.join(REPO, "boards", "overlays", name + ".dts")
            want = os.path.join(self.tmp, name + ".dtbo")
            subprocess.run(["dtc", "-@", "-q", "-I", "dts", "-O", "dtb", "-o", want, dts], check=True)
            for n in (2, 3):
                assert f"{name}.dtbo" in self.fat_names(n, "::/overlays"), f"overlays/{name}.dtbo missing from boot partition {n}"
                got = os.path.join(self.tmp, f"{name}-{n}.dtbo")
                subprocess.run(["mcopy", "-n", "-i", f"{self.image}@@{self.parts[n]['offset']}", f"::/overlays/{name}.dtbo", got],
                               check=True, env=dict(os.environ, MTOOLS_SKIP_CHECK="1"))
                assert open(got, "rb").read() == open(want, "rb").read(), f"partition {n}'s {name}.dtbo is not boards/overlays/{name}.dts"
            src = open(dts).read()
            dtbs = [d for line in re.findall(r"^// dtbs:(.*)$", src, re.M) for d in line.split()]
            for dtb in dtbs:
                assert dtb in self.names[2], f"{dtb} ({name}'s) is not on the card"
                base, merged = os.path.join(self.tmp, dtb), os.path.join(self.tmp, "merged.dtb")
                subprocess.run(["mcopy", "-n", "-i", f"{self.image}@@{self.parts[2]['offset']}", f"::/{dtb}", base],
                               check=True, env=dict(os.environ, MTOOLS_SKIP_CHECK="1"))
                r = subprocess.run(["fdtoverlay", "-i", base, "-o", merged, want], capture_output=True, text=True)
                assert r.returncode == 0, f"{name} does not apply to the card's {dtb}: {r.stderr.strip()}"
            for panel in re.findall(r'compatible = "([^"]+)", "panel-mipi-dbi-spi"', src):
                blob = self.root_file(f"/usr/lib/firmware/{panel}.bin")
                assert blob.startswith(b"MIPI DBI" + bytes(7) + b"\x01"), f"/usr/lib/firmware/{panel}.bin is not a MIPI DBI init file"
                said.append(f"/usr/lib/firmware/{panel}.bin")
            said.append(f"{name}.dtbo (applies to {', '.join(dtbs)})")
        return "; ".join(said)

    def cmdline_txt(self):
        self.cmdlines = {}
        want = profile_get(self.profile, "boot", "cmdline")
        for n, slot, root in ((2, "A", 5), (3, "B", 6)):
            if self.uboot:
                lines = [l for l in self.fat_file(n, "slot.env").splitlines() if l.startswith("bootargs=")]
                assert len(lines) == 1, f"slot {slot}'s slot.env has {len(lines)} bootargs= lines"
                text = lines[0][len("bootargs="):].strip()
            else:
                text = self.fat_file(n, "cmdline.txt").strip()
            assert "\n" not in text, f"slot {slot}'s cmdline.txt must be one line"
            assert text.startswith(want), f"slot {slot}'s cmdline.txt does not start with the profile's line: {text}"
            args = text.split()
            assert f"root=PARTUUID={self.disk_id}-{root:02d}" in args, f"slot {slot}: no root=PARTUUID={self.disk_id}-{root:02d}: {text}"
            assert [a for a in args if a.startswith("root=")] == [f"root=PARTUUID={self.disk_id}-{root:02d}"], f"slot {slot}: {text}"
            assert f"rauc.slot={slot}" in args, f"slot {slot}: no rauc.slot={slot}: {text}"
            assert "ro" in args and "rw" not in args, f"slot {slot}: the root is not mounted read-only: {text}"
            self.cmdlines[slot] = text
        return f"A: root=PARTUUID={self.disk_id}-05 rauc.slot=A; B: root=PARTUUID={self.disk_id}-06 rauc.slot=B; ro"

    def fstab(self):
        text = self.root_file("/etc/fstab").decode()
        mounts = {}
        for line in text.splitlines():
            f = line.split()
            if len(f) >= 4 and not f[0].startswith("#"):
                mounts[f[1]] = f
        assert "/" not in mounts, f"fstab names a root ({mounts['/'] if '/' in mounts else ''}): one image serves both slots"
        state, boot = mounts.get("/var/lib/boardwalk"), mounts.get("/boot/firmware")
        assert state and state[0] == "/dev/disk/boardwalk/part7", f"state: {state}"
        assert "nofail" in state[3].split(",") and "rw" in state[3].split(","), f"state not rw,nofail: {state}"
        assert boot and boot[0] == "/dev/disk/boardwalk/part1", f"boot selection: {boot}"
        assert "nofail" in boot[3].split(","), f"partition 1 not nofail: {boot}"
        return f"/var/lib/boardwalk {state[3]}; /boot/firmware = partition 1 {boot[3]}"

    def modules(self):
        version = self.kernel[-1][len("vmlinuz-"):]
        out = self.debugfs(ROOT_A, f"ls -l /usr/lib/modules/{version}")
        assert "modules.dep" in out, f"no /usr/lib/modules/{version}/modules.dep in the root"
        return f"/usr/lib/modules/{version}"

    def unit(self):
        link = self.root_stat("/etc/systemd/system/multi-user.target.wants/boardwalk.service")
        assert "Type: symlink" in link, "boardwalk.service is not enabled"
        self.root_file("/usr/lib/systemd/system/boardwalk.service")
        self.root_file("/usr/lib/systemd/system/boardwalk-prepare.service")
        passwd = self.root_file("/etc/passwd").decode()
        m = re.search(r"^boardwalk:[^:]*:(\d+):(\d+):", passwd, re.M)
        assert m, "no user boardwalk"
        st = self.debugfs(7, "stat /")
        owner = re.search(r"User:\s+(\d+)\s+Group:\s+(\d+)", st)
        assert owner and owner.groups() == m.groups(), f"state partition owned by {owner.groups() if owner else None}, boardwalk is {m.groups()}"
        board = self.root_file("/etc/boardwalk/board.conf").decode()
        assert f"name = {self.board}" in board, "board.conf is not the profile"
        return f"enabled; user boardwalk {m.group(1)}:{m.group(2)} owns the state partition; board.conf = {self.board}"

    def binary(self):
        head = self.root_file("/usr/bin/boardwalk")[:20]
        assert head[:4] == b"\x7fELF", "/usr/bin/boardwalk is not an ELF file"
        machine = struct.unpack_from("<H", head, 18)[0]
        assert machine == 0xB7, f"/usr/bin/boardwalk is for machine {machine:#x}, not AArch64"
        return "AArch64 ELF"

    def rauc(self):
        conf = configparser.ConfigParser(interpolation=None)
        self.system_conf = os.path.join(self.tmp, "system.conf")
        conf.read_string(self.root_file("/etc/rauc/system.conf", self.system_conf).decode())
        self.compatible = conf["system"]["compatible"]
        assert self.compatible == f"boardwalk-{self.board}", f"compatible {self.compatible}"
        assert conf["system"]["bootloader"] == "custom", f"bootloader {conf['system']['bootloader']}"
        assert conf["system"]["data-directory"].startswith("/boot/firmware/"), "RAUC's data directory is not on partition 1"
        backend = conf["handlers"]["bootloader-custom-backend"]
        # By their number on the system disk (61-boardwalk-system-disk.rules), not the card's id.
        by = "/dev/disk/boardwalk/part"
        want = {"slot.rootfs.0": (f"{by}5", "ext4", "A", None), "slot.rootfs.1": (f"{by}6", "ext4", "B", None),
                "slot.boot.0": (f"{by}2", "vfat", None, "rootfs.0"), "slot.boot.1": (f"{by}3", "vfat", None, "rootfs.1")}
        assert conf["keyring"].get("use-bundle-signing-time") == "true", "RAUC checks certificates at the board's clock (1970 on a Pi)"
        got = {s: (conf[s].get("device"), conf[s].get("type"), conf[s].get("bootname"), conf[s].get("parent"))
               for s in conf.sections() if s.startswith("slot.")}
        assert got == want, f"slots {got}, want {want}"
        keyring_path = conf["keyring"]["path"]
        self.keyring = os.path.join(self.tmp, "keyring.pem")
        pem = self.root_file(keyring_path, self.keyring).decode()
        assert "-----BEGIN CERTIFICATE-----" in pem, f"{keyring_path} holds no certificate"
        st = self.root_stat(backend)
        mode = re.search(r"Mode:\s+(\d+)", st)
        assert mode and int(mode.group(1), 8) & 0o111, f"{backend} is not executable ({mode.group(1) if mode else st[:80]})"
        self.backend = os.path.join(self.tmp, "backend")
        body = self.root_file(backend, self.backend)
        assert body == open(os.path.join(REPO, "images/rpi/rauc-tryboot-backend"), "rb").read(), f"{backend} is not images/rpi/rauc-tryboot-backend"
        self.trial = re.search(r"^TRIAL=(\w+)", self.root_file("/etc/boardwalk/tryboot.conf").decode(), re.M).group(1)
        want_trial = "uboot" if self.uboot else "tryboot"
        assert self.trial == want_trial, f"TRIAL={self.trial} on a card that {'starts U-Boot' if self.uboot else 'has no U-Boot'}"
        link = self.root_stat("/etc/systemd/system/multi-user.target.wants/boardwalk-slot-check.service")
        assert "Type: symlink" in link, "boardwalk-slot-check.service is not enabled"
        self.root_file("/usr/lib/systemd/system/boardwalk-slot-check.service")
        self.root_file("/usr/lib/systemd/system/rauc.service")
        check = self.root_stat("/usr/lib/boardwalk/slot-check")
        assert "Mode:  0755" in check or "Mode: 0755" in check, "the slot check is not executable"
        assert "Type: regular" in self.root_stat("/usr/bin/rauc"), "no /usr/bin/rauc in the root"
        release = self.root_file("/usr/lib/os-release").decode()
        m = re.search(r"^IMAGE_VERSION=(\S+)", release, re.M)
        assert m, "no IMAGE_VERSION in os-release"
        self.version = m.group(1)
        return (f"compatible {self.compatible}, bootloader custom ({backend}, executable, TRIAL={self.trial}), "
                f"slots rootfs.0/1 = -05/-06 (A/B), boot.0/1 = -02/-03; keyring; slot check enabled; version {self.version}")

    def backend_on_card(self):
        """The card's own backend, run here on the card's own partition 1 and slot A's
        command line: what RAUC will hear on its first boot."""
        sel = os.path.join(self.tmp, "bootsel")
        os.makedirs(os.path.join(sel, "boardwalk"), exist_ok=True)
        with open(os.path.join(sel, "autoboot.txt"), "w") as f:
            f.write(self.autoboot_text)
        with open(os.path.join(sel, "boardwalk", "slots"), "w") as f:
            f.write(self.slots_text)
        cmdline = os.path.join(self.tmp, "cmdline")
        with open(cmdline, "w") as f:
            f.write(self.cmdlines["A"] + "\n")
        conf = os.path.join(self.tmp, "tryboot.conf")
        with open(conf, "wb") as f:
            f.write(self.root_file("/etc/boardwalk/tryboot.conf"))
        env = dict(os.environ, BW_TRYBOOT_BOOTSEL=sel, BW_TRYBOOT_CMDLINE=cmdline, BW_TRYBOOT_CONF=conf,
                   BW_TRYBOOT_REBOOT_PARAM=os.path.join(self.tmp, "reboot-param"))
        said = {}
        for args in (["get-current"], ["get-primary"], ["get-state", "A"], ["get-state", "B"]):
            r = subprocess.run(["sh", self.backend, *args], capture_output=True, text=True, env=env)
            assert r.returncode == 0, f"{' '.join(args)}: {r.stderr.strip()}"
            said[" ".join(args)] = r.stdout.strip()
        want = {"get-current": "A", "get-primary": "A", "get-state A": "good", "get-state B": "bad"}
        assert said == want, f"{said}, want {want}"
        return ", ".join(f"{k}: {v}" for k, v in said.items())

    def bundle_info(self):
        assert os.path.exists(self.bundle), f"no bundle at {self.bundle}"
        self.rauc_version = subprocess.run(["rauc", "--version"], capture_output=True, text=True).stdout.split()[-1]
        # RAUC reads the card's system.conf too (a slot or key it does not accept is an error).
        r = subprocess.run(["rauc", f"--conf={self.system_conf}", "info", f"--keyring={self.keyring}",
                            "--output-format=json", self.bundle], capture_output=True, text=True)
        assert r.returncode == 0, f"rauc info with the card's system.conf and keyring: {r.stderr.strip()[-400:]}"
        info = json.loads(r.stdout)
        assert info.get("compatible") == self.compatible, f"bundle compatible {info.get('compatible')}, the card's {self.compatible}"
        assert info.get("version") == self.version, f"bundle version {info.get('version')}, the card's {self.version}"
        images = {}
        for entry in info.get("images", []):
            for cls, img in entry.items():
                images[cls] = img.get("filename")
        assert images == {"boot": "boot.vfat", "rootfs": "rootfs.ext4"}, f"bundle images {images}"
        return (f"the card's system.conf read by rauc {self.rauc_version}; signature good against its keyring; compatible {info['compatible']}, version {info['version']}, "
                f"images {images}, {os.path.getsize(self.bundle) >> 20} MiB")


ROOT_A = 5


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__)
        return 2
    image, board = sys.argv[1], sys.argv[2]
    bundle = sys.argv[3] if len(sys.argv) == 4 else os.path.splitext(image)[0] + ".raucb"
    with tempfile.TemporaryDirectory() as tmp:
        t = CardTest(image, board, bundle, tmp)
        t.profile = os.path.join(REPO, "boards", board + ".conf")
        steps = (("autoboot.txt and the slots' states", t.autoboot, ()),
                 ("firmware partitions A and B", t.firmware, ()),
                 ("config.txt", t.config_txt, ("names",)),
                 ("what the firmware reads at boot", t.boot_read, ("kernel_name",)),
                 ("display overlays", t.overlays, ("names", "kernel")),
                 ("each slot's kernel command line", t.cmdline_txt, ()),
                 ("fstab", t.fstab, ()),
                 ("kernel modules", t.modules, ("kernel",)),
                 ("the unit, its user, the profile", t.unit, ()),
                 ("the binary", t.binary, ()),
                 ("RAUC: system.conf, keyring, backend, slot check", t.rauc, ()),
                 ("the backend on the card's files", t.backend_on_card, ("autoboot_text", "cmdlines", "backend")),
                 ("the bundle", t.bundle_info, ("compatible", "keyring", "version", "system_conf")))
        if t.run("partitions", t.layout):
            for name, fn, needs in steps:
                missing = [n for n in needs if not hasattr(t, n)]
                if missing:
                    t.results.record(False, name, "skipped (an earlier check failed)")
                    continue
                t.run(name, fn)
    return t.results.summary()


if __name__ == "__main__":
    sys.exit(main())
