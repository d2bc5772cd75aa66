#!/usr/bin/env bash
# Boardwalk's Debian packages, built and tested the way Debian builds and tests packages.
#
#   scripts/deb.sh all AMD64_BIN ARM64_BIN OUTDIR   both packages, then lint (make deb)
#   scripts/deb.sh test-all OUTDIR            each one's test, upgrading from its
#                                             VERSION~prev (make deb-test)
#   scripts/deb.sh build ARCH BINARY OUTDIR   boardwalk_VERSION_ARCH.deb from debian/ with
#                                             dpkg-buildpackage in a Debian 13 root of ARCH
#                                             (arm64 under qemu-user), so dpkg-shlibdeps
#                                             names trixie's library packages
#   scripts/deb.sh lint DEB...                trixie's lintian; fails on an error (warnings
#                                             are explained in debian/boardwalk.lintian-overrides)
#   scripts/deb.sh test ARCH NEW.deb OLD.deb  in a fresh Debian 13 root of ARCH: apt installs
#                                             OLD with its dependencies, upgrades to NEW,
#                                             removes, purges, and finds nothing left behind
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
    # --fail-on error: a warning is either fixed or overridden with its reason.
    in_root "$root" sh -ec 'cd /lint && lintian --fail-on error --info --display-info --show-overrides *.deb'
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

cmd_test() {
    local arch=$1 tar
    tar=$(test_root "$arch")
    python3 "$DEB/test_deb.py" --arch "$arch" --root-tar "$tar" --new "$2" --old "$3" \
        --apt-cache "$BW_CACHE/test-apt-$SUITE-$arch"
}

# cmd_previous DEB OUTDIR: the same package at a lower version (VERSION~prev), for the
# upgrade test: its maintainer scripts are the ones being tested, and an upgrade runs them
# as they run between any two versions (the old prerm, the new postinst). Made by
# dpkg-deb from DEB's own files, in seconds (a second build under qemu takes minutes).
cmd_previous() {
    local deb=$1 outdir=$2 tmp version arch
    tmp=$(mktemp -d)
    dpkg-deb -R "$deb" "$tmp/pkg"
    version=$(sed -n 's/^Version: //p' "$tmp/pkg/DEBIAN/control")~prev
    arch=$(sed -n 's/^Architecture: //p' "$tmp/pkg/DEBIAN/control")
    sed -i "s/^Version: .*/Version: $version/" "$tmp/pkg/DEBIAN/control"
    mkdir -p "$outdir"
    dpkg-deb --root-owner-group -Zxz --build "$tmp/pkg" "$outdir/boardwalk_${version}_$arch.deb" >&2
    rm -rf "$tmp"
    echo "$outdir/boardwalk_${version}_$arch.deb"
}

# cmd_all AMD64_BINARY ARM64_BINARY OUTDIR: both packages (make deb), then lintian on both.
cmd_all() {
    local outdir=$3
    rm -rf "$outdir"/boardwalk_*.deb "$outdir/previous"
    cmd_build amd64 "$1" "$outdir"
    cmd_build arm64 "$2" "$outdir"
    cmd_lint "$outdir"/boardwalk_*.deb
}

# cmd_test_all OUTDIR: each package in OUTDIR tested in its architecture's fresh root,
# upgraded from its VERSION~prev (make deb-test).
cmd_test_all() {
    local outdir=$1 deb arch
    for deb in "$outdir"/boardwalk_*.deb; do
        arch=$(dpkg-deb -f "$deb" Architecture)
        cmd_test "$arch" "$deb" "$(cmd_previous "$deb" "$outdir/previous")"
    done
}

main() {
    case "${1:-}" in
        all) shift; [ $# = 3 ] || die "usage: deb.sh all AMD64_BINARY ARM64_BINARY OUTDIR"; cmd_all "$@" ;;
        test-all) shift; [ $# = 1 ] || die "usage: deb.sh test-all OUTDIR"; cmd_test_all "$@" ;;
        build) shift; [ $# = 3 ] || die "usage: deb.sh build ARCH BINARY OUTDIR"; cmd_build "$@" ;;
        lint) shift; [ $# -ge 1 ] || die "usage: deb.sh lint DEB..."; cmd_lint "$@" ;;
        test) shift; [ $# = 3 ] || die "usage: deb.sh test ARCH NEW.deb OLD.deb"; cmd_test "$@" ;;
        previous) shift; [ $# = 2 ] || die "usage: deb.sh previous DEB OUTDIR"; cmd_previous "$@" ;;
        root) build_root ;;
        test-root) shift; test_root "$1" ;;
        *) die "usage: deb.sh build|lint|test ..." ;;
    esac
}
# All of the script is read before it runs (an edit while it runs cannot change it).
main "$@"; exit $?
