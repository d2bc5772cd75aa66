"""The virtual boards' images and disks (built by the shell scripts in
images/virtual-board/), and what the boards' profiles say. Python 3 standard library only."""
import glob
import os
import shutil
import struct
import subprocess
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(REPO, "images", "virtual-board")


def as_root(cmd):
    """The command under `sudo -E` when this process is not root (the image builds)."""
    if os.geteuid() != 0 and shutil.which("sudo"):
        return ["sudo", "-E"] + cmd
    return cmd


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
    cmd = [os.path.join(SCRIPTS, "build.sh"), "--arch", arch, binary, outdir]
    if testdata:
        cmd.append(testdata)
    subprocess.run(as_root(cmd), check=True, stdout=log, stderr=log)
    with open(os.path.join(outdir, "cmdline")) as f:
        cmdline = f.read().strip()
    return os.path.join(outdir, "vmlinuz"), os.path.join(outdir, "initrd"), cmdline



def build_disk(binary, outdir, testdata=None, log=None, version=None, bundle_only=False, arch="amd64"):
    """Builds the A/B disk board for arch (build-disk.sh): OUTDIR/disk.img (unless
    bundle_only), OUTDIR/update.raucb and OUTDIR/rootfs.ext4 for the version given (else the
    build's). Returns (disk or None, bundle, version)."""
    cmd = [os.path.join(SCRIPTS, "build-disk.sh")] + (["--bundle-only"] if bundle_only else []) + \
        ["--arch", arch, binary, outdir]
    if testdata:
        cmd.append(testdata)
    env = dict(os.environ)
    if version:
        env["BOARDWALK_IMAGE_VERSION"] = version
    subprocess.run(as_root(cmd), check=True, stdout=log, stderr=log, env=env)
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


PROFILES = {"amd64": "qemu-x86_64", "arm64": "qemu-arm64"}


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


def serial_console(arch):
    """The board's serial console device (ttyS0, ttyAMA0): the profile's console= argument."""
    for arg in profile_value(arch, "boot", "cmdline").split():
        if arg.startswith("console="):
            return arg[len("console="):].split(",")[0]
    raise ValueError(f"the {PROFILES[arch]} profile's command line names no console")


def find_kernel_dir():
    """The x86 virtual board's cached kernel: a directory with `vmlinuz` and
    `mods/lib/modules/VERSION` (build.sh's kernel cache), or None before a first build."""
    cache = os.environ.get("BOARDWALK_IMAGE_CACHE", "/var/cache/boardwalk/images")
    for d in sorted(glob.glob(os.path.join(cache, "kernel-linux-image-*-amd64-*"))):
        if os.path.exists(os.path.join(d, "vmlinuz")):
            return os.path.abspath(d)
    return None
