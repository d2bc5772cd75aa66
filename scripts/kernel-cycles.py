#!/usr/bin/env python3
"""Cycles a core model gives the copy-out kernels' inner loops, per byte they write.

No Pi is here to time, so this asks LLVM's machine-code analyser (llvm-mca) how many
cycles the blocks of Sources/CopyKernels/CopyKernels.c take on a given core, as the
shipped code is compiled (the same -O2 and target as the arm64 kiosk build, no -mcpu),
and divides by the bytes each block stores. That is the
core's side of a copy: what it costs where the data sits in L1, as a damaged
rectangle's rows do. Memory is not modelled; whole frames on a Pi wait on DRAM.

    scripts/kernel-cycles.py [--cpu cortex-a72] [--sysroot DIR]     # a Pi 4's core
    scripts/kernel-cycles.py --cpu neoverse-n1                      # a Pi 5's
    scripts/kernel-cycles.py --target x86_64-linux-gnu --cpu znver3

The Pi 5's Cortex-A76 has no model of its own in LLVM (up to 19 at least, -mcpu=cortex-a76
prints the A72's figures); Neoverse N1 is the same core design built for servers (the
same 4-wide decode, two ASIMD and two load/store pipes), and LLVM 17 and later model it.
llvm-mca comes with Debian's llvm-19 (scripts/install-deps.sh bench). For aarch64 the C
headers come from the arm64 build root (`make arm64` caches it in /var/cache/boardwalk),
found by itself when --sysroot is not given.

Prints a line for each basic block that stores data (see store_blocks): its function,
the source line of its first store (clang -g; an inlined helper's line where the store
is in one), instructions, cycles, bytes loaded and stored, cycles per stored byte, and
that against a plain 32-byte copy loop on the same model (the memcpy the bench compares
with). Identical blocks (the compiler's unrolled copies) are shown once.
"""
import argparse, glob, os, re, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(ROOT, "Sources/CopyKernels/CopyKernels.c")
ITERATIONS = 400


def find_tool(names):
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    sys.exit(f"kernel-cycles: none of {', '.join(names)} found (apt-get install llvm-19)")


def default_clang():
    swift = shutil.which("swift")
    if swift:
        clang = os.path.join(os.path.dirname(os.path.realpath(swift)), "clang")
        if os.path.exists(clang):
            return clang
    return find_tool(["clang"])


def compile_to_asm(clang, target, sysroot, extra):
    out = tempfile.NamedTemporaryFile(suffix=".s", delete=False).name
    cmd = [clang, f"--target={target}", "-O2", "-g", "-fPIC", "-S",
           "-I", os.path.join(ROOT, "Sources/CopyKernels/include"), SOURCE, "-o", out] + extra
    if sysroot:
        cmd.insert(2, f"--sysroot={sysroot}")
    subprocess.run(cmd, check=True)
    with open(out) as f:
        text = f.read()
    os.unlink(out)
    return text.splitlines()


def blocks(lines, comment):
    """The assembly cut at each basic block's label or `%bb.N` line: [(function, its lines)]."""
    out, function = [], "?"
    for raw in lines:
        stripped = raw.strip()
        name = re.match(r"^([A-Za-z_]\w*):", stripped)
        if name:
            function = name.group(1)
        if re.match(r"^\.LBB\w+:", stripped) or stripped.startswith(comment + " %bb."):
            out.append((function, []))
        elif out:
            out[-1][1].append(stripped)
    return out


def store_blocks(lines, comment, target, min_stored):
    """[(function, source line, [instructions], loaded, stored)]: every basic block that
    stores at least `min_stored` bytes and calls nothing, named by the source line of its
    first store (for the walks' macros, the line that uses the macro). A kernel's 8-pixel
    blocks are unrolled by the compiler inside their loop, so blocks, not loops, are the
    unit: llvm-mca runs each as if it repeated, its steady state."""
    found = []
    for function, body in blocks(lines, comment):
        insts, line_now, first_store_line, loaded, stored = [], 0, 0, 0, 0
        for line in body:
            if line.startswith(".loc"):
                parts = line.split()
                line_now = int(parts[2]) if len(parts) > 2 else 0
                continue
            inst = line.split(comment)[0].strip()
            if not inst or inst.startswith("."):
                continue
            insts.append(inst)
            l, st = memory_bytes(inst, target)
            loaded, stored = loaded + l, stored + st
            if st and not first_store_line:
                first_store_line = line_now
        calls = any(i.split()[0] in ("bl", "blr", "call", "callq") for i in insts)
        if insts and stored >= min_stored and not calls:
            found.append((function, first_store_line, insts, loaded, stored))
    return found


A64_SIZES = {"q": 16, "d": 8, "s": 4, "h": 2, "b": 1, "x": 8, "w": 4}


def memory_bytes(inst, target):
    """(loaded, stored) bytes of one instruction; none for the stack (spills, saved
    registers)."""
    if "[sp" in inst or "(%rsp)" in inst or "(%rbp)" in inst:
        return 0, 0
    op = inst.split()[0].lower()
    regs = inst[len(op):]
    if target.startswith("aarch64"):
        is_store = op.startswith("st")
        is_load = op.startswith("ld")
        if not (is_store or is_load):
            return 0, 0
        if op in ("st1", "ld1", "st2", "ld2", "st4", "ld4"):
            lst = re.search(r"\{([^}]*)\}(\[\d+\])?", regs)
            items = [r.strip() for r in lst.group(1).split(",")] if lst else []
            if lst and lst.group(2):  # one lane of each register
                size = {"b": 1, "h": 2, "s": 4, "d": 8}[items[0].split(".")[-1][0]]
                n = size * len(items)
            else:
                n = sum(16 if r.split(".")[-1] in ("16b", "8h", "4s", "2d") else 8 for r in items)
        else:
            first = regs.strip().split(",")[0].strip()
            width = {"strb": 1, "ldrb": 1, "strh": 2, "ldrh": 2, "sturb": 1, "ldurb": 1,
                     "sturh": 2, "ldurh": 2}.get(op)
            n = width or A64_SIZES.get(first[:1], 0)
            if op.startswith(("stp", "ldp", "stnp", "ldnp")):
                n *= 2
        return (0, n) if is_store else (n, 0)
    # x86-64 (AT&T): the last operand is the destination; constants (%rip) are not data
    if "(" not in inst or "(%rip)" in inst:
        return 0, 0
    size = 64 if "%zmm" in inst else 32 if "%ymm" in inst else 16 if "%xmm" in inst else \
        {"q": 8, "l": 4, "w": 2, "b": 1}.get(op[-1], 0)
    if op.startswith(("vextract", "extract")):
        size = 16
    elif op.startswith(("vpextr", "pextr")):
        size = {"b": 1, "w": 2, "d": 4, "q": 8}.get(op[-1], 0)
    stores_to_memory = regs.strip().endswith(")") and op.startswith(("mov", "vmov", "vextract", "vpextr", "pextr"))
    return (0, size) if stores_to_memory else (size, 0)


def mca_cycles(mca, target, cpu, body):
    src = "\n".join(body) + "\n"
    triple = "aarch64" if target.startswith("aarch64") else "x86_64"
    res = subprocess.run([mca, f"-mtriple={triple}", f"-mcpu={cpu}", f"-iterations={ITERATIONS}"],
                         input=src, capture_output=True, text=True)
    m = re.search(r"Total Cycles:\s+(\d+)", res.stdout)
    if not m:
        sys.exit(f"kernel-cycles: llvm-mca said:\n{res.stderr}\n{src}")
    return int(m.group(1)) / ITERATIONS


def copy_loop(target):
    """32 bytes a pass, the way that models fastest (on the A72 model, pairs of q loads and
    stores with write-back take 6 cycles, single ones 4)."""
    if target.startswith("aarch64"):
        return ["ldr q0, [x1]", "ldr q1, [x1, #16]", "str q0, [x0]", "str q1, [x0, #16]",
                "add x1, x1, #32", "add x0, x0, #32", "subs x2, x2, #32", "b.ne .Lcopy"]
    return ["vmovups (%rsi), %ymm0", "vmovups %ymm0, (%rdi)", "addq $32, %rsi", "addq $32, %rdi",
            "subq $32, %rdx", "jne .Lcopy"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", default="aarch64-linux-gnu")
    ap.add_argument("--cpu", default="cortex-a72")
    ap.add_argument("--sysroot")
    ap.add_argument("--clang", default=None)
    ap.add_argument("--mca", default=None)
    ap.add_argument("--min-stored", type=int, default=16, help="leave out blocks storing fewer bytes")
    ap.add_argument("cflags", nargs="*")
    args = ap.parse_args()
    clang = args.clang or default_clang()
    mca = args.mca or find_tool(["llvm-mca-19", "llvm-mca", "llvm-mca-17", "llvm-mca-16", "llvm-mca-14"])
    sysroot = args.sysroot
    if not sysroot and args.target.startswith("aarch64"):
        roots = sorted(glob.glob("/var/cache/boardwalk/images/rootdir-*-arm64-*"), key=os.path.getmtime)
        if not roots:
            sys.exit("kernel-cycles: no arm64 build root; run make arm64 or pass --sysroot")
        sysroot = roots[-1]
    lines = compile_to_asm(clang, args.target, sysroot, args.cflags)
    copy = mca_cycles(mca, args.target, args.cpu, copy_loop(args.target)) / 32
    print(f"# {os.path.basename(SOURCE)} for {args.target} (-O2), modelled as {args.cpu} by {os.path.basename(mca)}")
    print(f"# a plain copy: {copy:.3f} cycles a byte; 'x copy': a block's cycles against copying the bytes it stores")
    print(f"# {'function':<28} line  insts  cycles  loaded  stored  cycles/byte  x copy")
    comment = "//" if args.target.startswith("aarch64") else "#"
    rows = {}
    for function, line_no, body, loaded, stored in store_blocks(lines, comment, args.target, args.min_stored):
        cycles = mca_cycles(mca, args.target, args.cpu, body)
        key = (function, line_no, len(body), round(cycles, 1), loaded, stored)
        rows[key] = rows.get(key, 0) + 1
    for (function, line_no, n, cycles, loaded, stored), count in rows.items():
        times = f"  ({count} blocks)" if count > 1 else ""
        per_byte = cycles / stored
        print(f"  {function:<28} {line_no:4d} {n:6d} {cycles:7.1f} {loaded:7d} {stored:7d} {per_byte:12.3f} {per_byte / copy:7.2f}{times}")

if __name__ == "__main__":
    main()
