#!/usr/bin/env bash
# Puts Boardwalk on the board this runs on (Debian / Raspberry Pi OS with systemd):
# the binary, its data, the systemd unit with its user, tmpfiles and udev rule, the
# board profile and a default config; then enables the service so it starts at boot.
#   scripts/install.sh BINARY        (make install does this as root, with BOARD=NAME)
# PIN=NNNNNN sets the operator PIN (else a first install prints a random one once).
# BOARD picks boards/NAME.conf; unset, a Raspberry Pi 4 or 5 gets its HDMI-touch profile
# and anything else the generic defaults. START=0 installs without starting it now.
set -eu
bin=${1:-.build/release/boardwalk}
[ "$(id -u)" = 0 ] || { echo "install.sh: run as root (sudo make install)" >&2; exit 1; }
source "$(dirname "$0")/../images/lib.sh"

board=${BOARD:-$("$BW_REPO/scripts/boardwalk-board-profile")}
profile=$(mktemp)
trap 'rm -f "$profile"' EXIT
if [ -n "$board" ]; then
    [ -f "$BW_REPO/boards/$board.conf" ] || bw_die "no board profile boards/$board.conf (see boards/README.md)"
    cp "$BW_REPO/boards/$board.conf" "$profile"
    bw_log "board profile: $board"
else
    echo "# No board profile: the kiosk chooses display, touch and sound itself." > "$profile"
    bw_log "no board profile (set BOARD=NAME to pick one of boards/*.conf)"
fi

bw_install_kiosk / "$bin" "$profile"
bw_install_units /
# A public kiosk, as the images are: no key or chord on a plugged-in keyboard reboots,
# powers off or suspends the board or kills the kiosk (bw_lockdown: Ctrl-Alt-Del, SysRq,
# Alt-Up, logind's power/reboot/suspend/hibernate keys, from the next boot), no login
# prompt on tty1, nor on the other VTs unless the profile's [boot] other_vts = keep.
bw_lockdown /
sysctl -q -p /etc/sysctl.d/90-boardwalk.conf || true
if [ "$(bw_profile_get "$profile" boot other_vts)" != keep ]; then
    mkdir -p /etc/systemd/logind.conf.d
    printf '[Login]\nNAutoVTs=0\nReserveVT=0\n' > /etc/systemd/logind.conf.d/boardwalk.conf
    systemctl mask getty-static.service getty@tty{2..6}.service autovt@tty{2..6}.service >/dev/null
    bw_log "other VTs: no login prompts (the profile's [boot] other_vts = keep keeps them)"
fi
# SysRq off from the kernel's first moment too (sysctl.d comes only once systemd runs): on a
# Raspberry Pi, in cmdline.txt (Raspberry Pi OS: /boot/firmware, older: /boot).
for cmdline in /boot/firmware/cmdline.txt /boot/cmdline.txt; do
    if [ -f "$cmdline" ] && [ ! -L "$cmdline" ]; then
        bw_cmdline_add "$cmdline" sysctl.kernel.sysrq=0
        bw_log "$cmdline: sysctl.kernel.sysrq=0 (from the next boot)"
        break
    fi
done
systemd-sysusers /usr/lib/sysusers.d/boardwalk.conf
systemd-tmpfiles --create /usr/lib/tmpfiles.d/boardwalk.conf
# The operator PIN: PIN=NNNNNN sets it; an older install's hash in boardwalk.conf moves to
# the state partition (one place holds it); a first install without one gets a random PIN,
# printed once. Either way only its salted hash is stored: /var/lib/boardwalk/operator-pin.
if [ -n "${PIN:-}" ]; then
    bw_set_pin /var/lib/boardwalk "$PIN"
fi
python3 "$BW_REPO/scripts/boardwalk-set-pin" --move-from /etc/boardwalk/boardwalk.conf /var/lib/boardwalk
if [ ! -f /var/lib/boardwalk/operator-pin ] &&
        ! grep -q '^[[:space:]]*operator_pin[[:space:]]*=' /etc/boardwalk/boardwalk.conf; then
    bw_set_pin /var/lib/boardwalk
fi
udevadm control --reload-rules 2>/dev/null || true
systemctl daemon-reload
systemctl daemon-reexec   # CtrlAltDelBurstAction= is read at manager start
systemctl enable boardwalk.service
if [ "${START:-1}" = 1 ]; then
    systemctl restart boardwalk.service
    bw_log "boardwalk.service started; 'journalctl -u boardwalk' shows its log"
fi
