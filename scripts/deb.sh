#!/usr/bin/env bash
# Boardwalk's Debian packages, built and tested the way Debian builds and tests packages.
#
#   scripts/deb.sh all AMD64_BIN ARM64_BIN OUTDIR   both packages, then lint (make deb)
#   scripts/deb.sh test-all OUTDIR [ARCH...]  each package's test (or ARCHes'), upgrading from its
#                                             VERSION~prev (by file and from out/deb/apt-repo),
#                                             and its stock board (make deb-test)
#   scripts/deb.sh build ARCH BINARY OUTDIR   boardwalk_VERSION_ARCH.deb from debian/ with
#                                             dpkg-buildpackage in a Debian 13 amd64 root
#                                             (arm64: a cross build with trixie's arm64
#                                             libraries beside, so dpkg-shlibdeps names
#                                             trixie's packages for each architecture)
#   scripts/deb.sh lint DEB...                trixie's lintian: fails on an error or a warning
#                                             (the accepted ones: debian/boardwalk.lintian-overrides)
#   scripts/deb.sh apt-repo OUTDIR DEB...     a signed apt repository of DEBs (reprepro; the
#                                             key: $BOARDWALK_APT_GNUPGHOME, else a development
#                                             key in the cache) (make apt-repo)
#   scripts/deb.sh stock-board DEB WORKDIR [REPO]  a stock Debian 13 system of DEB's
#                                             architecture with only DEB installed (apt), as a
#                                             disk, kernel and initrd for the virtual board;
#                                             with REPO, that repository its apt source
#   scripts/deb.sh package-test OUTDIR ARCH   ARCH's package's test (below) in OUTDIR, upgrading
#                                             from its VERSION~prev by file and from OUTDIR/apt-repo
#   scripts/deb.sh stock-test OUTDIR ARCH     ARCH's VERSION~prev on a stock board, booted
#                                             (test_stock_board.py), upgraded with apt from
#                                             OUTDIR/apt-repo over HTTP
#   scripts/deb.sh test ARCH NEW.deb OLD.deb [REPO]  images/deb/test_deb.py in a fresh
#                                             Debian 13 root of ARCH (arm64 under qemu-user):
#                                             apt install, upgrade from OLD, remove, purge,
#                                             nothing left; with REPO, OLD upgraded to NEW
#                                             from that signed apt repository
#
# The roots are made by mmdebstrap and cached under /var/cache/boardwalk/deb
# ($BOARDWALK_DEB_CACHE), keyed by suite, architecture and package list
# (images/deb/*-packages.txt). Needs root (chroot) and scripts/install-deps.sh arm64 (the
# arm64 test root runs under qemu-user).
set -euo pipefail
export BOARDWALK_IMAGE_CACHE=${BOARDWALK_DEB_CACHE:-/var/cache/boardwalk/deb}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../images/lib.sh"
source "$HERE/../images/rauc.sh"
DEB=$BW_REPO/images/deb
SUITE=trixie
log() { echo "[deb] $*" >&2; }
die() { echo "[deb] error: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (chroot); run with sudo"

# in_root ROOT CMD...: CMD in ROOT with /proc, /sys and /dev, in a private mount namespace
# (the mounts go with it, even on failure).
in_root() {
    local root=$1; shift
    unshare -m --propagation private sh -ec '
        root=$1; shift
        for d in proc sys dev; do mount --rbind "/$d" "$root/$d"; done
        exec chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
            DEBIAN_FRONTEND=noninteractive "$@"
    ' in_root "$root" "$@"
}

# build_root: the amd64 trixie root that builds and lints both packages, with arm64 as a
# second dpkg architecture (multiarch) holding the arm64 libraries. Cached, keyed by the
# package lists; prints its path.
build_root() {
    local tools libs key out
    tools=$(bw_list "$DEB/build-packages.txt")
    libs=$(bw_list "$DEB/lib-packages.txt")
    key=$(bw_key "$SUITE" "$tools" "$libs" "deb-build-root-v1")
    out=$BW_CACHE/buildroot-$SUITE-$key
    if [ -f "$out/.complete" ]; then echo "$out"; return; fi
    log "build root: mmdebstrap $SUITE amd64+arm64 ($tools; $libs for both)"
    rm -rf "$out.part"
    mmdebstrap --variant=apt --architectures=amd64,arm64 \
        --include="$tools,$libs,$(echo "$libs" | sed 's/\([^,]*\)/\1:arm64/g')" \
        --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
        --aptopt='APT::Install-Recommends "false"' \
        "$SUITE" "$out.part" "deb http://deb.debian.org/debian $SUITE main" >&2
    touch "$out.part/.complete"
    rm -rf "$out"; mv "$out.part" "$out"
    find "$BW_CACHE" -maxdepth 1 -name "buildroot-$SUITE-*" ! -name "$(basename "$out")" -exec rm -rf {} +
    echo "$out"
}

cmd_build() {
    local arch=$1 bin=$2 outdir=$3 root version src
    [ -x "$bin" ] || die "no kiosk binary at $bin"
    case "$arch:$(readelf -h "$bin" | sed -n 's/.*Machine: *//p')" in
        amd64:*X86-64*|arm64:*AArch64*) ;;
        *) die "$bin is not an $arch binary" ;;
    esac
    root=$(build_root)
    version=$(bw_deb_version)
    log "boardwalk $version $arch from $bin"
    src=$root/build/boardwalk
    rm -rf "$root/build"; mkdir -p "$src"
    # What debian/rules installs: the packaging, the install functions and what they copy.
    (cd "$BW_REPO" && tar -cf - debian images/lib.sh images/boardwalk.conf systemd data boards \
        scripts/boardwalk-set-pin scripts/boardwalk-board-profile README.md docs/*.md boards/README.md) | tar -xf - -C "$src"
    install -m 0755 "$bin" "$root/build/boardwalk.bin"
    # The version is the project's (bw_deb_version); the changelog is written for this build.
    {
        echo "boardwalk ($version) unstable; urgency=medium"
        echo
        echo "  * Built from $(git -C "$BW_REPO" describe --always --tags --dirty 2>/dev/null || echo 'a tree outside git')."
        echo
        echo " -- $(sed -n 's/^Maintainer: //p' "$BW_REPO/debian/control")  $(date -R -d "@${SOURCE_DATE_EPOCH:-$(git -C "$BW_REPO" log -1 --format=%ct 2>/dev/null || date +%s)}")"
    } > "$src/debian/changelog"
    # -d: the root has the Build-Depends (debhelper) but not build-essential: nothing here is
    # compiled. -a: the package's architecture (arm64 is a cross build: aarch64 strip,
    # dpkg-shlibdeps on the arm64 libraries).
    in_root "$root" sh -ec 'cd /build/boardwalk && BOARDWALK_BINARY=/build/boardwalk.bin dpkg-buildpackage -b -us -uc -d -a"$1"' build "$arch" >&2
    mkdir -p "$outdir"
    cp "$root/build/boardwalk_${version}_$arch.deb" "$outdir/"
    rm -rf "$root/build"
    log "built $outdir/boardwalk_${version}_$arch.deb ($(du -k "$outdir/boardwalk_${version}_$arch.deb" | cut -f1) KiB)"
}

cmd_lint() {
    local root d
    root=$(build_root)
    rm -rf "$root/lint"; mkdir -p "$root/lint"
    for d in "$@"; do cp "$d" "$root/lint/"; done
    # A warning fails too: each is fixed or overridden with its reason (debian/boardwalk.lintian-overrides).
    in_root "$root" sh -ec 'cd /lint && lintian --fail-on error,warning --display-info --show-overrides *.deb'
    rm -rf "$root/lint"
}

# test_root ARCH: a fresh Debian 13 root's tar (mmdebstrap minbase with systemd), cached.
test_root() {
    local arch=$1 pkgs key out
    pkgs=$(bw_list "$DEB/test-packages.txt")
    key=$(bw_key "$SUITE" "$arch" "$pkgs" "deb-test-root-v1")
    out=$BW_CACHE/testroot-$SUITE-$arch-$key.tar
    if [ -s "$out" ]; then touch "$out"; echo "$out"; return; fi
    bw_foreign_arch "$arch"
    log "test root: mmdebstrap $SUITE $arch ($pkgs)"
    mmdebstrap --variant=minbase --architecture="$arch" --include="$pkgs" \
        "$SUITE" "$out.part.tar" "deb http://deb.debian.org/debian $SUITE main" >&2
    mv "$out.part.tar" "$out"
    find "$BW_CACHE" -maxdepth 1 -name "testroot-$SUITE-$arch-*.tar" ! -name "$(basename "$out")" -delete
    echo "$out"
}

# stock_root ARCH: a stock Debian 13 system's tar (images/deb/stock-packages.txt: systemd,
# udev, Debian's kernel and initramfs; arm64's made under qemu-user), cached.
stock_root() {
    local arch=$1 pkgs key out
    pkgs=$(bw_list "$DEB/stock-packages.txt")
    pkgs=${pkgs//@ARCH@/$arch}
    key=$(bw_key "$SUITE" "$arch" "$pkgs" "deb-stock-root-v1")
    out=$BW_CACHE/stockroot-$SUITE-$arch-$key.tar
    if [ -s "$out" ]; then touch "$out"; echo "$out"; return; fi
    bw_foreign_arch "$arch"
    log "stock root: mmdebstrap $SUITE $arch ($pkgs)"
    mmdebstrap --variant=minbase --architecture="$arch" --include="$pkgs" \
        --aptopt='APT::Install-Recommends "false"' \
        "$SUITE" "$out.part.tar" "deb http://deb.debian.org/debian $SUITE main" >&2
    mv "$out.part.tar" "$out"
    find "$BW_CACHE" -maxdepth 1 -name "stockroot-$SUITE-$arch-*.tar" ! -name "$(basename "$out")" -delete
    echo "$out"
}

# cmd_stock_board DEB WORKDIR [REPO]: the stock system of DEB's architecture, then
# `apt install ./DEB` in it (the PIN preseeded from $BOARDWALK_STOCK_PIN), as someone with
# a Debian 13 PC or a Pi would; then its root file system as a raw ext4 disk (mke2fs -d:
# no loop devices) and its own kernel and initramfs, booted on the virtual board by
# images/deb/test_stock_board.py. With REPO (an apt-repo directory), the board is one a
# venue runs: the network on DHCP (systemd-networkd), the repository served from this
# machine (QEMU's user network: 10.0.2.2 is the host) as its only apt source, signed-by
# its key, a root password for the serial console ($BOARDWALK_STOCK_ROOT_PASSWORD), and
# coins and a score in the kiosk's state; the repository's URL goes to WORKDIR/repo-url.
cmd_stock_board() {
    local deb=$1 work=$2 repo=${3:-} arch tar root cache port
    arch=$(dpkg-deb -f "$deb" Architecture)
    tar=$(stock_root "$arch")
    rm -rf "$work"; mkdir -p "$work/root"
    root=$work/root
    tar -xf "$tar" -C "$root"
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    echo "/dev/vda / ext4 rw,errors=remount-ro 0 1" > "$root/etc/fstab"
    echo cabinet > "$root/etc/hostname"
    mkdir -p "$root/debs"; cp "$deb" "$root/debs/"
    cache=$BW_CACHE/test-apt-$SUITE-$arch
    mkdir -p "$cache/lists/partial" "$cache/archives/partial"
    unshare -m --propagation private sh -ec '
        root=$1 cache=$2 deb=$3 pin=$4
        for d in proc sys dev; do mount --rbind "/$d" "$root/$d"; done
        mount --bind "$cache/lists" "$root/var/lib/apt/lists"
        mount --bind "$cache/archives" "$root/var/cache/apt/archives"
        chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
            DEBIAN_FRONTEND=noninteractive sh -ec "
                apt-get update -qq
                echo \"boardwalk boardwalk/operator-pin password $pin\" | debconf-set-selections
                apt-get install -y --no-install-recommends /debs/$(basename "$deb")"
    ' stock "$root" "$cache" "$deb" "${BOARDWALK_STOCK_PIN:-480721}" >&2
    rm -rf "$root/debs" "$root/etc/resolv.conf"
    if [ -n "$repo" ]; then
        # The host's port for the repository, fixed in the board's sources.list.
        port=${BOARDWALK_STOCK_REPO_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
        echo "http://10.0.2.2:$port/" > "$work/repo-url"
        rm -f "$root/etc/apt/sources.list" "$root"/etc/apt/sources.list.d/*
        install -m 0644 "$repo/boardwalk-archive-keyring.gpg" "$root/usr/share/keyrings/"
        echo "deb [signed-by=/usr/share/keyrings/boardwalk-archive-keyring.gpg] http://10.0.2.2:$port/ $SUITE main" \
            > "$root/etc/apt/sources.list.d/boardwalk.list"
        printf '[Match]\nName=en*\n\n[Network]\nDHCP=yes\n' > "$root/etc/systemd/network/20-wired.network"
        ln -sf /usr/lib/systemd/system/systemd-networkd.service "$root/etc/systemd/system/multi-user.target.wants/"
        echo "root:${BOARDWALK_STOCK_ROOT_PASSWORD:-boardwalk-stock}" | chroot "$root" chpasswd
        in_root "$root" setpriv --reuid=boardwalk --regid=boardwalk --init-groups sh -ec \
            "printf 'coins=7\\ncredits.balance=3\\n' > /var/lib/boardwalk/counters; printf '2048.best.5x5=1234\\n' > /var/lib/boardwalk/scores"
    fi
    cp -L "$root/vmlinuz" "$work/vmlinuz" 2>/dev/null || cp "$root"/boot/vmlinuz-* "$work/vmlinuz"
    cp -L "$root/initrd.img" "$work/initrd" 2>/dev/null || cp "$root"/boot/initrd.img-* "$work/initrd"
    mke2fs -q -t ext4 -L root -d "$root" "$work/disk.img" "$(( $(du -sm "$root" | cut -f1) + 512 ))M"
    rm -rf "$root"
    log "stock board ($arch): $work/disk.img, $work/vmlinuz, $work/initrd"
}

# apt_key: the GnuPG home whose secret key signs the apt repository. $BOARDWALK_APT_GNUPGHOME
# names the operator's (its default secret key signs); else a DEVELOPMENT key is made once
# in the cache (never in git), for tests: anyone with this cache can sign for the boards
# that trust it. Prints the directory.
apt_key() {
    local d=${BOARDWALK_APT_GNUPGHOME:-$BW_CACHE/apt-dev-gnupg}
    if [ -n "${BOARDWALK_APT_GNUPGHOME:-}" ]; then
        gpg --homedir "$d" --list-secret-keys --with-colons 2>/dev/null | grep -q '^sec' ||
            die "BOARDWALK_APT_GNUPGHOME=$d holds no secret key"
        echo "$d"; return
    fi
    if ! gpg --homedir "$d" --list-secret-keys --with-colons 2>/dev/null | grep -q '^sec'; then
        log "apt repository: a new development signing key in $d"
        rm -rf "$d"; mkdir -p "$d"; chmod 0700 "$d"
        gpg --homedir "$d" --batch --pinentry-mode loopback --passphrase '' \
            --quick-gen-key "Boardwalk development apt repository (not for products)" ed25519 sign 10y >&2
    fi
    echo "$d"
}

# cmd_apt_repo OUTDIR DEB...: a signed apt repository (reprepro) of the packages: suite
# trixie, component main, InRelease signed with apt_key's key; the public key beside it as
# boardwalk-archive-keyring.gpg for a board's signed-by (docs/FLEET.md).
cmd_apt_repo() {
    local out=$1 gnupg fpr; shift
    command -v reprepro >/dev/null || die "reprepro is missing (scripts/install-deps.sh test)"
    gnupg=$(apt_key)
    fpr=$(gpg --homedir "$gnupg" --list-secret-keys --with-colons | awk -F: '$1=="fpr"{print $10; exit}')
    rm -rf "$out"; mkdir -p "$out/conf"
    cat > "$out/conf/distributions" <<EOF2
Origin: Boardwalk
Label: Boardwalk
Codename: trixie
Architectures: amd64 arm64
Components: main
Description: Boardwalk game kiosk packages
SignWith: $fpr
EOF2
    GNUPGHOME=$gnupg reprepro -b "$out" --silent includedeb trixie "$@" >&2
    gpg --homedir "$gnupg" --export "$fpr" > "$out/boardwalk-archive-keyring.gpg"
    # The agent signing started for the development key would outlive the build.
    [ -n "${BOARDWALK_APT_GNUPGHOME:-}" ] || gpgconf --homedir "$gnupg" --kill gpg-agent 2>/dev/null || true
    rm -rf "$out/conf" "$out/db"
    log "apt repository $out (key $fpr): $(cd "$out" && find pool -name '*.deb' | sort | tr '\n' ' ')"
}

cmd_test() {
    local arch=$1 tar
    tar=$(test_root "$arch")
    python3 "$DEB/test_deb.py" --arch "$arch" --root-tar "$tar" --new "$2" --old "$3" \
        ${4:+--repo "$4"} --apt-cache "$BW_CACHE/test-apt-$SUITE-$arch"
}

# cmd_previous DEB OUTDIR: the same package at a lower version (VERSION~prev, in its
# control file and /usr/share/boardwalk/version), for the upgrade test: its maintainer scripts are the ones being tested, and an upgrade runs them
# as they run between any two versions (the old prerm, the new postinst). Made by
# dpkg-deb from DEB's own files, in seconds (a second build under qemu takes minutes).
cmd_previous() {
    local deb=$1 outdir=$2 tmp version arch
    tmp=$(mktemp -d)
    dpkg-deb -R "$deb" "$tmp/pkg"
    version=$(sed -n 's/^Version: //p' "$tmp/pkg/DEBIAN/control")~prev
    arch=$(sed -n 's/^Architecture: //p' "$tmp/pkg/DEBIAN/control")
    sed -i "s/^Version: .*/Version: $version/" "$tmp/pkg/DEBIAN/control"
    # The version the kiosk reports (debian/rules writes it), as a build at that version would.
    echo "$version" > "$tmp/pkg/usr/share/boardwalk/version"
    sed -i "s|^[0-9a-f]*  usr/share/boardwalk/version\$|$(cd "$tmp/pkg" && md5sum usr/share/boardwalk/version)|" "$tmp/pkg/DEBIAN/md5sums"
    mkdir -p "$outdir"
    dpkg-deb --root-owner-group -Zxz --build "$tmp/pkg" "$outdir/boardwalk_${version}_$arch.deb" >&2
    rm -rf "$tmp"
    echo "$outdir/boardwalk_${version}_$arch.deb"
}

# cmd_all AMD64_BINARY ARM64_BINARY OUTDIR: both packages (make deb), then lintian on both.
cmd_all() {
    local outdir=$3
    # An apt repository of the last build would hold the old packages.
    rm -rf "$outdir"/boardwalk_*.deb "$outdir/previous" "$outdir/apt-repo"
    cmd_build amd64 "$1" "$outdir"
    cmd_build arm64 "$2" "$outdir"
    cmd_lint "$outdir"/boardwalk_*.deb
}

# cmd_stock_test OUTDIR ARCH: ARCH's package on a stock Debian 13 system booted on the
# virtual board, installed at its VERSION~prev, then upgraded with apt from OUTDIR/apt-repo
# served over HTTP (images/deb/test_stock_board.py).
cmd_stock_test() {
    local outdir=$1 arch=$2 deb old
    deb=$(ls "$outdir"/boardwalk_*_"$arch".deb)
    [ -d "$outdir/apt-repo" ] || cmd_apt_repo "$outdir/apt-repo" "$outdir"/boardwalk_*.deb
    old=$(cmd_previous "$deb" "$outdir/previous")
    cmd_stock_board "$old" "$outdir/stock-board-$arch" "$outdir/apt-repo"
    python3 "$DEB/test_stock_board.py" "$outdir/stock-board-$arch" --arch "$arch" --repo "$outdir/apt-repo" \
        --old "$(dpkg-deb -f "$old" Version)" --new "$(dpkg-deb -f "$deb" Version)"
    rm -f "$outdir/stock-board-$arch/disk.img"
}

# cmd_package_test OUTDIR ARCH: ARCH's package in OUTDIR tested in a fresh root of ARCH,
# upgraded from its VERSION~prev by file and from OUTDIR/apt-repo (made first when missing).
cmd_package_test() {
    local outdir=$1 arch=$2 deb
    deb=$(ls "$outdir"/boardwalk_*_"$arch".deb)
    [ -d "$outdir/apt-repo" ] || cmd_apt_repo "$outdir/apt-repo" "$outdir"/boardwalk_*.deb
    cmd_test "$arch" "$deb" "$(cmd_previous "$deb" "$outdir/previous")" "$outdir/apt-repo"
}

# cmd_test_all OUTDIR [ARCH...]: each package in OUTDIR (or those of ARCHes): its package
# test, then a stock Debian 13 system booted on that architecture's virtual board (make deb-test).
cmd_test_all() {
    local outdir=$1 deb arch arches=${*:2}
    cmd_apt_repo "$outdir/apt-repo" "$outdir"/boardwalk_*.deb
    for deb in "$outdir"/boardwalk_*.deb; do
        arch=$(dpkg-deb -f "$deb" Architecture)
        case " ${arches:-$arch} " in *" $arch "*) ;; *) log "not tested here: $deb"; continue ;; esac
        cmd_package_test "$outdir" "$arch"
        cmd_stock_test "$outdir" "$arch"
    done
}

main() {
    case "${1:-}" in
        all) shift; [ $# = 3 ] || die "usage: deb.sh all AMD64_BINARY ARM64_BINARY OUTDIR"; cmd_all "$@" ;;
        test-all) shift; [ $# -ge 1 ] || die "usage: deb.sh test-all OUTDIR [ARCH...]"; cmd_test_all "$@" ;;
        package-test) shift; [ $# = 2 ] || die "usage: deb.sh package-test OUTDIR ARCH"; cmd_package_test "$@" ;;
        build) shift; [ $# = 3 ] || die "usage: deb.sh build ARCH BINARY OUTDIR"; cmd_build "$@" ;;
        lint) shift; [ $# -ge 1 ] || die "usage: deb.sh lint DEB..."; cmd_lint "$@" ;;
        test) shift; [ $# = 3 ] || [ $# = 4 ] || die "usage: deb.sh test ARCH NEW.deb OLD.deb [REPO]"; cmd_test "$@" ;;
        previous) shift; [ $# = 2 ] || die "usage: deb.sh previous DEB OUTDIR"; cmd_previous "$@" ;;
        apt-repo) shift; [ $# -ge 2 ] || die "usage: deb.sh apt-repo OUTDIR DEB..."; cmd_apt_repo "$@" ;;
        stock-board) shift; [ $# = 2 ] || [ $# = 3 ] || die "usage: deb.sh stock-board DEB WORKDIR [REPO]"; cmd_stock_board "$@" ;;
        stock-test) shift; [ $# = 2 ] || die "usage: deb.sh stock-test OUTDIR ARCH"; cmd_stock_test "$@" ;;
        root) build_root ;;
        test-root) shift; test_root "$1" ;;
        stock-root) shift; stock_root "$1" ;;
        *) die "usage: deb.sh build|lint|test ..." ;;
    esac
}
# All of the script is read before it runs (an edit while it runs cannot change it).
main "$@"; exit $?
