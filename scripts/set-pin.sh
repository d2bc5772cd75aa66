#!/usr/bin/env bash
# Sets the kiosk's operator PIN: stored in /etc/boardwalk/boardwalk.conf as a salted
# PBKDF2-HMAC-SHA-256 hash, never as digits; the kiosk re-reads it on reload.
#   sudo scripts/set-pin.sh [PIN]    (4-8 digits; without one, a random 6-digit PIN is
#                                     made and printed once)
# `make install PIN=...` and the image builds do the same through bw_set_pin (images/lib.sh).
set -eu
[ "$(id -u)" = 0 ] || { echo "set-pin.sh: run as root (sudo)" >&2; exit 1; }
source "$(dirname "$0")/../images/lib.sh"
bw_set_pin / "${1:-}"
systemctl reload boardwalk.service 2>/dev/null || true
