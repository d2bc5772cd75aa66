"""Flattened device trees (DTBs) read as the kernel sees them: nodes, properties, and
which nodes it makes devices of. The standard library only."""
import struct


class Node:
    def __init__(self, path, props):
        self.path, self.props = path, props
        self.name = path.rsplit("/", 1)[-1] or "/"

    def strings(self, prop):
        v = self.props.get(prop)
        return [s.decode() for s in v.rstrip(b"\0").split(b"\0")] if v else []

    @property
    def compatibles(self):
        return self.strings("compatible")

    @property
    def device_type(self):
        t = self.strings("device_type")
        return t[0] if t else ""

    @property
    def status_ok(self):
        s = self.strings("status")
        return not s or s[0] in ("okay", "ok")


def read_fdt(path):
    """{path: Node} of a DTB (the flattened tree format: header, then the structure block's
    tokens; property names from the strings block)."""
    data = open(path, "rb").read()
    magic, _total, off_struct, off_strings = struct.unpack_from(">IIII", data, 0)
    if magic != 0xD00DFEED:
        raise ValueError(f"{path} is not a flattened device tree")
    nodes, stack, i = {}, [], off_struct
    while True:
        token = struct.unpack_from(">I", data, i)[0]
        i += 4
        if token == 1:      # FDT_BEGIN_NODE
            end = data.index(b"\0", i)
            name = data[i:end].decode()
            i = (end + 4) & ~3
            path = "/" if not stack else (stack[-1].rstrip("/") + "/" + name)
            stack.append(path)
            nodes[path] = Node(path, {})
        elif token == 2:    # FDT_END_NODE
            stack.pop()
        elif token == 3:    # FDT_PROP
            length, nameoff = struct.unpack_from(">II", data, i)
            i += 8
            pname = data[off_strings + nameoff:data.index(b"\0", off_strings + nameoff)].decode()
            nodes[stack[-1]].props[pname] = data[i:i + length]
            i = (i + length + 3) & ~3
        elif token == 4:    # FDT_NOP
            continue
        elif token == 9:    # FDT_END
            return nodes
        else:
            raise ValueError(f"{path}: bad token {token} at {i - 4}")


def enabled(tree, path):
    """A node the kernel makes a device of: it and every node above it enabled."""
    while True:
        if not tree[path].status_ok:
            return False
        if path == "/":
            return True
        path = path.rsplit("/", 1)[0] or "/"


def ancestors(path):
    while path != "/":
        path = path.rsplit("/", 1)[0] or "/"
        yield path
