#!/bin/sh
# Installs the Debian packages Boardwalk needs, only those missing.
#   scripts/install-deps.sh build   - to build and run the kiosk
#   scripts/install-deps.sh test    - also what the tests need
#   scripts/install-deps.sh bench   - also what `make bench` needs (the SDL2 peer)
#   scripts/install-deps.sh arm64   - also what building and checking arm64 on x86 needs
# With no Swift on the PATH, Debian 13 / Raspberry Pi OS (trixie) get Debian's own
# `swiftlang` (6.0.3): on a Pi that is the toolchain.
set -eu
build="pkg-config libdrm-dev libevdev-dev libasound2-dev libpixman-1-dev libfreetype-dev
       libpng-dev libsndfile1-dev fonts-dejavu-core fonts-wqy-microhei fonts-noto-cjk fonts-noto-color-emoji"
# The system test: QEMU, mmdebstrap and what images/virtual-board/build.sh calls; numpy
# for its screen and sound analysis.
# The A/B disk board and its update checks: RAUC and squashfs-tools (bundles), GRUB EFI
# and OVMF (the disk boot), mtools, dosfstools and fdisk (the disk built without loop devices);
# tesseract reads the version off the operator menu's screendump after an update.
# device-tree-compiler: the Pi display overlays (dtc -@, fdtoverlay; images/rpi/test_overlays.py).
# prometheus: promtool for the fleet's alert rules' tests (fleet/prometheus/); python3-venv:
# goosebit's virtualenv (images/fleet/goosebit_server.py).
test="$build unicode-cldr-core sox python3-numpy qemu-system-x86 mmdebstrap cpio kmod binutils systemd busybox-static
      rauc squashfs-tools grub-efi-amd64-bin grub-common ovmf mtools dosfstools fdisk e2fsprogs openssl
      tesseract-ocr tesseract-ocr-eng device-tree-compiler reprepro gnupg prometheus python3-venv"
# The bench's peer (bench/peers/sdl2-peer.c): SDL2 and its text and PNG companions; llvm-19
# for llvm-mca (scripts/kernel-cycles.py: the copy kernels' cycles on a Pi's core model;
# 19, in bookworm and trixie, is the first there with a model of the Pi 5's core).
bench="$build gcc libc6-dev libsdl2-dev libsdl2-ttf-dev libsdl2-image-dev llvm-19"
# arm64 on x86: qemu-user through binfmt_misc (arm64 roots, the arm64 kiosk's screenshots),
# the arm64 virtual board and its A/B disk board's UEFI firmware (AAVMF), and the Pi card's
# file systems (built without loop devices) and U-Boot boot script (mkimage, u-boot-tools).
# The Debian packages (make deb, scripts/deb.sh) need mmdebstrap, qemu-user, and reprepro
# and gnupg for the signed apt repository (make apt-repo) here:
# debhelper, dpkg-dev and lintian are Debian 13's, in the trixie root that builds them
# (images/deb/build-packages.txt), since bookworm's would name bookworm's libraries and
# check against bookworm's policy.
arm64="$test qemu-user-static binfmt-support arch-test qemu-system-arm qemu-efi-aarch64 mtools dosfstools e2fsprogs fdisk
       u-boot-tools"
case "${1:-build}" in
  build) want=$build ;;
  test) want=$test ;;
  bench) want=$bench ;;
  arm64) want=$arm64 ;;
  *) echo "usage: $0 build|test|bench|arm64" >&2; exit 2 ;;
esac
sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
if ! command -v "${SWIFT:-swift}" >/dev/null 2>&1; then
  # Debian 13 packages Swift; its static link needs the C++ library's -dev package.
  if apt-cache show swiftlang >/dev/null 2>&1 || { $sudo apt-get update -qq && apt-cache show swiftlang >/dev/null 2>&1; }; then
    want="$want swiftlang"
    for p in libstdc++-14-dev libstdc++-15-dev; do
      apt-cache show "$p" >/dev/null 2>&1 && { want="$want $p"; break; }
    done
  else
    echo "install-deps: no Swift found and this Debian has no swiftlang package (Debian 13 has):" >&2
    echo "  install Swift 6 from swift.org and put it on the PATH" >&2
  fi
fi
missing=""
for p in $want; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "installing:$missing"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi
if [ "${1:-}" = arm64 ] && [ "$(dpkg --print-architecture)" != arm64 ]; then
  # binfmt_misc is not mounted on every machine (containers, minimal VMs); then the
  # qemu-user entries can only be registered once it is.
  [ -e /proc/sys/fs/binfmt_misc/status ] || $sudo mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || $sudo update-binfmts --enable qemu-aarch64
fi
