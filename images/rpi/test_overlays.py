#!/usr/bin/env python3
"""The display overlays (boards/overlays/*.dts) against the kernel the Pi card carries.

    images/rpi/test_overlays.py [--suite SUITE]   (default trixie: the card's kernel)

Debian's linux-image-arm64 of SUITE (and the packages holding its modules and DTBs, when it
is split) is fetched with images/lib.sh's bw_apt (its own apt lists, any host; SUITE's main
archive: the card's mmdebstrap also takes trixie-security, whose kernel may be a stable update
ahead, 6.12.118 beside main's 6.12.117 on 2026-12-06) into
$BOARDWALK_OVERLAY_CACHE (default /var/cache/boardwalk/overlays), unpacked once per version
with `depmod -b` run on its modules. For every overlay:
  - dtc -@ compiles it without a warning;
  - fdtoverlay applies it to each DTB its `// dtbs:` line names, taken from that package (the
    files raspi-firmware copies to the card's boot partitions), which carry __symbols__;
  - every enabled node the overlay adds or changes in the merged tree, and every bus node
    above one, has a driver in that kernel: its modalias (of:N<name>T<type>C<compatible>...)
    matches a module's or a built-in driver's `of:` alias (modules.alias,
    modules.builtin.modinfo), or its compatible is in the of_device_id table of a module that
    the merged tree loads by alias (vc4's DSI, HDMI and HVS drivers, matched once vc4 is in);
  - what the overlay's `// not-in-debian: COMPATIBLE=WHAT` lines declare missing is missing,
    and for the reason given: WHAT is a kernel option the package's config leaves unset, or
    `polling` (a node without an interrupt whose driver module cannot poll: no reference to
    input_setup_polling). A declared gap that the kernel has since closed fails, so the
    card and boards/README.md get updated;
  - a panel-mipi-dbi-spi node's init file (<first compatible>.bin, from the .txt beside the
    overlay through mipi-dbi-cmds.py) builds, reads back as the driver reads it, fits the
    driver's 40-byte name, and its pixel format command matches the node's `format`;
  - every dtoverlay=boardwalk-* line of boards/*.config.txt names an overlay here.
The last line is 'N passed, N failed'. Python 3 standard library; device-tree-compiler
(dtc, fdtoverlay), kmod (depmod), dpkg, apt.
"""
import argparse
import fnmatch
import glob
import importlib.util
import lzma
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from boardtest.results import Results  # noqa: E402
from fdt import Node, ancestors, enabled, read_fdt  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OVERLAYS = os.path.join(REPO, "boards", "overlays")
# Populated by the OF core (drivers/of/platform.c, of_default_bus_match_table), not a driver.
CORE_BUSES = {"simple-bus", "simple-mfd", "isa", "arm,amba-bus"}
CACHE = os.environ.get("BOARDWALK_OVERLAY_CACHE", "/var/cache/boardwalk/overlays")


def log(msg):
    print(f"[overlays] {msg}", file=sys.stderr, flush=True)


def bw_apt(suite, *args, cwd=None):
    """images/lib.sh's bw_apt: apt against Debian's SUITE for arm64 with lists in CACHE."""
    r = subprocess.run(["bash", "-c", 'source "$0/images/lib.sh" && bw_apt "$@"', REPO, suite, "arm64", *args],
                       capture_output=True, text=True, cwd=cwd, env=dict(os.environ, BOARDWALK_IMAGE_CACHE=CACHE))
    if r.returncode:
        raise RuntimeError(f"bw_apt {suite} {' '.join(args)}: {r.stderr.strip()[-400:]}")
    return r.stdout


# --- the kernel package ---
def fetch_kernel(suite):
    """The unpacked kernel of SUITE's linux-image-arm64, cached: (dir, version string, kver).
    dir holds modules/ (the package's lib/modules/KVER after depmod), dtbs/ (broadcom/*.dtb)
    and config."""
    # One look-up when cached (each costs seconds): the metapackage's version is its image's.
    meta = bw_apt(suite, "apt-cache", "show", "linux-image-arm64").split("\n\n")[0]
    image = next((m.group(1) for m in re.finditer(r"\b(linux-image-\d[^\s,]*)", meta)), None)
    if not image:
        raise RuntimeError(f"Debian {suite} has no linux-image-arm64 for arm64")
    version = re.search(r"^Version: (\S+)", meta, re.M).group(1)
    kver = image[len("linux-image-"):]
    kdir = os.path.join(CACHE, f"kernel-{kver}_{version}")
    if os.path.exists(os.path.join(kdir, ".complete")):
        return kdir, version, kver
    show = bw_apt(suite, "apt-cache", "show", f"{image}={version}")
    log(f"fetching {image} {version} ({suite})")
    part = kdir + ".part"
    shutil.rmtree(part, ignore_errors=True)
    os.makedirs(os.path.join(part, "deb"))
    # Since 7.x the image is split: its modules and DTBs are in packages it depends on.
    pkgs = [image] + sorted(set(re.findall(rf"\b(linux-(?:base|binary|modules)-{re.escape(kver)})\b",
                                           re.search(r"^Depends: (.*)$", show, re.M).group(1))))
    bw_apt(suite, "apt-get", "download", *pkgs, cwd=os.path.join(part, "deb"))
    root = os.path.join(part, "root")
    for deb in glob.glob(os.path.join(part, "deb", "*.deb")):
        subprocess.run(["dpkg-deb", "-x", deb, root], check=True)
    mods = next(p for p in (f"{root}/usr/lib/modules/{kver}", f"{root}/lib/modules/{kver}") if os.path.isdir(p))
    subprocess.run(["depmod", "-b", os.path.dirname(os.path.dirname(os.path.dirname(mods))) if "/usr/" in mods
                    else root, kver], check=True)
    dtbs = next(p for p in (f"{root}/usr/lib/linux-image-{kver}/broadcom", f"{mods}/dtb/broadcom")
                if os.path.isdir(p))
    os.rename(dtbs, os.path.join(part, "dtbs"))
    config = next(p for p in (f"{root}/boot/config-{kver}", f"{mods}/config") if os.path.exists(p))
    os.rename(config, os.path.join(part, "config"))
    shutil.rmtree(os.path.join(mods, "dtb"), ignore_errors=True)
    os.rename(mods, os.path.join(part, "modules"))
    shutil.rmtree(root)
    shutil.rmtree(os.path.join(part, "deb"))
    with open(os.path.join(part, "suite"), "w") as f:
        f.write(suite + "\n")
    open(os.path.join(part, ".complete"), "w").close()
    shutil.rmtree(kdir, ignore_errors=True)
    os.rename(part, kdir)
    # This suite's older kernels: dead weight (about 100 MB each).
    for old in glob.glob(os.path.join(CACHE, "kernel-*", "suite")):
        if os.path.dirname(old) != kdir and open(old).read().strip() == suite:
            shutil.rmtree(os.path.dirname(old), ignore_errors=True)
    return kdir, version, kver


class Drivers:
    """Which of the kernel's drivers a device tree node gets, as modprobe and the driver
    core find them."""

    def __init__(self, kdir):
        self.kdir = kdir
        self.exact = {}      # compatible -> modules whose alias is of:N*T*C<compatible>[C*]
        self.patterns = []   # (pattern, module) for any other of: alias
        with open(os.path.join(kdir, "modules", "modules.alias")) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 3 and parts[1].startswith("of:"):
                    self.add(parts[1], parts[2])
        with open(os.path.join(kdir, "modules", "modules.builtin.modinfo"), "rb") as f:
            for entry in f.read().split(b"\0"):
                m = re.match(rb"([^.]+)\.alias=(of:\S+)$", entry)
                if m:
                    self.add(m.group(2).decode(), m.group(1).decode() + " (built in)")
        self.paths = {}
        with open(os.path.join(kdir, "modules", "modules.dep")) as f:
            for line in f:
                path = line.split(":", 1)[0]
                name = os.path.basename(path).split(".ko")[0].replace("-", "_")
                self.paths[name] = os.path.join(kdir, "modules", path)
        self.config = open(os.path.join(kdir, "config")).read()
        self.blobs = {}

    def add(self, alias, module):
        m = re.fullmatch(r"of:N\*T\*C([^*?\[\]]+?)(C\*)?", alias)
        if m:
            self.exact.setdefault(m.group(1), set()).add(module)
        else:
            self.patterns.append((alias, module))

    def by_alias(self, node):
        """Modules whose alias matches NODE's modalias."""
        found = set()
        for c in node.compatibles:
            found |= self.exact.get(c, set())
        if self.patterns and node.compatibles:
            modalias = f"of:N{node.name.split('@')[0]}T{node.device_type}" + "".join("C" + c for c in node.compatibles)
            found |= {mod for pat, mod in self.patterns if fnmatch.fnmatchcase(modalias, pat)}
        return found

    def blob(self, module):
        if module not in self.blobs:
            path = self.paths[module]
            data = open(path, "rb").read()
            self.blobs[module] = lzma.decompress(data) if path.endswith(".xz") else data
        return self.blobs[module]

    def in_table(self, compatible, modules):
        """Loaded modules among MODULES with COMPATIBLE in an of_device_id table: an entry is
        name[32] and type[32] (empty: zeros), then compatible[128], NUL-padded."""
        sig = bytes(64) + compatible.encode() + b"\0"
        return sorted(m for m in modules if not m.endswith("(built in)") and m in self.paths and sig in self.blob(m))

    def unset(self, option):
        return re.search(rf"^# CONFIG_{option} is not set$", self.config, re.M) is not None and \
            re.search(rf"^CONFIG_{option}=", self.config, re.M) is None


class OverlayTest:
    def __init__(self, suite, tmp):
        self.suite, self.tmp = suite, tmp
        self.results = Results()
        self.run = self.results.step

    def kernel(self):
        self.kdir, self.version, self.kver = fetch_kernel(self.suite)
        self.drivers = Drivers(self.kdir)
        return f"{self.suite}: linux-image-{self.kver} {self.version}"

    def checker(self):
        """The driver lookup itself: a compatible no kernel has finds nothing, a known one its
        module, a vc4 sub-device (no alias) only through vc4's table."""
        fake = Node("/soc/nothing@0", {"compatible": b"boardwalk,no-such-device\0"})
        assert not self.drivers.by_alias(fake), "a made-up compatible found a driver"
        touch = Node("/soc/spi@7e204000/touchscreen@1", {"compatible": b"ti,ads7846\0"})
        assert self.drivers.by_alias(touch) == {"ads7846"}, f"ti,ads7846 -> {self.drivers.by_alias(touch)}"
        dsi = Node("/soc/dsi@7e700000", {"compatible": b"brcm,bcm2711-dsi1\0"})
        assert not self.drivers.by_alias(dsi) and self.drivers.in_table("brcm,bcm2711-dsi1", {"vc4"}) == ["vc4"], \
            "vc4's DSI1 driver is not found in vc4's of_device_id table"
        assert not self.drivers.in_table("boardwalk,no-such-device", {"vc4"}), "a made-up compatible is in vc4's table"
        return "made-up compatible: none; ti,ads7846: ads7846; brcm,bcm2711-dsi1: vc4's table only"

    def compile(self, dts):
        out = os.path.join(self.tmp, os.path.basename(dts)[:-4] + ".dtbo")
        r = subprocess.run(["dtc", "-@", "-I", "dts", "-O", "dtb", "-o", out, dts], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr.strip()
        assert not r.stderr.strip(), f"dtc warns: {r.stderr.strip()}"
        return out

    def overlay(self, dts):
        src = open(dts).read()
        header = lambda key: [v.strip() for line in re.findall(rf"^// {key}:(.*)$", src, re.M) for v in line.split()]
        dtbs = header("dtbs")
        assert dtbs, "no `// dtbs:` line naming the DTBs it is for"
        gaps = dict(g.split("=", 1) for g in header("not-in-debian"))
        dtbo = self.compile(dts)
        notes = []
        for dtb in dtbs:
            base = os.path.join(self.kdir, "dtbs", dtb)
            assert os.path.exists(base), f"{dtb} is not in the kernel package"
            before = read_fdt(base)
            assert "/__symbols__" in before, f"{dtb} has no __symbols__: overlays cannot apply to it"
            merged_path = os.path.join(self.tmp, f"{os.path.basename(dts)[:-4]}+{dtb}")
            r = subprocess.run(["fdtoverlay", "-i", base, "-o", merged_path, dtbo], capture_output=True, text=True)
            assert r.returncode == 0, f"fdtoverlay on {dtb}: {r.stderr.strip()}"
            after = read_fdt(merged_path)
            changed = [p for p, n in after.items() if not p.startswith("/__")
                       and (p not in before or before[p].props != n.props) and enabled(after, p)]
            assert changed, f"the overlay changes no enabled node of {dtb}"
            # What modprobe loads for the whole merged tree (for drivers matched inside a module
            # another node loads, as vc4's sub-drivers are).
            loaded = set()
            for p, n in after.items():
                if n.compatibles and enabled(after, p):
                    loaded |= self.drivers.by_alias(n)
            checked, missing = {}, {}
            wanted = [(p, "added" if p not in before else "changed") for p in changed]
            # The buses above them; those the OF core itself populates (of_default_bus_match_table)
            # need no driver.
            wanted += [(a, "bus") for p in changed for a in ancestors(p)
                       if a != "/" and after[a].compatibles and not set(after[a].compatibles) & CORE_BUSES]
            # A mux's parent bus (i2c-parent) carries its traffic: it needs its driver too.
            phandles = {struct.unpack(">I", n.props["phandle"])[0]: q for q, n in after.items() if "phandle" in n.props}
            wanted += [(phandles[struct.unpack(">I", after[p].props["i2c-parent"])[0]], "parent bus")
                       for p, _ in list(wanted) if "i2c-parent" in after[p].props]
            for p, why in wanted:
                n = after[p]
                if p in checked or not n.compatibles:
                    continue
                mods = self.drivers.by_alias(n)
                how = "alias"
                if not mods:
                    mods = {m for c in n.compatibles for m in self.drivers.in_table(c, loaded)}
                    how = "of_device_id table"
                if mods:
                    checked[p] = f"{n.compatibles[0]} -> {', '.join(sorted(mods))}" + ("" if how == "alias" else f" ({how})")
                else:
                    missing[p] = n
            for p, n in list(missing.items()):
                declared = [c for c in n.compatibles if c in gaps]
                assert declared, (f"{dtb}: {p} ({', '.join(n.compatibles)}) has no driver in linux-image-{self.kver}"
                                  f" {self.version}")
                option = gaps[declared[0]]
                assert option != "polling", f"{declared[0]}: `polling` is for a driver that exists but cannot poll"
                assert self.drivers.unset(option), (f"{declared[0]}: declared missing for CONFIG_{option}, but this "
                                                    f"kernel's config does not leave it unset")
                notes.append(f"{declared[0]}: no driver (CONFIG_{option} is not set)")
                del missing[p]
            for c, what in gaps.items():
                nodes = [n for p, n in after.items() if p in changed and c in n.compatibles]
                assert nodes, f"declares {c} missing, but adds no node with it"
                if what == "polling":
                    n = nodes[0]
                    assert "interrupts" not in n.props and "interrupts-extended" not in n.props, \
                        f"{c}: declared to need polling, but the node has an interrupt"
                    mods = self.drivers.by_alias(n)
                    assert mods, f"{c}: no driver at all"
                    polls = [m for m in mods if m in self.drivers.paths and b"input_setup_polling" in self.drivers.blob(m)]
                    assert not polls, (f"{c}: {', '.join(polls)} can poll in this kernel now: drop the declaration, "
                                       "update boards/README.md")
                    notes.append(f"{c}: no interrupt line and {', '.join(sorted(mods))} cannot poll")
                elif not any(p in missing or not self.drivers.by_alias(after[p]) for p in after
                             if p in changed and c in after[p].compatibles):
                    raise AssertionError(f"{c} is declared missing but this kernel drives it: wire the overlay "
                                         "into the card and update boards/README.md")
            self.panel_init_files(after, changed)
        return f"{', '.join(dtbs)}: " + "; ".join(checked.values()) + ("; known gaps: " + "; ".join(notes) if notes else "")

    def panel_init_files(self, tree, changed):
        spec = importlib.util.spec_from_file_location("mipi_dbi_cmds", os.path.join(OVERLAYS, "mipi-dbi-cmds.py"))
        gen = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(gen)
        for p in changed:
            n = tree[p]
            if "panel-mipi-dbi-spi" not in n.compatibles:
                continue
            first = n.compatibles[0]
            assert len(first + ".bin") < 40, f"{first}.bin is longer than the driver's 40-byte name buffer"
            src = os.path.join(OVERLAYS, first + ".txt")
            assert os.path.exists(src), f"no init sequence {src} for {first}"
            out = os.path.join(self.tmp, first + ".bin")
            r = subprocess.run([sys.executable, os.path.join(OVERLAYS, "mipi-dbi-cmds.py"), src, out],
                               capture_output=True, text=True)
            assert r.returncode == 0, r.stderr.strip()
            commands = gen.decode(open(out, "rb").read())
            colmod = [params for cmd, params in commands if cmd == 0x3A]
            fmt = (n.strings("format") or ["r5g6b5"])[0]
            want = {"r5g6b5": 0x55, "b6x2g6x2r6x2": 0x66}[fmt]
            assert colmod and colmod[-1] == bytes([want]), f"{first}: the pixel format command is {colmod}, format {fmt} wants 0x{want:02x}"
            assert any(cmd == 0x29 for cmd, _ in commands), f"{first}: never turns the display on (0x29)"

    def profiles(self):
        named = {}
        for conf in sorted(glob.glob(os.path.join(REPO, "boards", "*.config.txt"))):
            for m in re.finditer(r"^dtoverlay=(boardwalk-[^,\s]+)", open(conf).read(), re.M):
                named.setdefault(m.group(1), []).append(os.path.basename(conf))
        for name, confs in named.items():
            assert os.path.exists(os.path.join(OVERLAYS, name + ".dts")), f"{', '.join(confs)} name {name}, not in boards/overlays"
        return "; ".join(f"{name}: {', '.join(c)}" for name, c in sorted(named.items())) or "no profile names one"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", default="trixie", help="Debian suite of the kernel (the card's: trixie)")
    args = ap.parse_args()
    for tool in ("dtc", "fdtoverlay", "depmod", "dpkg-deb"):
        if not shutil.which(tool) and not os.path.exists("/usr/sbin/" + tool):
            r = Results()
            r.record(False, "tools", f"{tool} is missing (scripts/install-deps.sh test)")
            return r.summary()
    global CACHE
    try:
        os.makedirs(CACHE, exist_ok=True)
        assert os.access(CACHE, os.W_OK)
    except (OSError, AssertionError):
        # Not root: the user's own cache.
        CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "boardwalk", "overlays")
        os.makedirs(CACHE, exist_ok=True)
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        t = OverlayTest(args.suite, tmp)
        if t.run("kernel", t.kernel) and t.run("driver lookup", t.checker):
            for dts in sorted(glob.glob(os.path.join(OVERLAYS, "*.dts"))):
                t.run(os.path.basename(dts), t.overlay, dts)
        t.run("profiles' dtoverlay= lines", t.profiles)
    log(f"{time.monotonic() - start:.1f} s")
    return t.results.summary()


if __name__ == "__main__":
    sys.exit(main())
