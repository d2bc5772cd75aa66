"""QEMU's channels to a guest, as the virtual boards use them: the HMP monitor
(screendump, quit), QMP (input events, device hot-plug), the serial console's log file and
the root command channel of the test images (guest/bw-agent on a virtio serial port).
Python 3 standard library only."""
import base64
import json
import re
import socket
import threading
import time


def hmp(path, command, timeout=30):
    """Sends one command to the HMP monitor on unix socket PATH; returns its reply."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    buf = b""
    try:
        while not buf.endswith(b"(qemu) "):
            chunk = s.recv(4096)
            if not chunk:
                return buf.decode(errors="replace")
            buf += chunk
        s.sendall(command.encode() + b"\n")
        if command == "quit":
            return ""
        buf = b""
        while not buf.endswith(b"(qemu) "):
            chunk = s.recv(4096)
            if not chunk:
                break
            buf += chunk
    finally:
        s.close()
    # The reply echoes the command (with terminal escapes); keep what follows it.
    text = re.sub(rb"\x1b\[[0-9;]*[A-Za-z]", b"", buf).decode(errors="replace")
    lines = [l for l in text.replace("\r", "").split("\n") if l and not l.startswith("(qemu)")]
    return "\n".join(l for l in lines if l.strip() != command)


def qmp(path, command, arguments=None, timeout=30):
    """Runs one QMP command on unix socket PATH; returns its "return" value."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    f = s.makefile("rwb")
    try:
        json.loads(f.readline())  # the greeting
        for cmd, args in (("qmp_capabilities", None), (command, arguments)):
            msg = {"execute": cmd}
            if args is not None:
                msg["arguments"] = args
            f.write(json.dumps(msg).encode() + b"\n")
            f.flush()
            while True:
                reply = json.loads(f.readline())
                if "return" in reply or "error" in reply:
                    break  # anything else is an asynchronous event
            if "error" in reply:
                raise RuntimeError(f"QMP {cmd}: {reply['error']}")
        return reply["return"]
    finally:
        f.close()
        s.close()


class EventLog:
    """QEMU's asynchronous QMP events (WATCHDOG, RESET, SHUTDOWN...) read on a QMP socket
    of their own for the life of one QEMU, each kept with the host's monotonic time and
    appended to a text file: a reset that leaves nothing on the serial console (a hardware
    watchdog's) is then told apart from the guest's own reboot."""

    def __init__(self, path, log_path):
        self.events = []  # [(host monotonic time, event name, data)]
        self._log_path = log_path
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._read, args=(path,), daemon=True)
        self._thread.start()

    def _read(self, path):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            deadline = time.monotonic() + 10
            while True:  # QEMU makes its sockets one after another
                try:
                    s.connect(path)
                    break
                except (FileNotFoundError, ConnectionRefusedError):
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)
            f = s.makefile("rwb")
            json.loads(f.readline())  # the greeting
            f.write(b'{"execute": "qmp_capabilities"}\n')
            f.flush()
            for line in f:  # until QEMU exits
                message = json.loads(line)
                if "event" in message:
                    self._add(message["event"], message.get("data", {}))
        except (OSError, ValueError) as e:
            self._add("(event log ended)", {"error": str(e)})

    def _add(self, name, data):
        now = time.monotonic()
        with self._lock:
            self.events.append((now, name, data))
        with open(self._log_path, "a") as f:
            f.write(f"{now:.3f} {name} {json.dumps(data)}\n")

    def seen(self, name, since=0.0):
        """The host times of event NAME at or after SINCE."""
        with self._lock:
            return [t for t, n, _ in self.events if n == name and t >= since]


def read_log(path):
    """A log file QEMU appends to (the serial console), as text; "" before it exists."""
    try:
        with open(path, "rb") as f:
            return f.read().decode(errors="replace")
    except OSError:
        return ""


def wait_log(path, pattern, timeout, alive=lambda: True, every=0.05):
    """Waits for a regular expression in the log at PATH: (match, host monotonic time
    when seen), or (None, now) after timeout. Stops early when alive() turns false."""
    deadline = time.monotonic() + timeout
    rx = re.compile(pattern)
    while time.monotonic() < deadline:
        m = rx.search(read_log(path))
        if m:
            return m, time.monotonic()
        if not alive():
            raise RuntimeError("qemu exited while waiting for " + pattern)
        time.sleep(every)
    return None, time.monotonic()


class GuestShell:
    """The test images' root command channel (guest/bw-agent): a line per command, the
    command base64'd after an id; the reply `RC id status base64(output)`."""

    def __init__(self, path):
        self.path = path
        self._sock = None
        self._buf = b""
        self._next_id = 1

    def close(self):
        if self._sock:
            self._sock.close()
            self._sock = None

    def run(self, command, timeout=60):
        """Runs a shell command as root in the guest; returns (status, output)."""
        if self._sock is None:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(self.path)
            self._sock, self._buf = s, b""
        rid = str(self._next_id)
        self._next_id += 1
        self._sock.sendall(f"{rid} {base64.b64encode(command.encode()).decode()}\n".encode())
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" in self._buf:
                line, self._buf = self._buf.split(b"\n", 1)
                parts = line.decode(errors="replace").split(" ")
                if len(parts) >= 3 and parts[0] == "RC" and parts[1] == rid:
                    out = base64.b64decode(parts[3]) if len(parts) > 3 else b""
                    return int(parts[2]), out.decode(errors="replace")
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"guest command timed out: {command}")
            self._sock.settimeout(left)
            chunk = self._sock.recv(65536)
            if not chunk:
                self.close()
                raise ConnectionError("guest command channel closed")
            self._buf += chunk

    def wait(self, timeout):
        """Waits until the channel answers; True if it did."""
        deadline = time.monotonic() + timeout
        wait = 2.0
        while time.monotonic() < deadline:
            try:
                if self.run("true", timeout=wait)[0] == 0:
                    return True
            except (OSError, TimeoutError, ConnectionError):
                self.close()
                # A guest busy starting the kiosk (emulated, on a loaded machine) can take
                # seconds to answer even `true`: each try waits longer.
                wait = min(wait * 2, 30.0)
                time.sleep(0.5)
        return False
