#!/usr/bin/env bash
# Builds an SD-card image for a Raspberry Pi board profile from Debian 13's archive, the
# way Debian's own Raspberry Pi images are made: linux-image-arm64 (its DTBs included)
# and raspi-firmware, whose kernel hooks put the firmware, kernel, initramfs and DTBs in
# /boot/firmware and write a config.txt with arm_64bit=1.
#
#   images/rpi/build-sdcard.sh BOARD ARM64_BINARY OUT.img
#   e.g. images/rpi/build-sdcard.sh rpi4-official-7in out/arm64/boardwalk out/rpi4.img
#
# The Raspberry Pi kernel instead (Pi 5; the overlays Debian lacks, such as the 7" DSI
# panel's and the SPI panels'): BOARDWALK_RPI_SOURCES=FILE names an apt source file for
# the Raspberry Pi OS archive, and its keyring goes in BOARDWALK_RPI_KEYRING; the profile's
# [boot] rpi_os_kernel is then installed. See images/README.md.
#
# Layout (MBR, partitions 4 MiB aligned):
#   1  FAT32 "BW-BOOT"   256 MiB  firmware, kernel, initramfs, DTBs, config.txt, cmdline.txt
#   2  ext4  "bw-root"            the Debian root, mounted read-only
#   3  ext4  "bw-state"   64 MiB  /var/lib/boardwalk: scores and settings, the only
#                                 writable place on the card (nofail: a broken one
#                                 does not stop the boot)
#
# Needs root, mmdebstrap, dosfstools, mtools, e2fsprogs, fdisk and qemu-user-static with
# binfmt_misc (scripts/install-deps.sh arm64). No loop devices: the file systems are made
# from directories (mkfs.ext4 -d, mcopy) and put together with sfdisk and dd.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BOARDWALK_SUITE=${BOARDWALK_SUITE:-trixie}
source "$HERE/../lib.sh"

board=${1:?usage: build-sdcard.sh BOARD ARM64_BINARY OUT.img}
bin=${2:?usage: build-sdcard.sh BOARD ARM64_BINARY OUT.img}
img=${3:?usage: build-sdcard.sh BOARD ARM64_BINARY OUT.img}
profile=$BW_REPO/boards/$board.conf
[ -f "$profile" ] || bw_die "no board profile $profile"
[ "$(bw_profile_get "$profile" board arch)" = arm64 ] || bw_die "$board is not an arm64 board"
[ "$(id -u)" = 0 ] || bw_die "needs root (file owners and device nodes in the root)"
for tool in mmdebstrap mkfs.vfat mcopy mkfs.ext4 sfdisk readelf systemd-sysusers; do
    command -v "$tool" >/dev/null || bw_die "$tool is missing (scripts/install-deps.sh arm64)"
done
case "$(readelf -h "$bin" 2>/dev/null | sed -n 's/.*Machine: *//p')" in
    *AArch64*) ;;
    *) bw_die "$bin is not an arm64 binary (make arm64)" ;;
esac
config_txt=$BW_REPO/boards/$(bw_profile_get "$profile" boot config_txt)
[ -f "$config_txt" ] || bw_die "the profile names no config.txt fragment beside it"
bw_foreign_arch arm64

work=$(mktemp -d "$BW_CACHE/sdcard.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"

# The root: Debian + the kiosk's packages + kernel and firmware, cached as a tar (the
# maintainer scripts run under qemu-user; mkinitramfs alone takes a while there).
if [ -n "${BOARDWALK_RPI_SOURCES:-}" ]; then
    kernel=$(bw_profile_get "$profile" boot rpi_os_kernel)
    [ -n "$kernel" ] || bw_die "$board names no rpi_os_kernel"
    bw_log "root: Raspberry Pi OS kernel $kernel (BOARDWALK_RPI_SOURCES)"
    mmdebstrap --variant=minbase --architecture=arm64 \
        --include="$(bw_list "$BW_IMAGES/packages.txt" "$kernel" raspi-firmware $(bw_exporter_packages "$profile"))" \
        --aptopt='APT::Install-Recommends "false"' ${BOARDWALK_RPI_KEYRING:+--keyring="$BOARDWALK_RPI_KEYRING"} \
        "$BW_SUITE" "$root" "deb http://deb.debian.org/debian $BW_SUITE main non-free-firmware" \
        "$BOARDWALK_RPI_SOURCES" >&2
else
    kernel=$(bw_profile_get "$profile" boot kernel)
    [ "$kernel" = linux-image-arm64 ] ||
        bw_die "$board needs $kernel, which Debian does not have: set BOARDWALK_RPI_SOURCES (images/README.md)"
    tar=$(bw_root_tar arm64 "$BW_IMAGES/packages.txt" "$kernel,raspi-firmware" $(bw_exporter_packages "$profile"))
    tar -C "$root" -xf "$tar"
fi

bw_install_system "$root"
bw_enable_exporter "$root" "$profile"
bw_install_kiosk "$root" "$bin" "$profile"
# The operator PIN: PIN=NNNNNN, or a random one printed once; stored only as a salted hash.
bw_set_pin "$root" "${PIN:-}"
bw_lib_names "$root" > "$work/libs"
bw_check_libs "$bin" "$work/libs"

# Partition ids: the initramfs finds the root by PARTUUID.
disk_id=$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
uid=$(awk -F: '$1=="boardwalk"{print $3":"$4}' "$root/etc/passwd")

# A read-only root: the state partition is the only thing written; logs stay in RAM.
# A missing or broken state partition (nofail, 10 s for the device) boots the kiosk anyway,
# with its state in memory and a warning in the journal.
cat > "$root/etc/fstab" <<EOF
# Boardwalk: read-only root, scores and settings on their own partition.
PARTUUID=$disk_id-01  /boot/firmware      vfat   ro,noatime,nodev,nosuid,noexec,umask=0022  0 2
PARTUUID=$disk_id-02  /                   ext4   ro,noatime                                 0 1
PARTUUID=$disk_id-03  /var/lib/boardwalk  ext4   rw,noatime,nodev,nosuid,noexec,commit=5,nofail  0 2
tmpfs                 /tmp                tmpfs  mode=1777,nosuid,nodev,size=32M            0 0
tmpfs                 /var/tmp            tmpfs  mode=1777,nosuid,nodev,size=8M             0 0
EOF
: > "$root/etc/machine-id"   # systemd puts a transient one over it on a read-only root

# Firmware partition: what raspi-firmware's hooks put in /boot/firmware (firmware, kernel,
# initramfs, DTBs, a config.txt naming them), the profile's config.txt lines after the
# generated ones, and a cmdline.txt pointing at the read-only root.
boot=$root/boot/firmware
ls "$boot"/start*.elf >/dev/null 2>&1 || bw_die "no start*.elf in /boot/firmware: raspi-firmware did not install"
compgen -G "$boot/vmlinuz-*" >/dev/null || compgen -G "$boot/kernel*.img" >/dev/null ||
    bw_die "no kernel in /boot/firmware: the kernel hooks did not run"
# The hooks rewrite config.txt on every kernel update and append
# /etc/default/raspi-firmware-custom: the profile's lines go there too, so they stay.
{ echo "# boards/$(basename "$config_txt")"; cat "$config_txt"; } > "$root/etc/default/raspi-firmware-custom"
{
    [ -f "$boot/config.txt" ] && cat "$boot/config.txt"
    printf '\n# Inserted by /etc/default/raspi-firmware-custom\n'
    cat "$root/etc/default/raspi-firmware-custom"
} > "$work/config.txt"
mv "$work/config.txt" "$boot/config.txt"
echo "$(bw_cmdline "$profile") root=PARTUUID=$disk_id-02 rootfstype=ext4 ro" > "$boot/cmdline.txt"

boot_mb=256 state_mb=64
root_mb=$(( $(du -sm --exclude=./boot/firmware "$root" | cut -f1) * 5 / 4 + 64 ))
root_mb=$(( (root_mb + 3) / 4 * 4 ))   # keeps the state partition 4 MiB aligned
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
mkdir -p "$(dirname "$img")"
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
