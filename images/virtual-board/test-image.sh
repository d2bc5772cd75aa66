# What makes a virtual board's root a test image (sourced by build.sh and build-disk.sh;
# never in a shipped image): the guest helpers (a root command channel on a virtio port,
# a serial marker when the kiosk reports READY), no login on the serial console, a start
# timeout for emulation, and an empty machine-id.
vb_test_image() {
    local root=$1 guest=$2
    install -D -m 0755 "$guest/bw-agent" "$root/usr/local/sbin/bw-agent"
    install -D -m 0755 "$guest/bw-mark" "$root/usr/local/sbin/bw-mark"
    install -D -m 0644 "$guest/bw-agent.service" "$root/etc/systemd/system/bw-agent.service"
    install -D -m 0644 "$guest/bw-ready-marker.service" "$root/etc/systemd/system/bw-ready-marker.service"
    ln -sf ../bw-agent.service "$root/etc/systemd/system/multi-user.target.wants/bw-agent.service"
    ln -sf ../bw-ready-marker.service "$root/etc/systemd/system/multi-user.target.wants/bw-ready-marker.service"
    # Not an initrd that hands over to another root: systemd must run it as the system.
    rm -f "$root/etc/initrd-release"
    # Emulation (TCG) on a busy machine is tens of times slower than a board: the first
    # frame can take minutes there. Only the start timeout is relaxed; all else is as shipped.
    mkdir -p "$root/etc/systemd/system/boardwalk.service.d"
    printf '[Service]\nTimeoutStartSec=300\n' > "$root/etc/systemd/system/boardwalk.service.d/virtual-board.conf"
    # The same for the display the kiosk's unit waits for (systemd's 90 s by default).
    mkdir -p "$root/etc/systemd/system/sys-subsystem-boardwalk-display.device.d"
    printf '[Unit]\nJobRunningTimeoutSec=300\n' > "$root/etc/systemd/system/sys-subsystem-boardwalk-display.device.d/virtual-board.conf"
    # The hardware watchdog (the disk board's i6300esb) at 60 s, not the boards' 15 s: an
    # emulated CPU starved by a loaded host once left PID 1 unfed long enough for a reset
    # in the middle of a boot (2026-12-06, load 10-14).
    mkdir -p "$root/etc/systemd/system.conf.d"
    printf '[Manager]\nRuntimeWatchdogSec=60s\n' > "$root/etc/systemd/system.conf.d/virtual-board.conf"
    # The state disk's driver before coldplug, as a Pi's initramfs has found the SD card (the
    # state partition's disk) before systemd starts: the kiosk's unit waits for the mount.
    mkdir -p "$root/etc/modules-load.d"
    echo virtio_blk > "$root/etc/modules-load.d/virtual-board.conf"
    # The serial console carries kernel lines and test markers, not a login prompt.
    ln -sf /dev/null "$root/etc/systemd/system/serial-getty@ttyS0.service"
    ln -sf /dev/null "$root/etc/systemd/system/serial-getty@ttyAMA0.service"
    : > "$root/etc/machine-id"
}
