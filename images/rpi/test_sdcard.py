#!/usr/bin/env python3
"""The Pi card test: opens a finished card image (images/rpi/build-sdcard.sh) without loop
devices or mounting, and checks what a Pi's firmware, kernel and systemd will find.

    images/rpi/test_sdcard.py CARD.img BOARD

The partition table is read from the MBR; the FAT partition through mtools (`mdir`,
`mtype` with an @@offset), the ext4 ones through `debugfs` on a copy of each. Checks:
three partitions (FAT32 bootable, ext4 root, ext4 state) whose ids match the disk id in
cmdline.txt and fstab; the Pi firmware (bootcode.bin, start*.elf, fixup*.dat), the kernel
and initramfs that config.txt names, the board's DTBs; config.txt with arm_64bit=1 and the
profile's lines; cmdline.txt with the profile's line and the read-only root; fstab with the
root read-only and the state partition `nofail`; the kernel's modules for the version on
the firmware partition; the unit enabled; user boardwalk owning the state partition;
/usr/bin/boardwalk an AArch64 ELF. The last line is 'N passed, N failed'.
Python 3 standard library; mtools and e2fsprogs.
"""
import os
import re
import struct
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The device trees each board's firmware loads, as Debian's kernel names them (raspi-firmware
# copies broadcom/bcm*.dtb; the Pi 4 and Zero 2 W firmware look for these names).
BOARD_DTBS = {
    "rpi4": ["bcm2711-rpi-4-b.dtb", "bcm2711-rpi-400.dtb"],
    "rpi-zero2w": ["bcm2837-rpi-zero-2-w.dtb"],
}


def profile_get(path, section, key):
    current = None
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if line.startswith("["):
            current = line.strip("[]").strip()
        elif "=" in line and current == section:
            k, v = (x.strip() for x in line.split("=", 1))
            if k == key:
                return v
    return ""


def partitions(image):
    with open(image, "rb") as f:
        mbr = f.read(512)
    if mbr[510:512] != b"\x55\xaa":
        raise ValueError("no MBR signature")
    disk_id = struct.unpack_from("<I", mbr, 440)[0]
    parts = []
    for i in range(4):
        boot, kind, start, count = struct.unpack_from("<B3xB3xII", mbr, 446 + 16 * i)
        if kind:
            parts.append({"boot": boot == 0x80, "type": kind, "offset": start * 512, "size": count * 512})
    return f"{disk_id:08x}", parts


class CardTest:
    def __init__(self, image, board, tmp):
        self.image, self.board, self.tmp = image, board, tmp
        self.results = []

    def run(self, name, fn):
        try:
            detail = fn() or ""
            ok = True
        except AssertionError as e:
            ok, detail = False, str(e)
        except Exception as e:
            ok, detail = False, f"{type(e).__name__}: {e}"
        self.results.append(ok)
        print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)

    # --- reading the card ---
    def fat(self, *args):
        at = f"{self.image}@@{self.parts[0]['offset']}"
        return subprocess.run(args[:1] + ("-i", at) + args[1:], capture_output=True, text=True, check=True,
                              env=dict(os.environ, MTOOLS_SKIP_CHECK="1")).stdout

    def fat_file(self, name):
        return self.fat("mtype", "::/" + name)

    def extract(self, index):
        path = os.path.join(self.tmp, f"part{index + 1}.img")
        if not os.path.exists(path):
            p = self.parts[index]
            # A sparse copy of the partition: debugfs reads file systems from files.
            subprocess.run(["dd", f"if={self.image}", f"of={path}", "bs=1M", f"skip={p['offset'] // 1048576}",
                            f"count={p['size'] // 1048576}", "conv=sparse", "status=none"], check=True)
        return path

    def debugfs(self, index, request):
        r = subprocess.run(["debugfs", "-R", request, self.extract(index)], capture_output=True, text=True)
        return r.stdout

    def root_file(self, path):
        out = os.path.join(self.tmp, "dump")
        if os.path.exists(out):
            os.unlink(out)
        subprocess.run(["debugfs", "-R", f"dump {path} {out}", self.extract(1)], capture_output=True, check=True)
        assert os.path.exists(out) and os.path.getsize(out) > 0, f"{path} is not in the root"
        with open(out, "rb") as f:
            return f.read()

    # --- the checks ---
    def layout(self):
        self.disk_id, self.parts = partitions(self.image)
        kinds = [p["type"] for p in self.parts]
        assert kinds == [0x0C, 0x83, 0x83], f"partition types {[hex(k) for k in kinds]}, want FAT32 LBA, Linux, Linux"
        assert self.parts[0]["boot"], "the firmware partition is not marked bootable"
        assert all(p["offset"] % (4 << 20) == 0 for p in self.parts), "partitions not 4 MiB aligned"
        labels = []
        for i in (1, 2):
            m = re.search(r"Filesystem volume name:\s+(\S+)", self.debugfs(i, "stats"))
            labels.append(m.group(1) if m else None)
        assert labels == ["bw-root", "bw-state"], f"ext4 labels {labels}"
        sizes = ", ".join(f"{p['size'] >> 20} MiB" for p in self.parts)
        return f"disk id {self.disk_id}; FAT32 (bootable), ext4 bw-root, ext4 bw-state: {sizes}"

    def firmware(self):
        listing = self.fat("mdir", "-b", "::/")
        names = {os.path.basename(l.strip()) for l in listing.splitlines() if l.strip()}
        for need in ("bootcode.bin", "start.elf", "start4.elf", "fixup.dat", "fixup4.dat"):
            assert need in names, f"{need} missing from the firmware partition"
        self.kernel = sorted(n for n in names if n.startswith("vmlinuz-"))
        self.initrd = sorted(n for n in names if n.startswith("initrd.img-"))
        assert self.kernel and self.initrd, f"no kernel or initramfs: {sorted(names)}"
        family = "rpi4" if self.board.startswith("rpi4") else "rpi-zero2w" if "zero2w" in self.board else None
        for dtb in BOARD_DTBS.get(family, []):
            assert dtb in names, f"{dtb} missing (the firmware loads it on this board)"
        self.names = names
        dtbs = sorted(n for n in names if n.endswith(".dtb"))
        return f"{self.kernel[-1]}, {self.initrd[-1]}, {len(dtbs)} DTBs ({', '.join(BOARD_DTBS.get(family, []))})"

    def config_txt(self):
        text = self.fat_file("config.txt")
        lines = [l.strip() for l in text.splitlines()]
        assert "arm_64bit=1" in lines, "config.txt lacks arm_64bit=1"
        m = re.search(r"^kernel=(\S+)", text, re.M)
        assert m and m.group(1) in self.names, f"config.txt names kernel {m.group(1) if m else None}, not on the card"
        m2 = re.search(r"^initramfs (\S+)", text, re.M)
        assert m2 and m2.group(1) in self.names, f"config.txt names initramfs {m2.group(1) if m2 else None}, not on the card"
        fragment = os.path.join(REPO, "boards", profile_get(self.profile, "boot", "config_txt"))
        for line in open(fragment):
            line = line.strip()
            if line and not line.startswith("#"):
                assert line in lines, f"config.txt lacks the profile's line {line!r}"
        return f"arm_64bit=1, kernel={m.group(1)}, initramfs {m2.group(1)}, the profile's lines"

    def cmdline_txt(self):
        text = self.fat_file("cmdline.txt").strip()
        assert "\n" not in text, "cmdline.txt must be one line"
        want = profile_get(self.profile, "boot", "cmdline")
        assert text.startswith(want), f"cmdline.txt does not start with the profile's line: {text}"
        args = text.split()
        assert f"root=PARTUUID={self.disk_id}-02" in args, f"no root=PARTUUID={self.disk_id}-02: {text}"
        assert "ro" in args and "rw" not in args, f"the root is not mounted read-only: {text}"
        return text

    def fstab(self):
        text = self.root_file("/etc/fstab").decode()
        mounts = {}
        for line in text.splitlines():
            f = line.split()
            if len(f) >= 4 and not f[0].startswith("#"):
                mounts[f[1]] = f
        root, state, boot = mounts.get("/"), mounts.get("/var/lib/boardwalk"), mounts.get("/boot/firmware")
        assert root and root[0] == f"PARTUUID={self.disk_id}-02" and "ro" in root[3].split(","), f"root: {root}"
        assert state and state[0] == f"PARTUUID={self.disk_id}-03", f"state: {state}"
        assert "nofail" in state[3].split(",") and "rw" in state[3].split(","), f"state not rw,nofail: {state}"
        assert boot and boot[0] == f"PARTUUID={self.disk_id}-01" and "ro" in boot[3].split(","), f"boot: {boot}"
        return f"/ {root[3]}; /var/lib/boardwalk {state[3]}"

    def modules(self):
        version = self.kernel[-1][len("vmlinuz-"):]
        out = self.debugfs(1, f"ls -l /usr/lib/modules/{version}")
        assert "modules.dep" in out, f"no /usr/lib/modules/{version}/modules.dep in the root"
        return f"/usr/lib/modules/{version}"

    def unit(self):
        link = self.debugfs(1, "stat /etc/systemd/system/multi-user.target.wants/boardwalk.service")
        assert "Type: symlink" in link, "boardwalk.service is not enabled"
        self.root_file("/usr/lib/systemd/system/boardwalk.service")
        passwd = self.root_file("/etc/passwd").decode()
        m = re.search(r"^boardwalk:[^:]*:(\d+):(\d+):", passwd, re.M)
        assert m, "no user boardwalk"
        st = self.debugfs(2, "stat /")
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


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    image, board = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        t = CardTest(image, board, tmp)
        t.profile = os.path.join(REPO, "boards", board + ".conf")
        t.run("partitions", t.layout)
        if t.results[-1]:
            for name, fn in (("firmware partition", t.firmware), ("config.txt", t.config_txt),
                             ("cmdline.txt", t.cmdline_txt), ("fstab", t.fstab), ("kernel modules", t.modules),
                             ("the unit, its user, the profile", t.unit), ("the binary", t.binary)):
                if fn in (t.config_txt, t.modules) and not hasattr(t, "names"):
                    t.results.append(False)
                    print(f"FAIL {name}: skipped (no firmware partition)")
                    continue
                t.run(name, fn)
    passed = sum(t.results)
    print(f"{passed} passed, {len(t.results) - passed} failed")
    return 0 if all(t.results) else 1


if __name__ == "__main__":
    sys.exit(main())
