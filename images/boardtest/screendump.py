"""Screen analysis of QEMU's screendumps (binary PPM): what a person would see, as numbers.
Python 3; numpy for the array methods (motion, regions, shifts)."""
import re


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

    def exact_differences(self, other):
        """How many pixels are not exactly equal to another screendump's, and the first of
        them (x, y) or None: for pictures that must match pixel for pixel."""
        if (self.width, self.height) != (other.width, other.height):
            return self.width * self.height, None
        a, b = self.rgb, other.rgb
        first, count = None, 0
        for i in range(0, len(a), 3):
            if a[i:i + 3] != b[i:i + 3]:
                count += 1
                if first is None:
                    first = ((i // 3) % self.width, (i // 3) // self.width)
        return count, first

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


