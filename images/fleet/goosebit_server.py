"""goosebit (PyPI), a small server of hawkBit's device API (DDI), run on this machine for the
fleet's tests: the A/B board's update through the server (images/boardtest/fleet_server.py)
and the simulated fleet (images/fleet/fleet_sim.py). Installed once per version into a
virtualenv under the cache (BOARDWALK_FLEET_CACHE, default /var/cache/boardwalk/fleet);
each server gets its own database and artifacts in a work directory, listens on 127.0.0.1
only, and is driven through its management API (/api/v1) as an operator's script would.
"""
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

VERSION = os.environ.get("BOARDWALK_GOOSEBIT_VERSION", "0.2.12")
CACHE = os.environ.get("BOARDWALK_FLEET_CACHE", "/var/cache/boardwalk/fleet")


def venv(version=VERSION, log=sys.stderr):
    """The virtualenv holding goosebit VERSION, made once (python3-venv, pip from PyPI), with
    zstandard: goosebit reads each uploaded bundle's manifest from its squashfs, and our
    bundles' squashfs is zstd (images/rauc.sh), which its reader (PySquashfsImage) needs the
    module for."""
    d = os.path.join(CACHE, f"goosebit-{version}-zstd")
    if os.path.exists(os.path.join(d, ".complete")):
        return d
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(CACHE, exist_ok=True)
    print(f"goosebit: installing {version} from PyPI into {d}", file=log, flush=True)
    subprocess.run([sys.executable if sys.executable.startswith("/usr/") else "python3", "-m", "venv", d],
                   check=True, stdout=log, stderr=log)
    subprocess.run([os.path.join(d, "bin", "pip"), "install", "-q", f"goosebit=={version}", "zstandard"],
                   check=True, stdout=log, stderr=log)
    open(os.path.join(d, ".complete"), "w").close()
    return d


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Goosebit:
    """One goosebit server: its database and artifacts in WORKDIR, on 127.0.0.1:port."""

    def __init__(self, workdir, port=None, poll_seconds=10, version=VERSION, log=None):
        self.workdir = os.path.abspath(workdir)
        # A fresh server each time: no devices or bundles of an earlier run.
        shutil.rmtree(self.workdir, ignore_errors=True)
        os.makedirs(self.workdir)
        self.password = secrets.token_hex(12)
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.venv = venv(version)
        self.log = log or open(os.path.join(self.workdir, "goosebit.log"), "a")
        self.proc = None
        self.token = None
        self.poll_seconds = poll_seconds
        pkg = subprocess.run([os.path.join(self.venv, "bin", "python"), "-c",
                              "import goosebit, os; print(os.path.dirname(goosebit.__file__))"],
                             check=True, capture_output=True, text=True).stdout.strip()
        self.settings = os.path.join(self.workdir, "goosebit.yaml")
        with open(self.settings, "w") as f:
            # DDI without device tokens (the default: device_auth off); the bundles' RAUC
            # compatible is the hardware goosebit matches them to.
            f.write(f"port: {self.port}\n"
                    f"db_uri: sqlite:///{self.workdir}/db.sqlite3\n"
                    f"artifacts_dir: {self.workdir}/artifacts\n"
                    f"poll_time: \"00:{poll_seconds // 60:02d}:{poll_seconds % 60:02d}\"\n"
                    f"secret_key: {secrets.token_hex(32)}\n")
        # aerich (goosebit's migrations) reads its settings from pyproject.toml in its cwd.
        with open(os.path.join(self.workdir, "pyproject.toml"), "w") as f:
            f.write(f'[tool.aerich]\ntortoise_orm = "goosebit.db.config.TORTOISE_CONF"\n'
                    f'location = "{pkg}/db/migrations"\nsrc_folder = "."\n')
        self.env = dict(os.environ, GOOSEBIT_SETTINGS=self.settings)

    def start(self, timeout=60):
        subprocess.run([os.path.join(self.venv, "bin", "aerich"), "upgrade"], cwd=self.workdir, env=self.env,
                       check=True, stdout=self.log, stderr=self.log)
        self.proc = subprocess.Popen([os.path.join(self.venv, "bin", "uvicorn"), "goosebit:app",
                                      "--host", "127.0.0.1", "--port", str(self.port), "--log-level", os.environ.get("BOARDWALK_GOOSEBIT_LOG", "warning")],
                                     cwd=self.workdir, env=self.env, stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + timeout
        while True:
            try:
                body = urllib.parse.urlencode({"username": "admin@boardwalk.test", "password": self.password}).encode()
                with urllib.request.urlopen(self.url + "/setup", data=body, timeout=5) as r:
                    self.token = json.load(r)["access_token"]
                return self
            except (urllib.error.URLError, ConnectionError, OSError):
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"goosebit did not start (see {self.log.name})")
                time.sleep(0.5)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def api(self, method, path, body=None, content_type="application/json", timeout=120):
        data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"Authorization": f"Bearer {self.token}", "Content-Type": content_type})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            text = r.read()
        return json.loads(text) if text else None

    def upload(self, path):
        """A RAUC bundle uploaded (goosebit reads its manifest: version, compatible); its id."""
        boundary = "bw" + secrets.token_hex(12)
        with open(path, "rb") as f:
            content = f.read()
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{os.path.basename(path)}\"\r\n"
                f"Content-Type: application/octet-stream\r\n\r\n").encode() + content + f"\r\n--{boundary}--\r\n".encode()
        return self.api("PUT", "/api/v1/software", body, f"multipart/form-data; boundary={boundary}")["id"]

    def device(self, dev_id):
        # From the list: goosebit 0.2.12's /api/v1/devices/ID answers 500 once a bundle is
        # assigned to the device.
        return next((d for d in self.devices() if d["id"] == dev_id), None)

    def devices(self):
        return self.api("GET", "/api/v1/devices")["devices"]

    def assign(self, dev_ids, software):
        """software: an id, "rollout" (the device's feed's rollout) or "latest"."""
        self.api("PATCH", "/api/v1/devices", {"devices": list(dev_ids), "software": str(software)})

    def set_feed(self, dev_ids, feed):
        self.api("PATCH", "/api/v1/devices", {"devices": list(dev_ids), "feed": feed})

    def rollout(self, name, feed, software_id):
        return self.api("PUT", "/api/v1/rollouts", {"name": name, "feed": feed, "software_id": software_id})

    def rollouts(self):
        return self.api("GET", "/api/v1/rollouts")["rollouts"]

    def pause(self, rollout_ids, paused=True):
        self.api("PATCH", "/api/v1/rollouts", {"ids": list(rollout_ids), "paused": paused})

    def resource(self):
        """The server process's CPU seconds and resident memory (MB), from /proc."""
        return proc_usage(self.proc.pid)


def bundle_keys(directory):
    """A directory with key.pem and cert.pem to sign the tests' bundles with: the image
    builds' development key when the image cache has it ($BOARDWALK_RAUC_DEV_KEYRING, made by
    images/rauc.sh), else a throwaway key made once in DIRECTORY: goosebit reads a bundle's
    manifest and never checks its signature, and on a fresh machine no image is built yet."""
    keys = os.environ.get("BOARDWALK_RAUC_DEV_KEYRING", "/var/cache/boardwalk/images/rauc-dev-keyring")
    if os.path.exists(os.path.join(keys, "key.pem")):
        return keys
    keys = os.path.join(directory, "key")
    if not os.path.exists(os.path.join(keys, "key.pem")):
        os.makedirs(keys, exist_ok=True)
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                        "-subj", "/CN=boardwalk fleet test", "-keyout", f"{keys}/key.pem", "-out", f"{keys}/cert.pem"],
                       check=True, capture_output=True)
    return keys


def signed_bundle(directory, version, compatible, keys, image_bytes):
    """A RAUC bundle made by this machine's rauc in DIRECTORY: VERSION and COMPATIBLE in its
    manifest, an IMAGE_BYTES random root image, signed with KEYS/cert.pem and key.pem."""
    src = os.path.join(directory, "bundle-" + version)
    os.makedirs(src)
    with open(os.path.join(src, "rootfs.img"), "wb") as f:
        f.write(os.urandom(image_bytes))
    with open(os.path.join(src, "manifest.raucm"), "w") as f:
        f.write(f"[update]\ncompatible={compatible}\nversion={version}\n[bundle]\nformat=verity\n"
                "[image.rootfs]\nfilename=rootfs.img\n")
    out = os.path.join(directory, f"boardwalk-{version}.raucb")
    subprocess.run(["rauc", "bundle", f"--cert={keys}/cert.pem", f"--key={keys}/key.pem", src, out],
                   check=True, capture_output=True)
    return out


def proc_usage(pid):
    """A process's CPU seconds (user + system) and resident memory in MB, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    with open(f"/proc/{pid}/status") as f:
        rss = next((int(line.split()[1]) for line in f if line.startswith("VmRSS:")), 0) / 1024
    return cpu, rss
