"""CPU per thread of a process, from /proc: one shell command read the same way on this
machine (scripts/offscreen-check.py) and in a guest (the system test's idle menu), so the
figures mean the same in both. Python 3 standard library only."""
import subprocess


def threads_command(pid):
    """A shell command printing a line per thread of PID, `tid|name|stat after the
    name|voluntary context switches`, then the uptime in seconds."""
    return (f"cd /proc/{pid}/task && for t in *; do echo \"$t|$(cat $t/comm)|$(cut -d')' -f2- $t/stat)|"
            "$(sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' $t/status)\"; done 2>/dev/null; "
            "cut -d' ' -f1 /proc/uptime")


def parse_threads(out):
    """threads_command's output: ({(tid, name): (utime, stime, voluntary switches)} with
    CPU in clock ticks, uptime). A thread that ended while it was read is left out."""
    lines = out.strip().split("\n")
    counters = {}
    for line in lines[:-1]:
        parts = line.split("|", 3)
        if len(parts) < 4 or len(parts[2].split()) < 13:
            continue
        tid, name, rest, switches = parts
        fields = rest.split()  # from the state on: utime and stime are the 12th and 13th
        counters[(tid, name)] = (int(fields[11]), int(fields[12]), int(switches or 0))
    return counters, float(lines[-1])


def local_threads(pid):
    """threads_command run on this machine, parsed."""
    out = subprocess.run(["sh", "-c", threads_command(pid)], capture_output=True, text=True, check=True).stdout
    return parse_threads(out)


def cpu_use(before, after, hz, seconds, pid):
    """Percent of a core per thread between two readings: (per thread {(tid, name): %},
    the main thread's %, the whole process's %, a 'name (main) 1.23%, ...' line)."""
    zero = (0, 0, 0)
    use = {key: 100.0 * (after[key][0] + after[key][1] - before.get(key, zero)[0] - before.get(key, zero)[1]) / hz / seconds
           for key in after}
    main = sum(pct for (tid, _), pct in use.items() if tid == str(pid))
    threads = ", ".join(f"{name}{' (main)' if tid == str(pid) else ''} {pct:.2f}%"
                        for (tid, name), pct in sorted(use.items(), key=lambda kv: -kv[1]))
    return use, main, sum(use.values()), threads
