#!/bin/sh
# Installs the Debian packages Boardwalk needs, only those missing.
#   scripts/install-deps.sh build   - to build and run the kiosk
#   scripts/install-deps.sh test    - also what the tests need
#   scripts/install-deps.sh bench   - also what `make bench` needs (the SDL2 peer)
set -eu
build="pkg-config libdrm-dev libevdev-dev libasound2-dev libpixman-1-dev libfreetype-dev
       libpng-dev libsndfile1-dev fonts-dejavu-core fonts-wqy-microhei fonts-noto-color-emoji"
# The system test: QEMU, mmdebstrap and what images/virtual-board/build.sh calls; numpy
# for its screen and sound analysis.
test="$build unicode-cldr-core sox python3-numpy qemu-system-x86 mmdebstrap cpio kmod binutils systemd busybox-static"
# The bench's peer (bench/peers/sdl2-peer.c): SDL2 and its text and PNG companions.
bench="$build gcc libc6-dev libsdl2-dev libsdl2-ttf-dev libsdl2-image-dev"
case "${1:-build}" in
  build) want=$build ;;
  test) want=$test ;;
  bench) want=$bench ;;
  *) echo "usage: $0 build|test|bench" >&2; exit 2 ;;
esac
missing=""
for p in $want; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
