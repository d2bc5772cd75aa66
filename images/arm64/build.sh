#!/usr/bin/env bash
# Builds the kiosk for arm64 (Debian 13 / Raspberry Pi OS trixie boards) on an x86 machine.
#
#   images/arm64/build.sh [cross|emulated] [OUT]      (make arm64; OUT: out/arm64/boardwalk)
#
# Both ways use Debian 13's Swift 6.0.3 and an arm64 trixie root with the kiosk's -dev
# packages (images/arm64/build-packages.txt), cached under /var/cache/boardwalk/images and
# rebuilt when that list changes:
#   cross     (default) Debian's amd64 swiftlang in a trixie amd64 root (it needs trixie's
#             glibc) compiles for aarch64 at native speed, the arm64 root as its sysroot
#             (images/arm64/destination.json).
#   emulated  the arm64 swiftlang compiles inside the arm64 root under qemu-user: slower,
#             but the very toolchain a Pi runs.
# Needs root (chroot, bind mounts) and scripts/install-deps.sh arm64 (qemu-user-static).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib.sh"

mode=${1:-cross}
out=${2:-$BW_REPO/out/arm64/boardwalk}
case "$mode" in cross|emulated) ;; *) bw_die "usage: build.sh [cross|emulated] [OUT]" ;; esac
[ "$(id -u)" = 0 ] || bw_die "needs root (chroot and bind mounts); run with sudo"
flags="-c release --static-swift-stdlib --product boardwalk"

sysroot=$(bw_root_dir trixie arm64 "$HERE/build-packages.txt")
# The scratch directory lives in the clone (like .build), one per way of building.
scratch=.build/arm64-$mode
t0=$(date +%s)
if [ "$mode" = emulated ]; then
    bw_foreign_arch arm64
    # A private mount namespace: the bind mounts vanish with the build, even on failure.
    unshare -m --propagation private sh -ec '
        root=$1; repo=$2
        mkdir -p "$root/src"
        mount --bind "$repo" "$root/src"
        for d in proc sys dev; do mount --rbind "/$d" "$root/$d"; done
        shift 2
        chroot "$root" sh -c "cd /src && swift build $*"
    ' build "$sysroot" "$BW_REPO" --scratch-path "$scratch" $flags >&2
    bin=$BW_REPO/$scratch/release/boardwalk
else
    cross=$(bw_root_dir trixie amd64 "$HERE/cross-packages.txt")
    unshare -m --propagation private sh -ec '
        root=$1; sysroot=$2; repo=$3; here=$4
        mkdir -p "$root/src" "$root/sysroot"
        mount --bind "$repo" "$root/src"
        mount --bind "$sysroot" "$root/sysroot"
        for d in proc sys dev; do mount --rbind "/$d" "$root/$d"; done
        shift 4
        # SwiftPM reads the -dev packages'"'"' .pc files from the sysroot (prefixing their paths).
        chroot "$root" env PKG_CONFIG_SYSROOT_DIR=/sysroot \
            PKG_CONFIG_PATH=/sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:/sysroot/usr/share/pkgconfig \
            PKG_CONFIG_LIBDIR=/sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:/sysroot/usr/share/pkgconfig \
            sh -c "cd /src && swift build --destination /src/images/arm64/destination.json $*"
    ' build "$cross" "$sysroot" "$BW_REPO" "$HERE" --scratch-path "$scratch" $flags >&2
    bin=$BW_REPO/$scratch/aarch64-unknown-linux-gnu/release/boardwalk
fi
[ -x "$bin" ] || bin=$BW_REPO/$scratch/release/boardwalk
case "$(readelf -h "$bin" | sed -n 's/.*Machine: *//p')" in
    *AArch64*) ;;
    *) bw_die "$bin is not an arm64 binary" ;;
esac
mkdir -p "$(dirname "$out")"
cp "$bin" "$out"
bw_log "built $out ($mode, $(( $(date +%s) - t0 )) s, $(du -m "$out" | cut -f1) MB)"
