#!/usr/bin/env bash
# Builds an SD-card image for a Raspberry Pi board profile.
#
#   images/rpi/build-sdcard.sh BOARD ARM64_BINARY OUT.img [mmdebstrap option...]
#   BOARDWALK_ROOT=DIR images/rpi/build-sdcard.sh ...   (use a root made elsewhere, e.g. by
#                                     mmdebstrap on an arm64 machine; it is modified in place)
#   e.g. images/rpi/build-sdcard.sh rpi4-official-7in boardwalk-arm64 out/rpi4.img \
#            --keyring=/usr/share/keyrings/raspberrypi-archive-keyring.gpg
#
# Layout (MBR, partitions 4 MiB aligned):
#   1  FAT32 "BW-BOOT"   256 MiB  firmware, kernel, DTBs, overlays, config.txt, cmdline.txt
#   2  ext4  "bw-root"            the Debian root, mounted read-only
#   3  ext4  "bw-state"   64 MiB  /var/lib/boardwalk: scores and settings, the only
#                                 writable place on the card
#
# Needs root, mmdebstrap, dosfstools, mtools, e2fsprogs and fdisk; and either an arm64
# machine or qemu-user-static with binfmt_misc (mmdebstrap runs the arm64 maintainer
# scripts through it). The kernel and firmware packages named in the profile's [boot]
# (linux-image-rpi-v8 / linux-image-rpi-2712, raspi-firmware) come from the Raspberry Pi
# OS archive: put its apt source in BOARDWALK_RPI_SOURCES (a sources.list or .sources
# file) and pass its keyring with --keyring. See images/README.md.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib.sh"

board=${1:?usage: build-sdcard.sh BOARD ARM64_BINARY OUT.img [mmdebstrap option...]}
bin=${2:?usage: build-sdcard.sh BOARD ARM64_BINARY OUT.img}
img=${3:?usage: build-sdcard.sh BOARD ARM64_BINARY OUT.img}
shift 3
profile=$BW_REPO/boards/$board.conf
[ -f "$profile" ] || bw_die "no board profile $profile"
[ "$(bw_profile_get "$profile" board arch)" = arm64 ] || bw_die "$board is not an arm64 board"
[ "$(id -u)" = 0 ] || bw_die "needs root (file owners and device nodes in the root)"
for tool in mmdebstrap mkfs.vfat mcopy mkfs.ext4 sfdisk readelf systemd-sysusers; do
    command -v "$tool" >/dev/null || bw_die "$tool is missing (apt-get install mmdebstrap dosfstools mtools e2fsprogs fdisk binutils)"
done
case "$(readelf -h "$bin" 2>/dev/null | sed -n 's/.*Machine: *//p')" in
    *AArch64*) ;;
    *) bw_die "$bin is not an arm64 binary (see images/README.md: building for arm64)" ;;
esac

kernel=$(bw_profile_get "$profile" boot kernel | tr ' ' ',')
firmware=$(bw_profile_get "$profile" boot firmware | tr ' ' ',')
config_txt=$BW_REPO/boards/$(bw_profile_get "$profile" boot config_txt)
[ -f "$config_txt" ] || bw_die "the profile names no config.txt fragment beside it"

work=$(mktemp -d "$BW_CACHE/sdcard.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=${BOARDWALK_ROOT:-$work/root}

# The root: Debian + the kiosk's packages + the Pi kernel and firmware. raspi-firmware's
# kernel hooks copy the kernel, DTBs and overlays into /boot/firmware as they install.
mirrors=()
if [ -n "${BOARDWALK_RPI_SOURCES:-}" ]; then
    # Naming one source replaces mmdebstrap's default: name Debian's too (the host's).
    mirrors=(/etc/apt/sources.list.d/debian.sources "$BOARDWALK_RPI_SOURCES")
fi
if [ -z "${BOARDWALK_ROOT:-}" ]; then
bw_log "root: mmdebstrap $BW_SUITE arm64 for $board"
mmdebstrap --variant=minbase --architecture=arm64 \
    --include="$(bw_list "$BW_IMAGES/packages.txt"),$kernel,$firmware" \
    --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-include=/usr/share/locale/locale.alias' \
    --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --aptopt='APT::Install-Recommends "false"' \
    --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    "$@" "$BW_SUITE" "$root" "${mirrors[@]}" >&2
fi

bw_install_system "$root"
bw_install_kiosk "$root" "$bin" "$profile"
# The operator PIN: PIN=NNNNNN, or a random one printed once; stored only as a salted hash.
bw_set_pin "$root" "${PIN:-}"
bw_lib_names "$root" > "$work/libs"
bw_check_libs "$bin" "$work/libs"

# Partition ids: the kernel finds its root by PARTUUID (no initramfs needed: the Pi
# kernels have MMC and ext4 built in).
disk_id=$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
uid=$(awk -F: '$1=="boardwalk"{print $3":"$4}' "$root/etc/passwd")

# A read-only root: the state partition is the only thing written; logs stay in RAM.
# A missing or broken state partition (nofail, 10 s for the device) boots the kiosk anyway,
# with its state in memory and a warning in the journal.
cat > "$root/etc/fstab" <<EOF
# Boardwalk: read-only root, scores and settings on their own partition.
PARTUUID=$disk_id-01  /boot/firmware      vfat   ro,noatime,nodev,nosuid,noexec,umask=0022  0 2
PARTUUID=$disk_id-02  /                   ext4   ro,noatime                                 0 1
PARTUUID=$disk_id-03  /var/lib/boardwalk  ext4   rw,noatime,nodev,nosuid,noexec,commit=5,nofail,x-systemd.device-timeout=10s  0 2
tmpfs                 /tmp                tmpfs  mode=1777,nosuid,nodev,size=32M            0 0
tmpfs                 /var/tmp            tmpfs  mode=1777,nosuid,nodev,size=8M             0 0
EOF
: > "$root/etc/machine-id"   # systemd puts a transient one over it on a read-only root

# Firmware partition: what the kernel hooks put in /boot/firmware, plus the profile's
# config.txt and a cmdline.txt pointing at the read-only root.
boot=$root/boot/firmware
mkdir -p "$boot"
cp "$config_txt" "$boot/config.txt"
echo "$(bw_cmdline "$profile") root=PARTUUID=$disk_id-02 rootfstype=ext4 ro" > "$boot/cmdline.txt"
ls "$boot"/*.elf >/dev/null 2>&1 || bw_log "warning: no start*.elf in /boot/firmware: is $firmware the Pi firmware?"
compgen -G "$boot/kernel*.img" >/dev/null || compgen -G "$boot/vmlinuz*" >/dev/null || bw_log "warning: no kernel in /boot/firmware"

boot_mb=256 state_mb=64
root_mb=$(( $(du -sm --exclude=./boot/firmware "$root" | cut -f1) * 5 / 4 + 64 ))
bw_log "partitions: boot ${boot_mb} MiB, root ${root_mb} MiB, state ${state_mb} MiB"

mkfs.vfat -F 32 -n BW-BOOT -C "$work/boot.img" $((boot_mb * 1024)) >&2
mcopy -s -i "$work/boot.img" "$boot"/* ::/
mv "$boot" "$work/boot-files" && mkdir "$boot"   # an empty mount point in the root
mkfs.ext4 -q -L bw-root -d "$root" "$work/root.img" "${root_mb}M"
mkdir -p "$work/state"
mkfs.ext4 -q -L bw-state -E root_owner="$uid" -d "$work/state" "$work/state.img" "${state_mb}M"

# The card: 4 MiB for the MBR and alignment, then the three partitions.
off=4
total=$((off + boot_mb + root_mb + state_mb + 4))
rm -f "$img"; truncate -s "${total}M" "$img"
sfdisk --quiet "$img" <<EOF
label: dos
label-id: 0x$disk_id
start=${off}MiB, size=${boot_mb}MiB, type=c, bootable
start=$((off + boot_mb))MiB, size=${root_mb}MiB, type=83
start=$((off + boot_mb + root_mb))MiB, size=${state_mb}MiB, type=83
EOF
dd if="$work/boot.img" of="$img" bs=1M seek=$off conv=notrunc,sparse status=none
dd if="$work/root.img" of="$img" bs=1M seek=$((off + boot_mb)) conv=notrunc,sparse status=none
dd if="$work/state.img" of="$img" bs=1M seek=$((off + boot_mb + root_mb)) conv=notrunc,sparse status=none
bw_log "built $img (${total} MiB): write it with dd or rpi-imager, then boot"
