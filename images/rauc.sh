# images/rauc.sh: A/B system updates with RAUC (Debian's `rauc` package), shared by the
# image recipes (the x86 virtual board's disk, the Pi cards). Source it after lib.sh.
#
#   bw_image_version                 the version an image is built as (git describe, or
#                                    $BOARDWALK_IMAGE_VERSION)
#   bw_os_release ROOT VERSION       IMAGE_ID=boardwalk and IMAGE_VERSION in ROOT's os-release
#   bw_rauc_keys                     the signing key, certificate and keyring (prints the dir)
#   bw_rauc_install ROOT BOOTLOADER COMPATIBLE DEVICE_A DEVICE_B
#                                    RAUC's system.conf, keyring, D-Bus service and the
#                                    slot check, installed into ROOT
#   bw_rauc_bundle ROOTFS_IMAGE VERSION COMPATIBLE OUT.raucb
#                                    a signed bundle of one root file system image
#
# The root must hold images/packages-rauc.txt (rauc, dbus; grub-common for grub-editenv on
# GRUB boards). The host needs rauc and squashfs-tools (scripts/install-deps.sh test).

BW_RAUC_KEYDIR=${BOARDWALK_RAUC_KEYDIR:-$BW_CACHE/rauc-dev-keyring}

# bw_image_version: what this build is called: $BOARDWALK_IMAGE_VERSION, else `git describe`
# of the repo (a commit id when there is no tag; "-dirty" with uncommitted changes).
bw_image_version() {
    if [ -n "${BOARDWALK_IMAGE_VERSION:-}" ]; then echo "$BOARDWALK_IMAGE_VERSION"; return; fi
    git -C "$BW_REPO" describe --always --tags --dirty 2>/dev/null || echo unknown
}

# bw_deb_version: the Debian package's version (make deb), made from bw_image_version so
# both name one build: a tag (2026.12.1, v2026.12.1) as it is, commits after a tag as
# TAG+N.gHASH, no tag as 0~gitN.gHASH (N: commits, so a later commit sorts higher);
# "+dirty" for uncommitted changes. $BOARDWALK_DEB_VERSION overrides it.
bw_deb_version() {
    if [ -n "${BOARDWALK_DEB_VERSION:-}" ]; then echo "$BOARDWALK_DEB_VERSION"; return; fi
    local v dirty="" n
    v=$(bw_image_version)
    case "$v" in *-dirty) v=${v%-dirty}; dirty=+dirty ;; esac
    v=${v#v}
    case "$v" in
        [0-9]*-*-g*) n=${v%-g*}; echo "${n%-*}+${n##*-}.g${v##*-g}$dirty" ;;
        [0-9]*[!0-9a-f]*|[0-9]*.*) echo "$v$dirty" ;;
        *) n=$(git -C "$BW_REPO" rev-list --count HEAD 2>/dev/null || echo 0)
           echo "0~git$n.g$v$dirty" ;;
    esac
}

# bw_os_release ROOT VERSION: the image's name and version in os-release (IMAGE_ID,
# IMAGE_VERSION: os-release(5)'s fields for an image), read by the kiosk and by people.
# /etc/os-release is Debian's link to /usr/lib/os-release; the file itself is rewritten.
bw_os_release() {
    local root=$1 version=$2 f
    case "$version" in *[!A-Za-z0-9._~+-]*|'') bw_die "image version '$version': only letters, digits and ._~+-" ;; esac
    f=$root/usr/lib/os-release
    [ -f "$f" ] || f=$root/etc/os-release
    [ -f "$f" ] || bw_die "$root has no os-release"
    { grep -v -e '^IMAGE_ID=' -e '^IMAGE_VERSION=' "$f"; echo "IMAGE_ID=boardwalk"; echo "IMAGE_VERSION=$version"; } > "$f.new"
    rm -f "$f"; mv "$f.new" "$f"; chmod 0644 "$f"
}

# bw_rauc_keys: the signing key, certificate and keyring (prints their directory).
# A product points BOARDWALK_RAUC_KEYDIR at a directory holding its own key.pem, cert.pem and
# keyring.pem (kept offline). Without it: a DEVELOPMENT key, its self-signed certificate and
# a keyring holding that certificate, made once with openssl in the image cache (never in
# git) and reused, so every development image accepts every development bundle; anyone with
# this cache can sign bundles those images install. It is used only when the build asks for
# it (BOARDWALK_RAUC_DEV_KEYS=1: the virtual boards, test cards), and its certificate is
# refused without that switch even when BOARDWALK_RAUC_KEYDIR holds a copy.
# The development certificate is valid from 2000-01-01: a board without a clock (a Pi boots
# in 1970; systemd lifts the clock only to its own build date) must not find it "not yet
# valid". system.conf also checks certificates at the bundle's signing time (bw_rauc_install).
BW_RAUC_DEV_SUBJECT="/O=Boardwalk development/CN=Boardwalk development bundles (not for products)"
bw_rauc_keys() {
    local d=$BW_RAUC_KEYDIR
    if [ -n "${BOARDWALK_RAUC_KEYDIR:-}" ]; then
        [ -s "$d/key.pem" ] && [ -s "$d/cert.pem" ] && [ -s "$d/keyring.pem" ] ||
            bw_die "BOARDWALK_RAUC_KEYDIR=$d lacks key.pem, cert.pem or keyring.pem"
        if [ "${BOARDWALK_RAUC_DEV_KEYS:-0}" != 1 ] &&
           openssl x509 -in "$d/cert.pem" -noout -subject 2>/dev/null | grep -q "Boardwalk development"; then
            bw_die "BOARDWALK_RAUC_KEYDIR=$d holds Boardwalk's development certificate; a product signs with its own (BOARDWALK_RAUC_DEV_KEYS=1 for a test build)"
        fi
        echo "$d"; return
    fi
    [ "${BOARDWALK_RAUC_DEV_KEYS:-0}" = 1 ] ||
        bw_die "no signing key: BOARDWALK_RAUC_KEYDIR names the product's (key.pem, cert.pem, keyring.pem); BOARDWALK_RAUC_DEV_KEYS=1 takes the development key (test builds only)"
    # A certificate from an older recipe (valid only from the day it was made) is made again.
    if [ -s "$d/key.pem" ] && [ -s "$d/keyring.pem" ] &&
       openssl x509 -in "$d/cert.pem" -noout -startdate 2>/dev/null | grep -q 'notBefore=Jan  1 00:00:00 2000 GMT'; then
        echo "$d"; return
    fi
    command -v openssl >/dev/null || bw_die "openssl is missing"
    bw_log "rauc: a new development key and keyring in $d"
    local ca=$d.part/ca
    rm -rf "$d.part"; mkdir -p "$ca"; chmod 0700 "$d.part"
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out "$d.part/key.pem" 2>/dev/null
    openssl req -new -key "$d.part/key.pem" -subj "$BW_RAUC_DEV_SUBJECT" -out "$ca/req.pem"
    # `openssl ca -selfsign` takes a start date (bookworm's openssl 3.0 `req -x509` does not).
    # No extendedKeyUsage: RAUC's default purpose check then accepts the certificate.
    : > "$ca/index.txt"
    openssl rand -hex 16 > "$ca/serial"
    printf '%s\n' "[ca]" "default_ca = dev" "[dev]" "database = $ca/index.txt" "new_certs_dir = $ca" \
        "serial = $ca/serial" "default_md = sha256" "policy = any" "x509_extensions = ext" \
        "[any]" "organizationName = supplied" "commonName = supplied" \
        "[ext]" "basicConstraints = critical,CA:TRUE" "keyUsage = critical,digitalSignature,keyCertSign" \
        "subjectKeyIdentifier = hash" "authorityKeyIdentifier = keyid" > "$ca/ca.cnf"
    openssl ca -batch -notext -selfsign -config "$ca/ca.cnf" -keyfile "$d.part/key.pem" \
        -startdate 20000101000000Z -enddate 20991231235959Z -in "$ca/req.pem" \
        -out "$d.part/cert.pem" 2>/dev/null || bw_die "openssl could not make the development certificate"
    rm -rf "$ca"
    cp "$d.part/cert.pem" "$d.part/keyring.pem"
    printf '%s\n' "Boardwalk's DEVELOPMENT RAUC keyring, made by images/rauc.sh (bw_rauc_keys) at build time." \
        "Images built with it accept bundles signed with key.pem. For the virtual boards and test" \
        "cards only (BOARDWALK_RAUC_DEV_KEYS=1); a product uses its own key (BOARDWALK_RAUC_KEYDIR)," \
        "kept offline." > "$d.part/README"
    rm -rf "$d"; mv "$d.part" "$d"
    echo "$d"
}

# bw_rauc_install ROOT BOOTLOADER COMPATIBLE DEVICE_A DEVICE_B: RAUC in an image root.
#  - /etc/rauc/system.conf: two ext4 root slots (rootfs.0 = bootname A on DEVICE_A, rootfs.1
#    = B on DEVICE_B), the bootloader backend, bundles mounted under /run (the root is
#    read-only);
#  - /etc/rauc/keyring.pem (bw_rauc_keys');
#  - rauc.service and its D-Bus name (Debian's package ships only the program; `rauc
#    install` and `rauc status mark-good` talk to the service over the system bus);
#  - boardwalk-slot-check.service, enabled, and /etc/boardwalk/slot-check.conf.
# BOOTLOADER grub: the environment is $BW_RAUC_GRUBENV (default /boot/efi/EFI/BOOT/grubenv,
# the EFI system partition mounted there). custom: $BW_RAUC_CUSTOM_BACKEND is the backend
# program (the Pi's tryboot). RAUC's status and the slot check's record go to
# $BW_RAUC_DATA_DIR (default: the grubenv's partition, /boot/efi/boardwalk; else
# /boot/firmware/boardwalk), a writable place that updates do not replace.
# $BW_RAUC_SYSTEM_EXTRA: more lines for [system]. $BW_SLOT_CHECK_LIMIT: the seconds a trial
# boot has to reach READY (default 300), $BW_SLOT_CHECK_STARTS the kiosk starts (default 3).
bw_rauc_install() {
    local root=$1 bootloader=$2 compatible=$3 dev_a=$4 dev_b=$5
    local keys datadir conf=$root/etc/rauc/system.conf
    keys=$(bw_rauc_keys)
    case "$bootloader" in
        grub) datadir=${BW_RAUC_DATA_DIR:-/boot/efi/boardwalk} ;;
        custom) [ -n "${BW_RAUC_CUSTOM_BACKEND:-}" ] || bw_die "bootloader custom needs BW_RAUC_CUSTOM_BACKEND"
            datadir=${BW_RAUC_DATA_DIR:-/boot/firmware/boardwalk} ;;
        *) bw_die "bw_rauc_install: bootloader grub or custom, not '$bootloader'" ;;
    esac
    [ -x "$root/usr/bin/rauc" ] || bw_die "$root has no /usr/bin/rauc (images/packages-rauc.txt)"
    mkdir -p "$root/etc/rauc"
    {
        echo "# Boardwalk's A/B update slots (images/rauc.sh). RAUC: https://rauc.readthedocs.io/"
        echo "[system]"
        echo "compatible=$compatible"
        echo "bootloader=$bootloader"
        [ "$bootloader" != grub ] || echo "grubenv=${BW_RAUC_GRUBENV:-/boot/efi/EFI/BOOT/grubenv}"
        echo "# The root is read-only: bundles and slots are mounted in RAM."
        echo "mountprefix=/run/rauc"
        echo "data-directory=$datadir/rauc"
        echo "# verity bundles only (checked block by block as they are read)."
        echo "bundle-formats=-plain"
        [ -z "${BW_RAUC_SYSTEM_EXTRA:-}" ] || printf '%s\n' "$BW_RAUC_SYSTEM_EXTRA"
        if [ "$bootloader" = custom ]; then
            echo; echo "[handlers]"; echo "bootloader-custom-backend=$BW_RAUC_CUSTOM_BACKEND"
        fi
        echo
        echo "[keyring]"
        echo "path=/etc/rauc/keyring.pem"
        echo "# A board without a clock (a Pi) may think it is 1970: certificates are checked at"
        echo "# the time the bundle was signed, not at the board's."
        echo "use-bundle-signing-time=true"
        echo
        echo "[slot.rootfs.0]"; echo "device=$dev_a"; echo "type=ext4"; echo "bootname=A"
        echo
        echo "[slot.rootfs.1]"; echo "device=$dev_b"; echo "type=ext4"; echo "bootname=B"
    } > "$conf"
    install -m 0644 "$keys/keyring.pem" "$root/etc/rauc/keyring.pem"
    # The service, started on demand by D-Bus (or by the slot check's first call).
    cat > "$root/usr/lib/systemd/system/rauc.service" <<'EOF'
# RAUC's update service (images/rauc.sh; Debian's rauc package ships only the program).
[Unit]
Description=RAUC update service
Documentation=https://rauc.readthedocs.io/
After=dbus.service

[Service]
Type=dbus
BusName=de.pengutronix.rauc
ExecStart=/usr/bin/rauc service
# Updates are background work: the kiosk keeps its frame rate while a slot is written.
Nice=10
IOSchedulingClass=idle
EOF
    mkdir -p "$root/usr/share/dbus-1/system-services" "$root/usr/share/dbus-1/system.d"
    cat > "$root/usr/share/dbus-1/system-services/de.pengutronix.rauc.service" <<'EOF'
[D-BUS Service]
Name=de.pengutronix.rauc
Exec=/usr/bin/rauc service
User=root
SystemdService=rauc.service
EOF
    # Only root owns and calls the update service.
    cat > "$root/usr/share/dbus-1/system.d/de.pengutronix.rauc.conf" <<'EOF'
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <policy user="root">
    <allow own="de.pengutronix.rauc"/>
    <allow send_destination="de.pengutronix.rauc"/>
  </policy>
  <policy context="default">
    <deny send_destination="de.pengutronix.rauc"/>
  </policy>
</busconfig>
EOF
    # The slot check: marks the booted slot good once the kiosk is READY, or bad on a trial
    # boot that never gets there (and reboots into the other slot).
    install -D -m 0755 "$BW_REPO/systemd/boardwalk-slot-check" "$root/usr/lib/boardwalk/slot-check"
    install -D -m 0644 "$BW_REPO/systemd/boardwalk-slot-check.service" \
        "$root/usr/lib/systemd/system/boardwalk-slot-check.service"
    mkdir -p "$root/etc/systemd/system/multi-user.target.wants" "$root/etc/boardwalk"
    ln -sf /usr/lib/systemd/system/boardwalk-slot-check.service \
        "$root/etc/systemd/system/multi-user.target.wants/boardwalk-slot-check.service"
    printf '# The slot check (images/rauc.sh): where its record lives, and how long a trial\n# boot may take to bring the kiosk to READY (seconds) and how many kiosk starts.\nRECORD_DIR=%s\nTRIAL_LIMIT=%s\nTRIAL_STARTS=%s\n' \
        "$datadir" "${BW_SLOT_CHECK_LIMIT:-300}" "${BW_SLOT_CHECK_STARTS:-3}" > "$root/etc/boardwalk/slot-check.conf"
}

# Every bundle's squashfs: zstd. The board decompresses it while writing the slot, and zstd
# costs little CPU there (a Pi, or an emulated x86); lz4 costs less, but goosebit, the
# fleet's server, cannot read an lz4 bundle's manifest (its squashfs reader takes lz4 blocks
# for lz4 frames) and refuses the upload.
BW_RAUC_MKSQUASHFS_ARGS="-comp zstd"

# bw_rauc_bundle ROOTFS_IMAGE VERSION COMPATIBLE OUT.raucb: a verity bundle holding the ext4
# image for the rootfs slot, signed with bw_rauc_keys' key (and checked against its keyring).
bw_rauc_bundle() {
    local img=$1 version=$2 compatible=$3 out=$4 keys dir
    [ -s "$img" ] || bw_die "no root image at $img"
    command -v rauc >/dev/null || bw_die "rauc is missing (scripts/install-deps.sh test)"
    command -v mksquashfs >/dev/null || bw_die "mksquashfs is missing (squashfs-tools)"
    keys=$(bw_rauc_keys)
    dir=$(mktemp -d "${TMPDIR:-/tmp}/bw-bundle.XXXXXX")
    # A hard link when on one file system (no copy of hundreds of MB), else a sparse copy.
    ln "$img" "$dir/rootfs.ext4" 2>/dev/null || cp --sparse=always "$img" "$dir/rootfs.ext4"
    cat > "$dir/manifest.raucm" <<EOF
[update]
compatible=$compatible
version=$version
description=Boardwalk $version
build=$(date -u +%Y%m%d%H%M%S)

[bundle]
format=verity

[image.rootfs]
filename=rootfs.ext4
EOF
    local part=${out%.raucb}.part.raucb
    rm -f "$out" "$part"
    rauc bundle --cert="$keys/cert.pem" --key="$keys/key.pem" --keyring="$keys/keyring.pem" \
        --mksquashfs-args="$BW_RAUC_MKSQUASHFS_ARGS" "$dir" "$part" >&2 || { rm -rf "$dir"; bw_die "rauc bundle failed"; }
    rm -rf "$dir"
    mv "$part" "$out"
    bw_log "rauc: bundle $out ($version, $(du -m "$out" | cut -f1) MB)"
}
