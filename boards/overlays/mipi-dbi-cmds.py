#!/usr/bin/env python3
"""Makes the init-sequence file Linux's panel-mipi-dbi driver loads for a MIPI DBI panel.

    boards/overlays/mipi-dbi-cmds.py SOURCE.txt OUT.bin

The driver (drivers/gpu/drm/tiny/panel-mipi-dbi.c: struct panel_mipi_dbi_config describes the
file; the binding is display/panel/panel-mipi-dbi-spi.yaml) asks the firmware loader for
"<first compatible>.bin" and reads:
15 bytes of magic ("MIPI DBI" and seven zero bytes), a file format version byte (1), then
commands, each a command byte, a parameter count and that many parameter bytes. A pause is
the NOP command (0x00) with one parameter: milliseconds.

SOURCE has one command a line: the command byte, then its parameters, each a number (0x..
or decimal); `delay MS` adds a pause (longer than 255 ms: several). `#` starts a comment.
"""
import sys

MAGIC = b"MIPI DBI" + bytes(7)
VERSION = 1


def parse(text, name="<source>"):
    """The command stream for SOURCE's text; raises ValueError naming the bad line."""
    out = bytearray()
    commands = 0
    for n, raw in enumerate(text.splitlines(), 1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        try:
            if words[0].lower() == "delay":
                if len(words) != 2:
                    raise ValueError("delay takes one number, milliseconds")
                ms = int(words[1], 0)
                if ms <= 0:
                    raise ValueError("a delay is at least 1 ms")
                while ms:
                    step = min(ms, 255)
                    out += bytes((0x00, 1, step))
                    ms -= step
                continue
            values = [int(w, 0) for w in words]
        except ValueError as e:
            raise ValueError(f"{name}:{n}: {e}") from None
        if any(not 0 <= v <= 255 for v in values):
            raise ValueError(f"{name}:{n}: every byte is 0..255: {raw.strip()}")
        if values[0] == 0x00:
            raise ValueError(f"{name}:{n}: 0x00 (NOP) is how the file says delay: write `delay MS`")
        if len(values) - 1 > 255:
            raise ValueError(f"{name}:{n}: more than 255 parameters")
        out += bytes((values[0], len(values) - 1)) + bytes(values[1:])
        commands += 1
    if not commands:
        raise ValueError(f"{name}: no command")
    return bytes(out)


def build(text, name="<source>"):
    return MAGIC + bytes((VERSION,)) + parse(text, name)


def decode(blob):
    """[(command, parameters)] of a file, checked as the driver checks it; a delay is (None, ms)."""
    if len(blob) < len(MAGIC) + 1 + 2 or blob[:len(MAGIC)] != MAGIC:
        raise ValueError("not a MIPI DBI init file (magic)")
    if blob[len(MAGIC)] != VERSION:
        raise ValueError(f"file format version {blob[len(MAGIC)]}, the driver reads {VERSION}")
    body, i, out = blob[len(MAGIC) + 1:], 0, []
    while i + 1 < len(body):
        cmd, count = body[i], body[i + 1]
        params = body[i + 2:i + 2 + count]
        i += 2 + count
        if i > len(body):
            raise ValueError(f"command 0x{cmd:02x} runs past the end")
        out.append((None, params[0]) if cmd == 0 and count == 1 else (cmd, bytes(params)))
    if i != len(body):
        raise ValueError("a stray byte at the end")
    return out


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    src, dst = sys.argv[1], sys.argv[2]
    try:
        blob = build(open(src).read(), src)
    except ValueError as e:
        print(f"mipi-dbi-cmds: {e}", file=sys.stderr)
        return 1
    with open(dst, "wb") as f:
        f.write(blob)
    return 0


if __name__ == "__main__":
    sys.exit(main())
