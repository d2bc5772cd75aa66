#!/bin/sh
# Runs the kiosk where this machine allows:
#   1. on a free DRM device (a /dev/dri/card* that no other process has open);
#   2. else on the virtual board (QEMU) in a window, or over VNC without a desktop;
#   3. else headless, writing screenshots to $SHOTS (default out/shots).
# BOARDWALK_RUN=drm|virtual|headless picks one; BOARD=NAME picks boards/NAME.conf for DRM.
set -eu
cd "$(dirname "$0")/.."
bin=${1:-.build/release/boardwalk}
shots=${SHOTS:-out/shots}
[ -x "$bin" ] || { echo "run.sh: no binary at $bin (make build)" >&2; exit 1; }

free_card() {
    for card in /dev/dri/card*; do
        [ -c "$card" ] && [ -r "$card" ] && [ -w "$card" ] || continue
        # A display server or another kiosk holding it: not free.
        if ! ls -l /proc/[0-9]*/fd 2>/dev/null | grep -q " -> $card\$"; then
            echo "$card"; return 0
        fi
    done
    return 1
}

mode=${BOARDWALK_RUN:-}
if [ -z "$mode" ]; then
    if free_card >/dev/null; then mode=drm
    elif [ "$(id -u)" = 0 ] && [ "$(uname -m)" = x86_64 ]; then
        # The virtual board: QEMU and the image tools come with the test packages.
        scripts/install-deps.sh test && mode=virtual || mode=headless
    else mode=headless
    fi
fi

case "$mode" in
drm)
    set -- "$bin"
    [ -n "${BOARD:-}" ] && set -- "$@" --board "boards/$BOARD.conf"
    echo "run.sh: on $(free_card || echo 'the DRM device')"
    mkdir -p "${STATE_DIR:-out/state}"
    exec "$@" --state-dir "${STATE_DIR:-out/state}" ;;
virtual)
    echo "run.sh: no free DRM device here; booting the virtual board (QEMU)"
    exec python3 images/virtual-board/vboard.py run "$bin" ;;
headless)
    echo "run.sh: no DRM device and no QEMU; rendering headless into $shots"
    mkdir -p "$shots"
    set -- "$bin" --headless --size 1280x800 --shots "$shots"
    [ -f "${SCRIPT:-data/scripts/tour.script}" ] && set -- "$@" --script "${SCRIPT:-data/scripts/tour.script}"
    exec "$@" ;;
*)
    echo "run.sh: BOARDWALK_RUN must be drm, virtual or headless" >&2; exit 2 ;;
esac
