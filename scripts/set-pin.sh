#!/usr/bin/env bash
# Sets the kiosk's operator PIN: stored on the state partition (/var/lib/boardwalk/
# operator-pin) as a salted PBKDF2-HMAC-SHA-256 hash, never as digits, so it works on a
# read-only root; the running kiosk takes it at once (reload).
#   sudo scripts/set-pin.sh [PIN]    (4-8 digits; without one, it asks on a terminal, and
#                                     left empty a random 6-digit PIN is made and printed once)
# On an image or a package install, without this checkout: sudo /usr/libexec/boardwalk/set-pin
# (the same program, scripts/boardwalk-set-pin).
set -eu
[ "$(id -u)" = 0 ] || { echo "set-pin.sh: run as root (sudo)" >&2; exit 1; }
BW_PIN="${1:-}" exec python3 "$(dirname "$0")/boardwalk-set-pin"
