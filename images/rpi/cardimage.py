"""A card image read as a file: its MBR partitions (and the extended partition's logical
ones), and a board profile's values. The standard library only."""
import struct


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
    """The disk id and {number: partition}: the four MBR entries, then the logical
    partitions (5, 6, ...) along the extended partition's chain of EBRs."""
    with open(image, "rb") as f:
        def table(lba):
            f.seek(lba * 512)
            sector = f.read(512)
            if sector[510:512] != b"\x55\xaa":
                raise ValueError(f"no partition table signature at sector {lba}")
            entries = []
            for i in range(4):
                boot, kind, start, count = struct.unpack_from("<B3xB3xII", sector, 446 + 16 * i)
                entries.append((boot == 0x80, kind, start, count))
            return sector, entries

        mbr, entries = table(0)
        disk_id = struct.unpack_from("<I", mbr, 440)[0]
        parts = {}
        for n, (boot, kind, start, count) in enumerate(entries, 1):
            if kind:
                parts[n] = {"boot": boot, "type": kind, "offset": start * 512, "size": count * 512}
        ext = next((p for p in parts.values() if p["type"] in (0x05, 0x0F)), None)
        n, ebr = 5, ext["offset"] // 512 if ext else None
        while ebr is not None and n < 64:
            _, (first, link, *_rest) = table(ebr)
            _, kind, start, count = first
            parts[n] = {"boot": False, "type": kind, "offset": (ebr + start) * 512, "size": count * 512}
            n += 1
            ebr = ext["offset"] // 512 + link[2] if link[1] else None
    return f"{disk_id:08x}", parts
