# images/lib.sh: what every image recipe shares. Source it from bash (set -eu).
# Everything built here is cached under $BW_CACHE, keyed by a hash of its inputs,
# so a second run only redoes what changed.

BW_IMAGES=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BW_REPO=$(cd "$BW_IMAGES/.." && pwd)
# Outside the repo: CI runs in a fresh clone each time, and a cache there would never be reused.
BW_CACHE=${BOARDWALK_IMAGE_CACHE:-/var/cache/boardwalk/images}
BW_SUITE=${BOARDWALK_SUITE:-bookworm}
mkdir -p "$BW_CACHE" 2>/dev/null || true

bw_log() { echo "[images] $*" >&2; }
bw_die() { echo "[images] error: $*" >&2; exit 1; }

# bw_one_build_at_a_time "$0" ARGS...: runs the calling script again under the cache's lock
# (once). The system test's two lanes (make test) build images side by side, and two builds
# of one cached piece would share its .part files.
bw_one_build_at_a_time() {
    [ -z "${BW_BUILD_LOCKED:-}" ] || return 0
    export BW_BUILD_LOCKED=1
    # -o: the lock is flock's own, not inherited by anything the build leaves running.
    exec flock -o "$BW_CACHE/.build.lock" "$@"
}

# Package names from list files (comments and blank lines dropped) and from arguments that
# are not files (package names, comma-separated), comma-joined.
bw_list() {
    local a
    for a in "$@"; do
        if [ -f "$a" ]; then sed -e 's/#.*//' "$a"; else printf '%s\n' "$a" | tr ',' '\n'; fi
    done | tr -d ' \t' | sed '/^$/d' | paste -sd, -
}

# A short hash of files and strings, for cache keys.
bw_key() {
    for a in "$@"; do
        if [ -f "$a" ]; then sha256sum "$a"; else printf '%s\n' "$a"; fi
    done | sha256sum | cut -c1-16
}

# bw_profile_get PROFILE SECTION KEY: one value from a board profile ("" when absent).
bw_profile_get() {
    awk -v want_s="$2" -v want_k="$3" '
        { sub(/\r$/, "") }
        /^[[:space:]]*(#|$)/ { next }
        /^[[:space:]]*\[/ { s = $0; gsub(/[][[:space:]]/, "", s); next }
        s == want_s {
            i = index($0, "="); if (i == 0) next
            k = substr($0, 1, i - 1); v = substr($0, i + 1)
            gsub(/^[[:space:]]+|[[:space:]]+$/, "", k); gsub(/^[[:space:]]+|[[:space:]]+$/, "", v)
            if (k == want_k) { print v; exit }
        }' "$1"
}

# bw_root_tar ARCH LISTFILE|PACKAGES...: a minimal Debian root (mmdebstrap tar), cached.
# Prints the tar's path.
bw_root_tar() {
    local arch=$1; shift
    local pkgs key out
    pkgs=$(bw_list "$@")
    key=$(bw_key "$BW_SUITE" "$arch" "$pkgs" "mmdebstrap-v3")
    out=$BW_CACHE/root-$arch-$key.tar
    if [ -s "$out" ]; then bw_log "root: cached $(basename "$out")"; touch "$out"; echo "$out"; return; fi
    command -v mmdebstrap >/dev/null || bw_die "mmdebstrap is missing (scripts/install-deps.sh test)"
    bw_log "root: mmdebstrap $BW_SUITE $arch ($pkgs)"
    # merged-usr hook: /usr merged without the usrmerge package (which drags in perl).
    # Documentation, manuals and translations are dropped: nobody reads them on a kiosk.
    # Copyright files stay (licences travel with the binaries). Of fonts-noto-cjk's four
    # collections (91 MB) only the bold sans one the kiosk draws with (20 MB) stays.
    # non-free-firmware: raspi-firmware (the Pi cards).
    mmdebstrap --variant=minbase --architecture="$arch" --include="$pkgs" \
        --components=main,non-free-firmware \
        --dpkgopt='path-exclude=/usr/share/man/*' \
        --dpkgopt='path-exclude=/usr/share/info/*' \
        --dpkgopt='path-exclude=/usr/share/locale/*' \
        --dpkgopt='path-include=/usr/share/locale/locale.alias' \
        --dpkgopt='path-exclude=/usr/share/doc/*' \
        --dpkgopt='path-include=/usr/share/doc/*/copyright' \
        --dpkgopt='path-exclude=/usr/share/fonts/opentype/noto/Noto*CJK-*.ttc' \
        --dpkgopt='path-include=/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc' \
        --aptopt='APT::Install-Recommends "false"' \
        --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
        "$BW_SUITE" "$out.part.tar" >&2
    mv "$out.part.tar" "$out"
    # Several roots per arch are live (the virtual board's, a Pi card's): only those unused
    # for two weeks go (a cached root is touched when it is used).
    find "$BW_CACHE" -maxdepth 1 -name "root-$arch-*.tar" -mtime +14 -delete
    echo "$out"
}

# bw_foreign_arch ARCH: makes sure this machine can run ARCH's programs (qemu-user through
# binfmt_misc), as mmdebstrap and an arm64 build root need. Nothing to do on ARCH itself.
bw_foreign_arch() {
    case "$1:$(dpkg --print-architecture)" in amd64:amd64|arm64:arm64) return ;; esac
    [ -e /proc/sys/fs/binfmt_misc/status ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    [ -e "/proc/sys/fs/binfmt_misc/qemu-$(bw_qemu_cpu "$1")" ] || update-binfmts --enable >&2 ||
        bw_die "no binfmt_misc entry for $1 (scripts/install-deps.sh arm64)"
}
bw_qemu_cpu() { case "$1" in arm64) echo aarch64 ;; amd64) echo x86_64 ;; *) echo "$1" ;; esac; }

# bw_root_dir SUITE ARCH LISTFILE...: a Debian root as a directory (apt variant: a build
# root, not an image), cached under $BW_CACHE and keyed by suite, arch and package list.
# Prints its path.
bw_root_dir() {
    local suite=$1 arch=$2; shift 2
    local pkgs key out
    pkgs=$(bw_list "$@")
    key=$(bw_key "$suite" "$arch" "$pkgs" "root-dir-v1")
    out=$BW_CACHE/rootdir-$suite-$arch-$key
    if [ -f "$out/.complete" ]; then bw_log "build root: cached $(basename "$out")"; echo "$out"; return; fi
    bw_foreign_arch "$arch"
    bw_log "build root: mmdebstrap $suite $arch ($pkgs)"
    rm -rf "$out.part"
    mmdebstrap --variant=apt --architecture="$arch" --include="$pkgs" \
        --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
        --dpkgopt='path-exclude=/usr/share/locale/*' \
        --aptopt='APT::Install-Recommends "false"' \
        "$suite" "$out.part" "deb http://deb.debian.org/debian $suite main" >&2
    touch "$out.part/.complete"
    rm -rf "$out"; mv "$out.part" "$out"
    # Older roots of this suite and arch are dead weight (gigabytes each).
    find "$BW_CACHE" -maxdepth 1 -name "rootdir-$suite-$arch-*" ! -name "$(basename "$out")" -exec rm -rf {} +
    echo "$out"
}

# bw_apt SUITE ARCH apt-get|apt-cache ARGS...: apt against Debian's SUITE for ARCH (main and
# non-free-firmware), with its own lists under $BW_CACHE: the host's apt setup is left alone
# and any host (a bookworm amd64 CI machine) can fetch trixie's arm64 kernel. Lists are
# refreshed when older than a day.
bw_apt() {
    local suite=$1 arch=$2 tool=$3; shift 3
    local d=$BW_CACHE/apt-$suite-$arch
    local opts=(-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache" -o "Dir::Etc::SourceList=$d/sources.list"
                -o Dir::Etc::SourceParts=/nonexistent -o "APT::Architecture=$arch" -o "APT::Architectures=$arch"
                -o Dir::State::status=/dev/null)
    if [ -z "$(find "$d/lists" -maxdepth 1 -name '*_Packages' -mmin -1440 2>/dev/null)" ]; then
        mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
        echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main non-free-firmware" > "$d/sources.list"
        apt-get "${opts[@]}" update -qq >&2
    fi
    "$tool" "${opts[@]}" "$@"
}

# bw_kernel SUITE ARCH MODULE...: Debian's kernel for ARCH from SUITE, unpacked, with only the
# named modules and what they depend on. Cached; prints the directory, which holds vmlinuz,
# version and mods/lib/modules/VERSION.
bw_kernel() {
    local suite=$1 arch=$2; shift 2
    local pkg kdir kver m f rel
    pkg=$(bw_apt "$suite" "$arch" apt-cache depends "linux-image-$arch" 2>/dev/null |
          sed -n 's/.*Depends: \(linux-image-[0-9].*\)/\1/p' | head -1)
    [ -n "$pkg" ] || bw_die "Debian $suite knows no linux-image-$arch"
    kdir=$BW_CACHE/kernel-$pkg-$(bw_key "$*")
    if [ -s "$kdir/vmlinuz" ]; then bw_log "kernel: cached $pkg"; echo "$kdir"; return; fi
    bw_log "kernel: $pkg ($*)"
    rm -rf "$kdir.part"; mkdir -p "$kdir.part/deb"
    (cd "$kdir.part/deb" && bw_apt "$suite" "$arch" apt-get download "$pkg" >&2)
    dpkg-deb -x "$kdir.part"/deb/*.deb "$kdir.part/full"
    kver=${pkg#linux-image-}
    # Modules under /usr/lib (trixie) or /lib (bookworm).
    local mroot=$kdir.part/full
    [ -d "$mroot/lib/modules/$kver" ] || mroot=$kdir.part/full/usr
    depmod -b "$mroot" "$kver"
    mkdir -p "$kdir.part/mods/lib/modules/$kver"
    cp "$mroot/lib/modules/$kver"/modules.{order,builtin,builtin.modinfo} "$kdir.part/mods/lib/modules/$kver/"
    for m in "$@"; do
        # Each module and everything it depends on ("builtin" lines have nothing to copy).
        modprobe -d "$mroot" -S "$kver" --show-depends "$m" | awk '$1=="insmod"{print $2}'
    done | sort -u | while read -r f; do
        rel=${f#"$mroot"}
        install -D -m 0644 "$f" "$kdir.part/mods$rel"
    done
    depmod -b "$kdir.part/mods" "$kver"
    cp "$kdir.part/full/boot/vmlinuz-$kver" "$kdir.part/vmlinuz"
    echo "$kver" > "$kdir.part/version"
    rm -rf "$kdir.part/full" "$kdir.part/deb"
    rm -rf "$kdir"; mv "$kdir.part" "$kdir"
    echo "$kdir"
}

# bw_install_units ROOT: the kiosk's systemd units, its user (sysusers), tmpfiles, udev
# rules (70: the backlight, the display the unit waits for), ALSA's core loaded at boot
# (modules-load.d) and the USB sticks mounted only while the kiosk asks
# (boardwalk-usb.path and .service, /usr/lib/boardwalk/usb-sticks). `make install`, the
# images and the Debian package (debian/rules) all install these.
bw_install_units() {
    local root=$1 f
    for f in boardwalk.service boardwalk-prepare.service boardwalk-console.service boardwalk-usb.path boardwalk-usb.service; do
        install -D -m 0644 "$BW_REPO/systemd/$f" "$root/usr/lib/systemd/system/$f"
    done
    install -D -m 0644 "$BW_REPO/systemd/boardwalk.sysusers" "$root/usr/lib/sysusers.d/boardwalk.conf"
    install -D -m 0644 "$BW_REPO/systemd/boardwalk.tmpfiles" "$root/usr/lib/tmpfiles.d/boardwalk.conf"
    install -D -m 0644 "$BW_REPO/systemd/70-boardwalk.rules" "$root/usr/lib/udev/rules.d/70-boardwalk.rules"
    install -D -m 0644 "$BW_REPO/systemd/boardwalk-modules.conf" "$root/usr/lib/modules-load.d/boardwalk.conf"
    install -D -m 0755 "$BW_REPO/systemd/boardwalk-usb-sticks" "$root/usr/lib/boardwalk/usb-sticks"
    # An older install's rule, which mounted every stick at plug-in.
    rm -f "$root/usr/lib/udev/rules.d/80-boardwalk-usb.rules"
    # The system disk's partitions by number (/dev/disk/boardwalk/partN, for fstab and RAUC's
    # slots), and no other disk (a stranger's stick holding a copy of the card) winning a
    # by-partuuid, by-label, by-uuid or by-partlabel link the system disk has too.
    install -D -m 0644 "$BW_REPO/systemd/61-boardwalk-system-disk.rules" "$root/usr/lib/udev/rules.d/61-boardwalk-system-disk.rules"
    install -D -m 0755 "$BW_REPO/systemd/boardwalk-system-disk" "$root/usr/lib/boardwalk/system-disk"
}

# bw_install_system ROOT: the units (bw_install_units), the kiosk's group allowed to ask
# RAUC for an update, the user made in the image, and a quiet console: no login prompt on
# tty1, no VTs spawned on demand, no boot status text.
bw_install_system() {
    local root=$1
    bw_install_units "$root"
    # "Update from USB": the kiosk's group may ask RAUC's service for an update.
    install -D -m 0644 "$BW_REPO/systemd/boardwalk-rauc.conf" "$root/usr/share/dbus-1/system.d/boardwalk-rauc.conf"
    # The user exists in the image itself (a read-only root can't get it at boot).
    systemd-sysusers --root="$root" "$root/usr/lib/sysusers.d/boardwalk.conf" >&2
    mkdir -p "$root/etc/systemd/system/multi-user.target.wants" "$root/var/lib/boardwalk" "$root/etc/boardwalk"
    ln -sf /usr/lib/systemd/system/boardwalk.service "$root/etc/systemd/system/multi-user.target.wants/boardwalk.service"
    # Debian's fallback gettys on tty2-6 (started when logind is absent): not on a kiosk.
    ln -sf /dev/null "$root/etc/systemd/system/getty-static.service"
    # No logind: a kiosk has no user sessions, and on a read-only root it cannot start (its
    # state directory is under /var/lib), so every `systemctl reboot` (the slot check's
    # rollback, an operator's) waited for two 25 s D-Bus activations of it before going to
    # systemd directly. Masked, the activation fails at once. A keyboard's power key then
    # does nothing, as a kiosk's passer-by should find.
    ln -sf /dev/null "$root/etc/systemd/system/systemd-logind.service"
    chown boardwalk:boardwalk "$root/var/lib/boardwalk" 2>/dev/null ||
        chown "$(awk -F: '$1=="boardwalk"{print $3":"$4}' "$root/etc/passwd")" "$root/var/lib/boardwalk"
    chmod 0700 "$root/var/lib/boardwalk"
    mkdir -p "$root/etc/systemd/logind.conf.d" "$root/etc/systemd/system.conf.d" "$root/etc/systemd/journald.conf.d"
    printf '[Login]\nNAutoVTs=0\nReserveVT=0\n' > "$root/etc/systemd/logind.conf.d/boardwalk.conf"
    # The hardware watchdog (bcm2835-wdt on a Pi, i6300esb on the x86 disk board) resets a
    # board whose system hangs: systemd stops feeding it. 15 s: the Pi's watchdog goes no
    # longer. A board without one: systemd finds no device and goes on.
    printf '[Manager]\nShowStatus=no\nRuntimeWatchdogSec=15s\n' > "$root/etc/systemd/system.conf.d/boardwalk.conf"
    bw_lockdown "$root"
    # What Debian starts at every boot that a kiosk never needs (boot time).
    for u in $(sed -e 's/#.*//' "$BW_REPO/systemd/image-masks"); do ln -sf /dev/null "$root/etc/systemd/system/$u"; done
    # Logs in RAM: the root is read-only and an SD card should not wear out on logs.
    printf '[Journal]\nStorage=volatile\nRuntimeMaxUse=16M\n' > "$root/etc/systemd/journald.conf.d/boardwalk.conf"
    echo boardwalk > "$root/etc/hostname"
}

# bw_exporter_port PROFILE: the node exporter's port the profile asks for ([metrics]
# exporter_port), or nothing when it asks for none. Fails on a value that is not a port.
bw_exporter_port() {
    local port
    port=$(bw_profile_get "$1" metrics exporter_port)
    case "$port" in ""|none|0) return 0 ;; esac
    [[ "$port" =~ ^[0-9]+$ ]] && [ "$port" -le 65535 ] || bw_die "$1: [metrics] exporter_port = $port is not a TCP port"
    echo "$port"
}

# bw_exporter_packages PROFILE: the packages the exporter needs, when the profile enables it
# (for bw_root_tar's list; nothing otherwise).
bw_exporter_packages() { [ -z "$(bw_exporter_port "$1")" ] || echo prometheus-node-exporter; }

# bw_enable_exporter ROOT PROFILE: with [metrics] exporter_port = N, Debian's node exporter
# runs at boot with its textfile collector on the kiosk's metrics directory ([metrics]
# textfile_dir; auto: /run/boardwalk-metrics, which tmpfiles makes and the unit lets the
# kiosk write), and the network comes up by DHCP (systemd-networkd) so the fleet can scrape
# it. The kiosk itself keeps PrivateNetwork=yes. Where it listens and who gets an address:
#  - exporter_interface = NAME: DHCP on that interface only (a stranger's USB network
#    adapter gets nothing), and the exporter listens only there (a socket bound to the
#    device, handed to the exporter: --web.systemd-socket);
#  - exporter_address = ADDRESS: the exporter listens on that address only (bound before the
#    address is there: FreeBind);
#  - neither: every wired interface (en*, eth*) by DHCP, the exporter on all addresses.
#  - exporter_password_file = FILE (on the build machine, lines USER:PASSWORD, never in the
#    image): HTTPS with basic auth (--web.config.file): the image holds the users' bcrypt
#    hashes and a TLS certificate and key made once per password file in the image cache
#    ($BW_CACHE/exporter-tls-HASH/cert.pem: give it to Prometheus as its CA file).
# Without exporter_port: nothing.
bw_enable_exporter() {
    local root=$1 profile=$2 port dir iface addr pwfile listen tls uid
    port=$(bw_exporter_port "$profile")
    [ -n "$port" ] || return 0
    [ -x "$root/usr/bin/prometheus-node-exporter" ] ||
        bw_die "exporter_port is set but the root lacks prometheus-node-exporter (bw_exporter_packages)"
    dir=$(bw_profile_get "$profile" metrics textfile_dir)
    case "$dir" in
        ""|auto) dir=/run/boardwalk-metrics ;;
        none) bw_die "$profile: exporter_port needs the kiosk's metrics ([metrics] textfile_dir is none)" ;;
        /*) ;;
        *) bw_die "$profile: [metrics] textfile_dir = $dir is not an absolute path" ;;
    esac
    iface=$(bw_profile_get "$profile" metrics exporter_interface)
    addr=$(bw_profile_get "$profile" metrics exporter_address)
    pwfile=$(bw_profile_get "$profile" metrics exporter_password_file)
    [ -z "$iface" ] || [[ "$iface" =~ ^[A-Za-z0-9_.-]{1,15}$ ]] || bw_die "$profile: [metrics] exporter_interface = $iface is not an interface name"
    [ -z "$addr" ] || [[ "$addr" =~ ^[0-9A-Fa-f.:]+$ ]] || bw_die "$profile: [metrics] exporter_address = $addr is not an IP address"
    mkdir -p "$root/etc/default" "$root/etc/systemd/system/multi-user.target.wants" \
        "$root/etc/systemd/system/sockets.target.wants" "$root/etc/systemd/network"
    local args="--collector.textfile.directory=$dir"
    if [ -n "$iface" ] || [ -n "$addr" ]; then
        # A socket of systemd's, handed to the exporter: BindToDevice= and FreeBind= are
        # what the exporter's own --web.listen-address cannot do.
        listen=$port
        case "$addr" in "") ;; *:*) listen="[$addr]:$port" ;; *) listen="$addr:$port" ;; esac
        {
            echo "# Boardwalk (images/lib.sh bw_enable_exporter): where the node exporter listens."
            echo "[Unit]"; echo "Description=Prometheus node exporter socket"
            echo "[Socket]"; echo "ListenStream=$listen"
            [ -z "$addr" ] || echo "FreeBind=yes"
            [ -z "$iface" ] || echo "BindToDevice=$iface"
            echo "[Install]"; echo "WantedBy=sockets.target"
        } > "$root/etc/systemd/system/prometheus-node-exporter.socket"
        ln -sf ../prometheus-node-exporter.socket \
            "$root/etc/systemd/system/sockets.target.wants/prometheus-node-exporter.socket"
        args="--web.systemd-socket $args"
    else
        args="--web.listen-address=:$port $args"
    fi
    if [ -n "$pwfile" ]; then
        case "$pwfile" in /*) ;; *) pwfile=$(dirname "$profile")/$pwfile ;; esac
        [ -r "$pwfile" ] || bw_die "$profile: [metrics] exporter_password_file $pwfile cannot be read"
        tls=$BW_CACHE/exporter-tls-$(bw_key "$pwfile")
        if [ ! -s "$tls/cert.pem" ]; then
            rm -rf "$tls.part"; mkdir -p "$tls.part"; chmod 0700 "$tls.part"
            openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500 \
                -subj "/CN=Boardwalk node exporter" -addext "subjectAltName=DNS:boardwalk" \
                -keyout "$tls.part/key.pem" -out "$tls.part/cert.pem" 2>/dev/null || bw_die "openssl could not make the exporter's certificate"
            rm -rf "$tls"; mv "$tls.part" "$tls"
        fi
        mkdir -p "$root/etc/prometheus-node-exporter"
        uid=$(awk -F: '$1=="prometheus"{print $3":"$4}' "$root/etc/passwd")
        [ -n "$uid" ] || bw_die "the root has no user prometheus (prometheus-node-exporter's)"
        install -m 0644 "$tls/cert.pem" "$root/etc/prometheus-node-exporter/tls.crt"
        install -m 0600 "$tls/key.pem" "$root/etc/prometheus-node-exporter/tls.key"
        chown "$uid" "$root/etc/prometheus-node-exporter/tls.key"
        # The users' bcrypt hashes (what the exporter's web config takes); the passwords
        # themselves never reach the image.
        python3 -W ignore - "$pwfile" > "$root/etc/prometheus-node-exporter/web.yml" <<'PY' || bw_die "could not hash $pwfile's passwords"
import crypt, sys
users = []
for line in open(sys.argv[1]):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    user, sep, password = line.partition(":")
    if not sep or not user or not password or not all(c.isalnum() or c in "_.-" for c in user):
        sys.exit("a line is not USER:PASSWORD")
    users.append((user, crypt.crypt(password, crypt.mksalt(crypt.METHOD_BLOWFISH))))
if not users:
    sys.exit("no USER:PASSWORD line")
print("# Boardwalk (images/lib.sh bw_enable_exporter): HTTPS and basic auth for the node exporter.")
print("tls_server_config:")
print("  cert_file: /etc/prometheus-node-exporter/tls.crt")
print("  key_file: /etc/prometheus-node-exporter/tls.key")
print("basic_auth_users:")
for user, hashed in users:
    print(f"  {user}: '{hashed}'")
PY
        chown "$uid" "$root/etc/prometheus-node-exporter/web.yml"; chmod 0600 "$root/etc/prometheus-node-exporter/web.yml"
        args="$args --web.config.file=/etc/prometheus-node-exporter/web.yml"
        bw_log "node exporter: HTTPS and basic auth ($(grep -c "^  [^ ]*: '" "$root/etc/prometheus-node-exporter/web.yml") users); its certificate: $tls/cert.pem"
    fi
    printf '# Boardwalk (images/lib.sh bw_enable_exporter): the kiosk'"'"'s metrics on port %s.\nARGS="%s"\n' \
        "$port" "$args" > "$root/etc/default/prometheus-node-exporter"
    ln -sf /lib/systemd/system/prometheus-node-exporter.service \
        "$root/etc/systemd/system/multi-user.target.wants/prometheus-node-exporter.service"
    if [ "$dir" != /run/boardwalk-metrics ]; then
        # Another directory: the kiosk may write there, and it exists at boot.
        mkdir -p "$root/etc/systemd/system/boardwalk.service.d" "$root/etc/tmpfiles.d"
        printf '[Service]\nReadWritePaths=-%s\n' "$dir" > "$root/etc/systemd/system/boardwalk.service.d/metrics.conf"
        printf 'd %s 0755 boardwalk boardwalk - -\n' "$dir" > "$root/etc/tmpfiles.d/boardwalk-metrics.conf"
    fi
    bw_enable_dhcp "$root" "$iface"
    bw_log "node exporter: port $port${addr:+ on $addr}${iface:+ on $iface only}, textfile collector on $dir, DHCP on ${iface:-every wired interface}"
}

# bw_enable_dhcp ROOT [INTERFACE]: systemd-networkd brings the network up by DHCP on the
# named interface only; without one, on every wired interface (Ethernet names: enX...,
# ethN), a USB adapter plugged in by anyone included.
bw_enable_dhcp() {
    local root=$1 iface=${2:-}
    mkdir -p "$root/etc/systemd/network" "$root/etc/systemd/system/multi-user.target.wants" \
        "$root/etc/systemd/system/sockets.target.wants"
    printf '[Match]\nName=%s\n\n[Network]\nDHCP=yes\n' "${iface:-en* eth*}" > "$root/etc/systemd/network/80-boardwalk-wired.network"
    ln -sf /lib/systemd/system/systemd-networkd.service "$root/etc/systemd/system/multi-user.target.wants/systemd-networkd.service"
    ln -sf /lib/systemd/system/systemd-networkd.socket "$root/etc/systemd/system/sockets.target.wants/systemd-networkd.socket"
}

# bw_lockdown_files ROOT: no key chord on a keyboard plugged into the kiosk reaches the
# system. Ctrl-Alt-Del 7 times in 2 s (CtrlAltDelBurstAction) does nothing, the SysRq keys
# (Alt-SysRq-K kills the VT's processes, -B reboots) are off, and logind ignores the power,
# reboot, suspend and hibernate keys. Drop-ins in /etc: the Debian package ships them as
# conffiles. The kiosk locks its own VT's keyboard itself (Display/VirtualTerminal.swift).
bw_lockdown_files() {
    local root=$1
    mkdir -p "$root/etc/systemd/system.conf.d" "$root/etc/systemd/logind.conf.d" "$root/etc/sysctl.d"
    printf '%s\n' '# Boardwalk kiosk lockdown: pressing Ctrl-Alt-Del 7 times in 2 s does nothing' \
        '# (a single press is ctrl-alt-del.target, which the kiosk masks).' \
        '[Manager]' 'CtrlAltDelBurstAction=none' > "$root/etc/systemd/system.conf.d/boardwalk-lockdown.conf"
    printf '%s\n' '# Boardwalk kiosk lockdown: a keyboard on a public kiosk cannot power it off,' \
        '# reboot it or put it to sleep.' \
        '[Login]' 'HandlePowerKey=ignore' 'HandlePowerKeyLongPress=ignore' 'HandleRebootKey=ignore' \
        'HandleRebootKeyLongPress=ignore' 'HandleSuspendKey=ignore' 'HandleSuspendKeyLongPress=ignore' \
        'HandleHibernateKey=ignore' 'HandleHibernateKeyLongPress=ignore' \
        > "$root/etc/systemd/logind.conf.d/boardwalk-lockdown.conf"
    printf '%s\n' '# Boardwalk kiosk lockdown: no SysRq keys on a public kiosk.' 'kernel.sysrq = 0' \
        > "$root/etc/sysctl.d/90-boardwalk.conf"
}

# bw_cmdline_add FILE PARAM=VALUE...: each parameter on a kernel command line file (a Pi's
# cmdline.txt: one line) unless the line has that parameter already; the file replaced whole.
bw_cmdline_add() {
    local file=$1 line p; shift
    line=$(head -n 1 "$file" | tr -d '\r')
    for p in "$@"; do
        case " $line " in *" ${p%%=*}="*) ;; *) line="$line $p" ;; esac
    done
    [ "$line" != "$(head -n 1 "$file" | tr -d '\r')" ] || return 0
    printf '%s\n' "$line" > "$file.boardwalk-new"
    sync "$file.boardwalk-new" 2>/dev/null || sync
    mv "$file.boardwalk-new" "$file"
    sync
}

# bw_lockdown_masks: the units a kiosk masks (systemd/lockdown-masks): the gettys on the
# kiosk's VT, Ctrl-Alt-Del's reboot and Alt-Up's kbrequest.target.
bw_lockdown_masks() { sed -e 's/#.*//' "$BW_REPO/systemd/lockdown-masks" | tr -s ' \t' '\n' | sed '/^$/d'; }

# bw_lockdown ROOT: the drop-ins and the masks (the Debian package masks in its postinst).
bw_lockdown() {
    local root=$1 u
    bw_lockdown_files "$root"
    mkdir -p "$root/etc/systemd/system"
    for u in $(bw_lockdown_masks); do ln -sf /dev/null "$root/etc/systemd/system/$u"; done
}

# bw_install_kiosk_files ROOT BINARY: the binary, its data, the board profiles, the default
# kiosk config and the helpers that set the PIN and pick a profile (/usr/libexec/boardwalk).
bw_install_kiosk_files() {
    local root=$1 bin=$2
    [ -x "$bin" ] || bw_die "no kiosk binary at $bin (make build)"
    install -D -m 0755 "$bin" "$root/usr/bin/boardwalk"
    if [ -d "$BW_REPO/data" ]; then
        mkdir -p "$root/usr/share/boardwalk"
        cp -a "$BW_REPO/data/." "$root/usr/share/boardwalk/"
    fi
    mkdir -p "$root/usr/share/boardwalk/boards"
    cp "$BW_REPO"/boards/*.conf "$BW_REPO"/boards/*.config.txt "$root/usr/share/boardwalk/boards/"
    install -D -m 0644 "$BW_IMAGES/boardwalk.conf" "$root/usr/share/boardwalk/boardwalk.conf"
    install -D -m 0755 "$BW_REPO/scripts/boardwalk-set-pin" "$root/usr/libexec/boardwalk/set-pin"
    install -D -m 0755 "$BW_REPO/scripts/boardwalk-board-profile" "$root/usr/libexec/boardwalk/board-profile"
}

# bw_install_kiosk ROOT BINARY PROFILE: the kiosk's files, the board profile and the default
# kiosk config (kept when there is one).
bw_install_kiosk() {
    local root=$1 bin=$2 profile=$3
    bw_install_kiosk_files "$root" "$bin"
    install -D -m 0644 "$profile" "$root/etc/boardwalk/board.conf"
    [ -f "$root/etc/boardwalk/boardwalk.conf" ] ||
        install -D -m 0644 "$BW_IMAGES/boardwalk.conf" "$root/etc/boardwalk/boardwalk.conf"
}

# bw_lib_names ROOT: the shared-library file names a root provides, one a line.
bw_lib_names() { find "$1/usr/lib" "$1/lib" -name '*.so*' -printf '%f\n' 2>/dev/null | sort -u; }

# bw_check_libs BINARY LIBNAMES_FILE: fails when the binary needs a library the root lacks.
bw_check_libs() {
    local lib missing=""
    for lib in $(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        grep -qxF "$lib" "$2" || missing="$missing $lib"
    done
    [ -z "$missing" ] || bw_die "the root lacks libraries the binary needs:$missing (add their packages to images/packages.txt)"
}

# bw_cmdline PROFILE: the kernel command line the profile asks for, and what every image's
# has whatever the profile says: a kernel that panics restarts the board after 10 s (an
# update's trial boot then falls back to the old slot: GRUB's try flag, the Pi's tryboot)
# instead of showing the panic until someone pulls the plug; no SysRq keys from the first
# moment (sysctl.d comes only once systemd runs). A profile's own panic= or
# sysctl.kernel.sysrq= stays.
bw_cmdline() {
    local line
    line=$(bw_profile_get "$1" boot cmdline)
    case " $line " in *" panic="*) ;; *) line="$line panic=10" ;; esac
    case " $line " in *" sysctl.kernel.sysrq="*) ;; *) line="$line sysctl.kernel.sysrq=0" ;; esac
    echo "${line# }"
}

# bw_set_pin STATE_DIR [PIN]: the operator PIN, as a salted hash in STATE_DIR/operator-pin
# (pbkdf2-sha256$ITERATIONS$SALT$HASH; Arcade/operator/OperatorPINFile.swift reads it): the state
# partition's, so a root file system and its bundles carry no PIN and an update never
# changes it. Without a PIN a random 6-digit one is made and printed once; a weak one
# (1234, 0000...) is a warning.
bw_set_pin() {
    mkdir -p "$1"
    BW_PIN="${2:-}" python3 "$BW_REPO/scripts/boardwalk-set-pin" "$1"
}

# bw_set_pin_conf ROOT [PIN]: the PIN's older place, [kiosk] operator_pin in ROOT's
# boardwalk.conf, made readable to the kiosk's group only; the kiosk uses it while the state
# partition has no operator-pin (installs from before that file; the virtual board's image).
bw_set_pin_conf() {
    local root=$1 pin=${2:-} conf gid
    conf=$root/etc/boardwalk/boardwalk.conf
    mkdir -p "$(dirname "$conf")"
    [ -f "$conf" ] || : > "$conf"
    BW_PIN="$pin" python3 "$BW_REPO/scripts/boardwalk-set-pin" "$conf"
    gid=$(awk -F: '$1=="boardwalk"{print $3}' "$root/etc/group" 2>/dev/null || true)
    if [ -n "$gid" ]; then chown "0:$gid" "$conf"; chmod 0640 "$conf"; fi
}
