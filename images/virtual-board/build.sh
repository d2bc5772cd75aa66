#!/usr/bin/env bash
# Builds the virtual board: a Debian kernel and the kiosk's root as a cpio initramfs,
# booted by QEMU without any disk. One recipe for both CPUs:
#   amd64: board profile boards/qemu-x86_64.conf, Debian 12, AC97 sound
#   arm64: board profile boards/qemu-arm64.conf, Debian 13 (what Pi boards run), USB sound
#
#   images/virtual-board/build.sh [--arch amd64|arm64] BINARY OUTDIR [TESTDATA_DIR]
#   images/virtual-board/build.sh --disk [--bundle-only] BINARY OUTDIR [TESTDATA_DIR]
#       the x86 board on an A/B disk (OVMF, GRUB, RAUC): build-disk.sh
#
# Writes OUTDIR/vmlinuz, OUTDIR/initrd (and OUTDIR/cmdline). The slow parts (the Debian root,
# the kernel and its modules, the packed root) are cached under $BW_CACHE keyed by a
# hash of their inputs; only the small overlay with the binary is packed on every run.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = --disk ]; then shift; exec "$HERE/build-disk.sh" "$@"; fi
arch=amd64
if [ "${1:-}" = --arch ]; then arch=$2; shift 2; fi
case "$arch" in
    amd64) profile_name=qemu-x86_64 suite=${BOARDWALK_SUITE:-bookworm}
        # virtio-gpu (display), virtio input (tablet, keyboard), AC97 (sound), uinput (replayed
        # touchscreens), virtio console (the test's command channel), evdev, virtio-blk +
        # ext4 (the state disk), virtio-net (the node exporter, scraped through QEMU's user network).
        modules="virtio_gpu virtio_input snd_intel8x0 uinput virtio_console evdev virtio_pci virtio_blk ext4 virtio_net" ;;
    arm64) profile_name=qemu-arm64 suite=${BOARDWALK_SUITE:-trixie}
        # Debian's arm64 kernel has no AC97, and intel-hda's codec probe fails under TCG:
        # sound is a USB audio device on xhci (as on many cabinets).
        modules="virtio_gpu virtio_input xhci_pci snd_usb_audio uinput virtio_console evdev virtio_pci virtio_blk ext4" ;;
    *) echo "build.sh: --arch amd64|arm64" >&2; exit 2 ;;
esac
BOARDWALK_SUITE=$suite
source "$HERE/../lib.sh"
bw_one_build_at_a_time "$0" --arch "$arch" "$@"
source "$HERE/test-image.sh"
source "$HERE/../rauc.sh"

bin=${1:?usage: build.sh [--arch ARCH] BINARY OUTDIR [TESTDATA_DIR]}
out=${2:?usage: build.sh [--arch ARCH] BINARY OUTDIR [TESTDATA_DIR]}
testdata=${3:-}
profile=$BW_REPO/boards/$profile_name.conf
[ "$(id -u)" = 0 ] || bw_die "needs root (device nodes and file owners in the root); run with sudo"
for tool in cpio depmod readelf systemd-sysusers; do
    command -v "$tool" >/dev/null || bw_die "$tool is missing (scripts/install-deps.sh test)"
done
mkdir -p "$out"
[ "$arch" = amd64 ] || bw_foreign_arch "$arch"

# The kernel: Debian's current flavour for the CPU, with only the modules the board uses.
kdir=$(bw_kernel "$BW_SUITE" "$arch" $modules)
kernel_pkg=linux-image-$(cat "$kdir/version")

# The packed root: Debian + modules + the system files (unit, user, guest test helpers).
tar=$(bw_root_tar "$arch" "$BW_IMAGES/packages.txt" "$BW_IMAGES/packages-test.txt" $(bw_exporter_packages "$profile"))
key=$(bw_key "$tar" "$kernel_pkg" "$BW_IMAGES/lib.sh" "$0" "$BW_REPO"/systemd/* "$HERE"/guest/* "$HERE/test-image.sh" "$profile")
base=$BW_CACHE/base-$arch-$key.cpio
if [ ! -s "$base" ]; then
    bw_log "root: packing $(basename "$base")"
    tmp=$(mktemp -d "$BW_CACHE/root.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    tar -C "$tmp" -xf "$tar"
    cp -a "$kdir/mods/lib/modules" "$tmp/usr/lib/"
    bw_install_system "$tmp"
    bw_enable_exporter "$tmp" "$profile"
    vb_test_image "$tmp" "$HERE/guest"
    # Read-only root after boot, as on a real board; the state partition is a virtio disk
    # (the system test makes it: images/boardtest), mounted as a board's is: nofail with a device timeout, so a
    # missing or broken one boots the kiosk with its state in memory. 90 s, not a board's
    # 10: under emulation udev loads virtio_blk late (seen: the disk 7 s after the job began
    # on a quiet machine, 31 s at load 11, when a 30 s limit left the kiosk without state).
    cat > "$tmp/etc/fstab" <<EOF
rootfs     /                   rootfs  ro                              0 0
/dev/vda   /var/lib/boardwalk  ext4    rw,noatime,nodev,nosuid,noexec,commit=5,nofail,x-systemd.device-timeout=90s  0 0
tmpfs   /tmp                tmpfs   mode=1777,size=32M,nosuid,nodev  0 0
tmpfs   /var/tmp            tmpfs   mode=1777,size=8M,nosuid,nodev   0 0
EOF
    bw_lib_names "$tmp" > "$base.libs"
    # Uncompressed: gunzip of 200 MB under TCG costs more than loading it does.
    (cd "$tmp" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet) > "$base.part"
    mv "$base.part" "$base"
    rm -rf "$tmp"; trap - EXIT
    # Older packed roots are dead weight.
    find "$BW_CACHE" -maxdepth 1 -name "base-$arch-*" ! -name "$(basename "$base")*" -delete
else
    bw_log "root: cached $(basename "$base")"
fi

# The overlay, packed on every run: the binary, its data, the board profile, test data.
ov=$(mktemp -d "$BW_CACHE/overlay.XXXXXX")
trap 'rm -rf "$ov"' EXIT
bw_install_kiosk "$ov" "$bin" "$profile"
# The operator PIN: the system test's (BOARDWALK_VB_PIN, which it never types; it checks
# the journal never shows it), else a random one. In boardwalk.conf, as an install from
# before the state partition's operator-pin has it: the kiosk still takes it from there.
bw_set_pin_conf "$ov" "${BOARDWALK_VB_PIN:-}"
# The image's version, as on every image (the kiosk's System tab, its metrics): Debian's
# os-release with IMAGE_VERSION, in the overlay so that the cached root stays as it is.
mkdir -p "$ov/usr/lib"
tar -xOf "$tar" ./usr/lib/os-release > "$ov/usr/lib/os-release"
bw_os_release "$ov" "$(bw_image_version)"
bw_check_libs "$bin" "$base.libs"
if [ -n "$testdata" ]; then
    mkdir -p "$ov/usr/share/boardwalk-test"
    cp -a "$testdata/." "$ov/usr/share/boardwalk-test/"
fi
(cd "$ov" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet) > "$out/overlay.cpio"
# The kernel unpacks concatenated archives in order: the overlay's files win.
cat "$base" "$out/overlay.cpio" > "$out/initrd"
rm -f "$out/overlay.cpio"
cp "$kdir/vmlinuz" "$out/vmlinuz"
echo "rdinit=/lib/systemd/systemd $(bw_cmdline "$profile")" > "$out/cmdline"
bw_log "built $out/vmlinuz $out/initrd ($(du -m "$out/initrd" | cut -f1) MB)"
