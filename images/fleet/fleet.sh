# The fleet updater in an A/B image (docs/FLEET.md): Debian's rauc-hawkbit-updater, which
# trixie lacks, taken from forky (1.4; its Depends are met by trixie's libraries:
# packages.txt here), our config from [fleet] and the reboot that waits for an idle kiosk.
# Sourced after images/lib.sh.
BW_FLEET_DIR=$BW_IMAGES/fleet
BW_FLEET_SUITE=${BW_FLEET_SUITE:-forky}

# bw_fleet_supported SUITE: whether SUITE's libraries run forky's build (bookworm's glib is
# too old: "undefined symbol: g_once_init_enter_pointer", and Debian's source tarball is not
# on the archive's mirror here to build it for bookworm).
bw_fleet_supported() { [ "$1" != bookworm ]; }

# bw_fleet_deb ARCH: forky's rauc-hawkbit-updater package, downloaded once (cached).
bw_fleet_deb() {
    local arch=$1 d=$BW_CACHE/fleet-debs-$1 f
    f=$(ls "$d"/rauc-hawkbit-updater_*_"$arch".deb 2>/dev/null | head -1)
    if [ -z "$f" ]; then
        mkdir -p "$d"
        (cd "$d" && bw_apt "$BW_FLEET_SUITE" "$arch" apt-get download rauc-hawkbit-updater >&2) ||
            bw_die "cannot download rauc-hawkbit-updater from $BW_FLEET_SUITE"
        f=$(ls "$d"/rauc-hawkbit-updater_*_"$arch".deb | head -1)
    fi
    echo "$f"
}

# bw_fleet_install ROOT ARCH: the package (dpkg in the root), its user, our units and policy.
bw_fleet_install() {
    local root=$1 arch=$2 deb
    deb=$(bw_fleet_deb "$arch")
    bw_log "fleet: $(basename "$deb")"
    cp "$deb" "$root/tmp/rauc-hawkbit-updater.deb"
    # dpkg checks the Depends against the root's libraries; a foreign root runs it under
    # qemu-user (binfmt), as the root's own maintainer scripts did.
    chroot "$root" dpkg -i /tmp/rauc-hawkbit-updater.deb >&2
    rm -f "$root/tmp/rauc-hawkbit-updater.deb"
    install -D -m 0644 "$BW_FLEET_DIR/rauc-hawkbit.sysusers" "$root/usr/lib/sysusers.d/rauc-hawkbit.conf"
    systemd-sysusers --root="$root" "$root/usr/lib/sysusers.d/rauc-hawkbit.conf" >&2
    install -D -m 0755 "$BW_FLEET_DIR/boardwalk-fleet" "$root/usr/lib/boardwalk/boardwalk-fleet"
    install -m 0644 "$BW_FLEET_DIR/boardwalk-fleet-config.service" "$BW_FLEET_DIR/boardwalk-fleet-reboot.service" \
        "$BW_FLEET_DIR/boardwalk-fleet-report.service" \
        "$root/usr/lib/systemd/system/"
    install -D -m 0644 "$BW_FLEET_DIR/rauc-hawkbit-updater.conf" \
        "$root/usr/lib/systemd/system/rauc-hawkbit-updater.service.d/boardwalk.conf"
    install -D -m 0644 "$BW_FLEET_DIR/boardwalk-fleet-rauc.conf" "$root/usr/share/dbus-1/system.d/boardwalk-fleet-rauc.conf"
    mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
    for u in boardwalk-fleet-config boardwalk-fleet-reboot boardwalk-fleet-report rauc-hawkbit-updater; do
        ln -sf "/usr/lib/systemd/system/$u.service" "$root/etc/systemd/system/multi-user.target.wants/$u.service"
    done
}
