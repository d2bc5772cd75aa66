#!/usr/bin/env python3
"""The Debian package tested as Debian tests packages (scripts/deb.sh test, make deb-test).

In a fresh Debian 13 root of the package's architecture (arm64 under qemu-user), through
apt and dpkg only: `apt-get install ./NEW.deb` pulls the dependencies from the archive
and is purged again; then OLD is installed and checked (user, the PIN's hash in the state
directory, enabled unit, masks, conffiles, files, the binary runs), upgraded to NEW (the
PIN, the operator's edits and the kiosk's coins and scores kept), given a new PIN by
dpkg-reconfigure, removed (tty1's getty back, config and state kept) and purged (both
gone), and the root is then as it was before that install: file list, modes, owners and
contents (what piuparts checks). Then OLD again, left as a version that kept the PIN in
boardwalk.conf did, upgraded (the hash moves to the state directory) and purged. Prints
what it checked and `N passed, 0 failed` (images/boardtest/results.py)."""
import argparse, hashlib, os, re, shutil, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--arch", required=True)
ap.add_argument("--root-tar", required=True)
ap.add_argument("--new", required=True)
ap.add_argument("--old", required=True)
ap.add_argument("--repo", help="an apt repository (scripts/deb.sh apt-repo) holding NEW: a board upgrades OLD to it with apt-get upgrade")
ap.add_argument("--apt-cache", help="a directory kept between runs for the root's apt lists and downloaded packages")
ap.add_argument("--keep", action="store_true", help="keep the root (for a look after a failure)")
args = ap.parse_args()

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from boardtest.results import Results  # noqa: E402

results = Results(f"deb-test {args.arch}")
log, check = results.log, results.check


work = tempfile.mkdtemp(prefix=f"deb-test-{args.arch}-", dir="/var/tmp")
root = os.path.join(work, "root")
os.mkdir(root)


def run(cmd, check_rc=True, user=None):
    """A shell command in the root (chroot with /proc, /sys, /dev; no systemd running, as
    in a package build or piuparts: deb-systemd-invoke then starts nothing)."""
    if user:
        cmd = f"setpriv --reuid={user} --regid={user} --init-groups sh -c {shq(cmd)}"
    inner = ('set -e; r=$1; c=$3; for d in proc sys dev; do mount --rbind /$d "$r/$d"; done; '
             'if [ -n "$c" ]; then mount --bind "$c/lists" "$r/var/lib/apt/lists"; '
             'mount --bind "$c/archives" "$r/var/cache/apt/archives"; fi; '
             'exec chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 '
             'DEBIAN_FRONTEND=noninteractive sh -c "$2"')
    p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", inner, "run", root, cmd, args.apt_cache or ""],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if check_rc and p.returncode != 0:
        print(p.stdout)
        check(False, f"`{cmd}` exited {p.returncode}")
    return p.stdout


def shq(s):
    return "'" + s.replace("'", "'\\''") + "'"


# Not the package's to leave alone or clean: apt's and dpkg's own records, logs, caches.
IGNORED = re.compile(r"^/(proc|sys|dev|run|tmp|debs)(/|$)|^/var/(lib/apt|lib/dpkg|cache/apt|cache/debconf|log)(/|$)"
                     r"|^/etc/ld\.so\.cache$|^/var/cache/ldconfig(/|$)")
# The kiosk's user and group stay after purge, as Debian's packages leave theirs (a file it
# owns elsewhere must not pass to a later user with its id): these change, and nothing else.
USER_FILES = {"/etc/passwd", "/etc/group", "/etc/shadow", "/etc/gshadow",
              "/etc/passwd-", "/etc/group-", "/etc/shadow-", "/etc/gshadow-"}


def snapshot():
    """Every path in the root: its type, mode, owner and (for files) content hash."""
    out = {}
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(d, n)
            rel = "/" + os.path.relpath(p, root)
            if IGNORED.match(rel):
                continue
            st = os.lstat(p)
            if os.path.islink(p):
                what = "link:" + os.readlink(p)
            elif os.path.isfile(p):
                with open(p, "rb") as f:
                    what = "file:" + hashlib.sha256(f.read()).hexdigest()[:16]
            else:
                what = "dir"
            out[rel] = (what, st.st_mode, st.st_uid, st.st_gid)
    return out


PIN_FILE = "/var/lib/boardwalk/operator-pin"
CONF = "/etc/boardwalk/boardwalk.conf"
CONF_PIN_LINE = re.compile(r"^\s*operator_pin\s*=", re.M)


def hash_matches(line, pin):
    """Whether LINE is one pbkdf2-sha256$ITERATIONS$SALT$HASH line, the hash of PIN."""
    m = re.fullmatch(r"pbkdf2-sha256\$(\d+)\$([0-9a-f]+)\$([0-9a-f]+)\n", line)
    return (m is not None and
            hashlib.pbkdf2_hmac("sha256", pin.encode(), bytes.fromhex(m.group(2)), int(m.group(1))).hex() == m.group(3))


def pin_matches(pin):
    """Whether the state directory's operator-pin holds the hash of PIN (and not the PIN),
    root's and 0644 as boardwalk-set-pin makes it, and boardwalk.conf holds no PIN: the
    one place the kiosk takes it from, as on the images."""
    st = os.lstat(root + PIN_FILE)
    line = fileof(PIN_FILE)
    return (hash_matches(line, pin) and pin not in line and st.st_uid == 0 and st.st_mode & 0o7777 == 0o644
            and not CONF_PIN_LINE.search(fileof(CONF)))


def fileof(path):
    with open(root + path) as f:
        return f.read()


try:
    log(f"fresh root from {os.path.basename(args.root_tar)}")
    subprocess.run(["tar", "-xf", args.root_tar, "-C", root], check=True)
    shutil.copy("/etc/resolv.conf", root + "/etc/resolv.conf")
    if args.apt_cache:
        # apt's lists and downloads outside the root, so a second run fetches only what changed
        # (both are outside what the snapshots compare).
        for d in ("lists/partial", "archives/partial"):
            os.makedirs(os.path.join(args.apt_cache, d), exist_ok=True)
    run("apt-get update -qq")
    os.mkdir(root + "/debs")
    for d in (args.old, args.new):
        shutil.copy(d, root + "/debs/")
    old, new = "/debs/" + os.path.basename(args.old), "/debs/" + os.path.basename(args.new)
    oldv = run(f"dpkg-deb -f {old} Version").strip()
    newv = run(f"dpkg-deb -f {new} Version").strip()
    check(run(f"dpkg --compare-versions {newv} gt {oldv} && echo yes", check_rc=False).strip() == "yes",
          f"{newv} is newer than {oldv}")

    # --- a first install, as a user does it: apt resolves the package's Depends from Debian
    # 13's archive. Then purged: what stays is the dependencies, the reference below.
    # The PIN preseeded, as docs/FLEET.md tells a fleet to (debconf's question, unattended).
    run("echo 'boardwalk boardwalk/operator-pin password 480721' | debconf-set-selections")
    out = run(f"apt-get install -y --no-install-recommends {new}")
    check(re.search(r"^Setting up boardwalk \(" + re.escape(newv), out, re.M) is not None, f"apt installed boardwalk {newv}")
    check("operator PIN:" not in out and pin_matches("480721"),
          f"the preseeded PIN is the one hashed, in {PIN_FILE} (none in boardwalk.conf), none is made")
    check("480721" not in fileof("/var/cache/debconf/passwords.dat"), "debconf's database forgot the preseeded PIN")
    pulled = sorted(p for p in re.findall(r"^Setting up (\S+?)(?::\S+)? ", out, re.M) if p != "boardwalk")
    check(len(pulled) > 0, f"apt pulled {len(pulled)} dependencies from the archive: {' '.join(pulled)}")
    check("usage: boardwalk" in run("boardwalk --help", user="boardwalk"), "the binary runs (boardwalk --help, as its user)")
    # No IMAGE_VERSION on a stock system: the kiosk shows and reports the package's version.
    check(run("boardwalk --version", user="boardwalk").strip() == newv, f"the kiosk's version is the package's ({newv})")
    run("apt-get purge -y boardwalk")

    # --- install, upgrade, remove, purge; afterwards the root must be as it was here
    # (piuparts' check: the dependencies stay installed, so only what the package made counts).
    before = snapshot()
    out = run(f"apt-get install -y --no-install-recommends {old}")
    check(re.search(r"^Setting up boardwalk \(" + re.escape(oldv), out, re.M) is not None, f"apt installed boardwalk {oldv}")
    check(run("dpkg-query -W -f='${Status}' boardwalk") == "install ok installed", "dpkg: install ok installed")
    pins = re.findall(r"boardwalk: operator PIN: (\d+)", out)
    check(len(pins) == 1, "a random operator PIN is shown once")
    pin = pins[0]
    check(run("boardwalk --version", user="boardwalk").strip() == oldv, f"the kiosk's version is {oldv}")

    passwd = run("getent passwd boardwalk").strip().split(":")
    check(passwd[0] == "boardwalk" and passwd[6] in ("/usr/sbin/nologin", "/sbin/nologin") and int(passwd[2]) < 1000,
          f"system user boardwalk (uid {passwd[2]}, no login)")
    groups = run("id -nG boardwalk").split()
    check({"video", "input", "audio"} <= set(groups), f"boardwalk is in video, input, audio ({' '.join(groups)})")

    check(pin_matches(pin), f"{PIN_FILE} (root's, 0644) holds the hash of the PIN shown, not its digits; boardwalk.conf no operator_pin")
    check(pin not in fileof("/var/cache/debconf/passwords.dat") + fileof("/var/cache/debconf/config.dat"),
          "debconf's database keeps no PIN")
    st = os.stat(root + "/etc/boardwalk/boardwalk.conf")
    gid = int(run("getent group boardwalk").split(":")[2])
    check(st.st_uid == 0 and st.st_gid == gid and st.st_mode & 0o777 == 0o640, "boardwalk.conf: root:boardwalk 0640")
    check(os.path.isfile(root + "/etc/boardwalk/board.conf"), "a board.conf (no Pi here: the generic one)")

    check(run("systemctl is-enabled boardwalk.service", check_rc=False).strip() == "enabled", "boardwalk.service is enabled")
    for unit in ("getty@tty1.service", "autovt@tty1.service", "ctrl-alt-del.target", "kbrequest.target"):
        check(run(f"systemctl is-enabled {unit}", check_rc=False).strip() == "masked", f"{unit} is masked")
    conffiles = run("dpkg-query -W -f='${Conffiles}' boardwalk")
    for f in ("/etc/systemd/logind.conf.d/boardwalk-lockdown.conf", "/etc/systemd/system.conf.d/boardwalk-lockdown.conf",
              "/etc/sysctl.d/90-boardwalk.conf"):
        check(f in conffiles, f"conffile {f}")
    check("HandlePowerKey=ignore" in fileof("/etc/systemd/logind.conf.d/boardwalk-lockdown.conf")
          and "kernel.sysrq = 0" in fileof("/etc/sysctl.d/90-boardwalk.conf"), "the lockdown drop-ins say what they lock")
    for f in ("/usr/bin/boardwalk", "/usr/lib/systemd/system/boardwalk.service", "/usr/lib/sysusers.d/boardwalk.conf",
              "/usr/lib/tmpfiles.d/boardwalk.conf", "/usr/lib/udev/rules.d/70-boardwalk.rules",
              "/usr/share/boardwalk/boards/rpi4-official-7in.conf", "/usr/share/boardwalk/packs",
              "/usr/share/doc/boardwalk/README.md", "/usr/share/doc/boardwalk/copyright",
              "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf",
              "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc"):
        check(os.path.exists(root + f), f"{f} is there")
    st = os.stat(root + "/var/lib/boardwalk")
    check(st.st_uid == int(passwd[2]) and st.st_mode & 0o777 == 0o700, "/var/lib/boardwalk: the kiosk's, 0700")
    out = run("systemd-analyze verify --man=no /usr/lib/systemd/system/boardwalk.service 2>&1 || true")
    check("boardwalk.service" not in out or "Unknown" not in out, "systemd-analyze verify finds no unknown setting")

    # The kiosk's state and the operator's edits, which an upgrade must keep.
    run("printf 'coins=7\\ncredits.balance=3\\n' > /var/lib/boardwalk/counters && "
        "printf '2048.best.5x5=1234\\n' > /var/lib/boardwalk/scores", user="boardwalk")
    books = run("boardwalk bookkeeping --state-dir /var/lib/boardwalk", user="boardwalk")
    check(re.search(r"^coins: 7$", books, re.M) is not None, "the kiosk's books read coins: 7")
    with open(root + "/etc/boardwalk/boardwalk.conf", "a") as f:
        f.write("\n[audio]\nvolume = 40\n")
    with open(root + "/etc/systemd/logind.conf.d/boardwalk-lockdown.conf", "a") as f:
        f.write("# the operator's note\n")
    conf = fileof("/etc/boardwalk/boardwalk.conf")
    board = fileof("/etc/boardwalk/board.conf")
    pin_line = fileof(PIN_FILE)

    # --- upgrade ---
    out = run(f"apt-get install -y --no-install-recommends -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold {new}")
    check(run("dpkg-query -W -f='${Version}' boardwalk") == newv, f"upgraded to {newv}")
    check(run("boardwalk --version", user="boardwalk").strip() == newv, f"the kiosk's version: {oldv} before, {newv} now")
    check("operator PIN:" not in out, "the upgrade shows no new PIN")
    check(fileof("/etc/boardwalk/boardwalk.conf") == conf, "the upgrade keeps boardwalk.conf (the operator's volume)")
    check(fileof(PIN_FILE) == pin_line and pin_matches(pin), f"the upgrade keeps the PIN's hash in {PIN_FILE}")
    check(fileof("/etc/boardwalk/board.conf") == board, "the upgrade keeps board.conf")
    check("# the operator's note" in fileof("/etc/systemd/logind.conf.d/boardwalk-lockdown.conf"), "the upgrade keeps an edited conffile")
    books = run("boardwalk bookkeeping --state-dir /var/lib/boardwalk", user="boardwalk")
    check(re.search(r"^coins: 7$", books, re.M) and re.search(r"^credits_left: 3$", books, re.M)
          and fileof("/var/lib/boardwalk/scores") == "2048.best.5x5=1234\n", "the upgrade keeps coins, credits and scores")
    check(run("systemctl is-enabled boardwalk.service", check_rc=False).strip() == "enabled", "still enabled after the upgrade")

    # --- dpkg-reconfigure: a new PIN (preseeded, as the noninteractive frontend asks nothing) ---
    run("echo 'boardwalk boardwalk/operator-pin password 271828' | debconf-set-selections")
    out = run("dpkg-reconfigure -fnoninteractive boardwalk 2>&1")
    check("operator PIN:" not in out and pin_matches("271828") and not pin_matches(pin),
          f"dpkg-reconfigure boardwalk sets the new PIN in {PIN_FILE}")
    check("271828" not in fileof("/var/cache/debconf/passwords.dat"), "debconf's database forgot the new PIN")

    # --- remove: the console back; config and state kept ---
    run("apt-get remove -y boardwalk")
    check(run("dpkg-query -W -f='${Status}' boardwalk") == "deinstall ok config-files", "removed: config-files left")
    check(not os.path.exists(root + "/usr/bin/boardwalk"), "the binary is gone")
    for unit in ("getty@tty1.service", "autovt@tty1.service", "ctrl-alt-del.target", "kbrequest.target"):
        check(not os.path.lexists(root + "/etc/systemd/system/" + unit), f"{unit} is unmasked")
    check(run("systemctl is-enabled getty@tty1.service", check_rc=False).strip() == "enabled", "tty1's getty is enabled again")
    check(os.path.exists(root + "/etc/boardwalk/boardwalk.conf") and os.path.exists(root + "/var/lib/boardwalk/counters")
          and pin_matches("271828"), "remove keeps config and state (the PIN too)")

    # --- purge ---
    run("apt-get purge -y boardwalk")
    check(run("dpkg-query -W -f='${Status}' boardwalk 2>&1 || true").find("install ok") < 0, "purged")
    for p in ("/etc/boardwalk", "/var/lib/boardwalk", "/etc/systemd/logind.conf.d/boardwalk-lockdown.conf",
              "/etc/sysctl.d/90-boardwalk.conf", "/etc/systemd/system/multi-user.target.wants/boardwalk.service"):
        check(not os.path.lexists(root + p), f"purge removed {p}")
    check("boardwalk/" not in fileof("/var/cache/debconf/config.dat"), "debconf forgot the question")

    after = snapshot()
    added = sorted(set(after) - set(before))
    gone = sorted(set(before) - set(after))
    changed = sorted(p for p in set(before) & set(after) if before[p] != after[p] and p not in USER_FILES)
    for name, paths in (("left behind", added), ("missing", gone), ("changed", changed)):
        if paths:
            log(f"{name}: " + " ".join(paths[:40]))
    check(not added and not gone and not changed, "after the purge the root is as before the install (file list, modes, owners, contents)")

    # --- an upgrade from a version that kept the PIN's hash in boardwalk.conf (its postinst
    # ran `set-pin boardwalk.conf`; no operator-pin in the state): OLD installed, then made
    # as that version left it, then upgraded. The hash moves to the state once, the conf's
    # line goes, the kiosk's PIN stays the same; then purged, and nothing is left.
    out = run(f"apt-get install -y --no-install-recommends {old}")
    pin = re.findall(r"boardwalk: operator PIN: (\d+)", out)[0]
    pin_line = fileof(PIN_FILE)
    os.remove(root + PIN_FILE)
    with open(root + CONF, "a") as f:
        f.write(f"\n[kiosk]\noperator_pin = {pin_line.strip()}\n[audio]\nvolume = 40\n")
    check(not os.path.exists(root + PIN_FILE) and CONF_PIN_LINE.search(fileof(CONF)),
          "as an older version left it: the PIN's hash in boardwalk.conf, no operator-pin")
    out = run(f"apt-get install -y --no-install-recommends -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold {new}")
    check(run("dpkg-query -W -f='${Version}' boardwalk") == newv, f"upgraded to {newv}")
    check("operator PIN:" not in out and fileof(PIN_FILE) == pin_line and pin_matches(pin),
          f"the upgrade moved boardwalk.conf's hash to {PIN_FILE} (the same PIN, none made) and took the line out")
    check(re.search(r"^volume = 40$", fileof(CONF), re.M) is not None, "the operator's other settings stay in boardwalk.conf")
    run("apt-get purge -y boardwalk")
    after = snapshot()
    changed = sorted(p for p in set(before) ^ set(after)) + sorted(
        p for p in set(before) & set(after) if before[p] != after[p] and p not in USER_FILES)
    if changed:
        log("left behind, missing or changed: " + " ".join(changed[:40]))
    check(not changed and not os.path.lexists(root + "/var/lib/boardwalk"), "after that purge too the root is as before the install")

    if args.repo:
        # --- a cabinet on the operator's signed apt repository: OLD installed, then
        # `apt-get update && apt-get upgrade` brings NEW and keeps the coins and scores ---
        shutil.copytree(args.repo, root + "/repo")
        run(f"apt-get install -y --no-install-recommends {old}")
        run("printf 'coins=12\\n' > /var/lib/boardwalk/counters && printf '2048.best.4x4=2048\\n' > /var/lib/boardwalk/scores",
            user="boardwalk")
        src = "deb [signed-by=/usr/share/keyrings/boardwalk-archive-keyring.gpg] file:/repo trixie main\n"
        with open(root + "/etc/apt/sources.list.d/boardwalk.list", "w") as f:
            f.write(src)
        out = run("apt-get update 2>&1", check_rc=False)
        check("NO_PUBKEY" in out or "not signed" in out or "signed-by" in out,
              "without the operator's key apt refuses the repository")
        shutil.copy(args.repo + "/boardwalk-archive-keyring.gpg", root + "/usr/share/keyrings/")
        run("apt-get update -qq")
        check(newv in run("apt-cache policy boardwalk"), f"apt sees {newv} in the signed repository")
        out = run("apt-get upgrade -y")
        check(run("dpkg-query -W -f='${Version}' boardwalk") == newv, f"apt-get upgrade: {oldv} -> {newv} from the repository")
        books = run("boardwalk bookkeeping --state-dir /var/lib/boardwalk", user="boardwalk")
        check(re.search(r"^coins: 12$", books, re.M) and fileof("/var/lib/boardwalk/scores") == "2048.best.4x4=2048\n",
              "the upgrade from the repository keeps the coins and scores")
    results.summary()
finally:
    if args.keep:
        log(f"root kept: {root}")
    else:
        shutil.rmtree(work, ignore_errors=True)
