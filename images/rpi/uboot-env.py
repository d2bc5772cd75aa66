#!/usr/bin/env python3
"""The U-Boot environment of a Boardwalk Pi card (images/rpi/build-sdcard.sh): the default
environment built into the card's u-boot.bin, with the kiosk's changes, as the text that
mkenvimage makes uboot.env of (partition 1, where Debian's rpi_arm64 U-Boot reads it).

    images/rpi/uboot-env.py u-boot.bin > env.txt

The changes: no autoboot delay and no key that stops it (bootdelay=-2), the console on the
serial port only (a stranger's USB keyboard types nothing into U-Boot, and the screen shows
no U-Boot text), no USB or PCI scan before the boot (preboot), and the SD card the only
device U-Boot boots from (boot_targets=mmc: never a stranger's USB stick or the network,
should the card's boot script be missing). A uboot.env that U-Boot
cannot read (a bad CRC) makes it start from the same default environment unchanged, which
boots the same script after its 2 s delay.
"""
import re
import sys

CHANGES = {
    "bootdelay": "-2",
    "preboot": None,
    "stdin": "serial",
    "stdout": "serial",
    "stderr": "serial",
    "boot_targets": "mmc",
}
# What the default environment must hold for this to be it (and for boot.cmd to work).
NEEDED = ("bootcmd", "bootdelay", "arch", "board", "scriptaddr", "kernel_addr_r", "stdin", "stdout")
ENTRY = re.compile(rb"[A-Za-z_][A-Za-z0-9_#.]*=[\x20-\x7e]*")


def default_environment(binary):
    """The NUL-separated name=value strings around bootdelay= in the binary."""
    at = binary.find(b"\0bootdelay=")
    if at < 0 or binary.find(b"\0bootdelay=", at + 1) >= 0:
        raise SystemExit("uboot-env: no single default environment (bootdelay=) in the binary")
    strings = binary.split(b"\0")
    index = binary[:at + 1].count(b"\0")  # bootdelay='s position among the strings
    start = index
    while start > 0 and ENTRY.fullmatch(strings[start - 1]):
        start -= 1
    end = index
    while end < len(strings) and ENTRY.fullmatch(strings[end]):
        end += 1
    env = {}
    for s in strings[start:end]:
        name, value = s.decode().split("=", 1)
        env[name] = value
    missing = [n for n in NEEDED if n not in env]
    if missing:
        raise SystemExit(f"uboot-env: the environment found lacks {', '.join(missing)}: {sorted(env)}")
    return env


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    env = default_environment(open(sys.argv[1], "rb").read())
    for name, value in CHANGES.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    for name in sorted(env):
        print(f"{name}={env[name]}")


if __name__ == "__main__":
    main()
