#!/usr/bin/env bash
# Builds an SD-card image for a Raspberry Pi board profile from Debian 13's archive, the
# way Debian's own Raspberry Pi images are made: linux-image-arm64 (its DTBs included)
# and raspi-firmware, whose kernel hooks put the firmware, kernel, initramfs and DTBs in
# /boot/firmware and write a config.txt with arm_64bit=1.
#
#   images/rpi/build-sdcard.sh BOARD ARM64_BINARY OUT.img
#   e.g. images/rpi/build-sdcard.sh rpi4-official-7in out/arm64/boardwalk out/rpi4.img
#
# With Debian's kernel the card carries this project's display overlays (boards/overlays) that
# the profile's config.txt names. The Raspberry Pi kernel instead (Pi 5; the 7" display's
# touch and the SPI panels, which Debian's kernel does not drive: boards/README.md):
# BOARDWALK_RPI_SOURCES=FILE names an apt source file for the Raspberry Pi OS archive, and its
# keyring goes in BOARDWALK_RPI_KEYRING; the profile's [boot] rpi_os_kernel is then
# installed, with its own overlays. See images/README.md.
#
# Layout (MBR; partitions 4 MiB aligned), A/B slots chosen by the firmware (autoboot.txt):
#   1  FAT16 "BW-AUTOBOOT" 32 MiB  autoboot.txt (which boot partition the firmware starts; a
#                                  trial of the other through tryboot), bootcode.bin, and
#                                  boardwalk/ (the slots' states, RAUC's status, the slot
#                                  check's record); mounted on /boot/firmware
#   2  FAT32 "BW-BOOT"    256 MiB  slot A's boot partition: firmware, kernel, initramfs, DTBs,
#                                  config.txt, cmdline.txt (root= partition 5, rauc.slot=A)
#   3  FAT32 "BW-BOOT"    256 MiB  slot B's (root= partition 6, rauc.slot=B)
#   4  extended
#   5  ext4  "bw-root"             slot A's root, read-only
#   6                              slot B's root: empty until the first update (slot B is
#                                  marked bad until then)
#   7  ext4  "bw-state"    64 MiB  /var/lib/boardwalk: scores and settings, the only place the
#                                  kiosk writes, which updates never touch (nofail)
# With Debian's kernel, which cannot pass the firmware the tryboot flag, the firmware starts
# U-Boot (Debian's u-boot-rpi, GPL-2.0+) from the committed slot's boot partition, and U-Boot's
# boot script (boot.cmd, boot.scr on partition 1) starts the committed slot's kernel or, once,
# a slot on trial (rauc-tryboot-backend's U-Boot mode); a boot partition then holds slot.env
# (kernel, initramfs, bootargs=) instead of cmdline.txt, and partition 1 U-Boot's
# environment (uboot.env: no delay, no keyboard, no USB scan).
# Each card gets its own random disk id (BOARDWALK_RPI_DISK_ID sets one): cmdline.txt names
# the root by PARTUUID=<disk id>-05|06; fstab and RAUC's slots name the partitions by their
# number on the disk the root is on (/dev/disk/boardwalk/partN, 61-boardwalk-system-disk.rules),
# so one bundle fits every card, and a USB stick holding a copy of a card takes none of them.
# Next to the card, OUT.raucb: a signed RAUC bundle of slot A's boot and root file systems,
# signed with the product's key (BOARDWALK_RAUC_KEYDIR); a test card may use images/rauc.sh's
# development key instead (BOARDWALK_RAUC_DEV_KEYS=1), never a product build.
#
# Needs root, mmdebstrap, dosfstools, mtools, e2fsprogs, fdisk, rauc, squashfs-tools,
# u-boot-tools and qemu-user-static with binfmt_misc (scripts/install-deps.sh arm64). No loop
# devices: the file systems are made from directories (mkfs.ext4 -d, mcopy) and put together
# with sfdisk and dd.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BOARDWALK_SUITE=${BOARDWALK_SUITE:-trixie}
source "$HERE/../lib.sh"
source "$HERE/../rauc.sh"

board=${1:?usage: build-sdcard.sh BOARD ARM64_BINARY OUT.img}
bin=${2:?usage: build-sdcard.sh BOARD ARM64_BINARY OUT.img}
img=${3:?usage: build-sdcard.sh BOARD ARM64_BINARY OUT.img}
bundle=${img%.img}.raucb
profile=$BW_REPO/boards/$board.conf
[ -f "$profile" ] || bw_die "no board profile $profile"
[ "$(bw_profile_get "$profile" board arch)" = arm64 ] || bw_die "$board is not an arm64 board"
[ "$(id -u)" = 0 ] || bw_die "needs root (file owners and device nodes in the root)"
for tool in mmdebstrap mkfs.vfat mcopy mkfs.ext4 sfdisk readelf systemd-sysusers rauc mksquashfs openssl dtc mkimage mkenvimage; do
    command -v "$tool" >/dev/null || bw_die "$tool is missing (scripts/install-deps.sh arm64)"
done
case "$(readelf -h "$bin" 2>/dev/null | sed -n 's/.*Machine: *//p')" in
    *AArch64*) ;;
    *) bw_die "$bin is not an arm64 binary (make arm64)" ;;
esac
config_txt=$BW_REPO/boards/$(bw_profile_get "$profile" boot config_txt)
[ -f "$config_txt" ] || bw_die "the profile names no config.txt fragment beside it"
# The bundle's compatible: a bundle carries the board's config.txt lines and profile, so it
# fits that board only.
compatible=boardwalk-$board
version=$(bw_image_version)
disk_id=${BOARDWALK_RPI_DISK_ID:-}
while [ -z "$disk_id" ] || [ "$disk_id" = 00000000 ]; do disk_id=$(od -An -tx1 -N4 /dev/urandom | tr -d ' \n'); done
[[ "$disk_id" =~ ^[0-9a-f]{8}$ ]] || bw_die "BOARDWALK_RPI_DISK_ID=$disk_id: 8 lower-case hex digits"
# The signing key first (a product build without its own key stops here, not after the root).
bw_rauc_keys > /dev/null
bw_foreign_arch arm64

work=$(mktemp -d "$BW_CACHE/sdcard.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"

# The root: Debian + the kiosk's packages + kernel, firmware and RAUC (packages.txt here),
# cached as a tar (the maintainer scripts run under qemu-user; mkinitramfs alone takes a
# while there).
if [ -n "${BOARDWALK_RPI_SOURCES:-}" ]; then
    kernel=$(bw_profile_get "$profile" boot rpi_os_kernel)
    [ -n "$kernel" ] || bw_die "$board names no rpi_os_kernel"
    bw_log "root: Raspberry Pi OS kernel $kernel (BOARDWALK_RPI_SOURCES)"
    mmdebstrap --variant=minbase --architecture=arm64 \
        --include="$(bw_list "$BW_IMAGES/packages.txt" "$HERE/packages.txt" "$kernel" $(bw_exporter_packages "$profile"))" \
        --aptopt='APT::Install-Recommends "false"' ${BOARDWALK_RPI_KEYRING:+--keyring="$BOARDWALK_RPI_KEYRING"} \
        "$BW_SUITE" "$root" "deb http://deb.debian.org/debian $BW_SUITE main non-free-firmware" \
        "$BOARDWALK_RPI_SOURCES" >&2
    # Its firmware driver hands the firmware the tryboot flag of `reboot "0 tryboot"`.
    trial=tryboot
    # Its own overlays (vc4-kms-dsi-7inch, piscreen...) drive the displays, not boards/overlays.
    own_overlays=no
else
    kernel=$(bw_profile_get "$profile" boot kernel)
    [ "$kernel" = linux-image-arm64 ] ||
        bw_die "$board needs $kernel, which Debian does not have: set BOARDWALK_RPI_SOURCES (images/README.md)"
    # One sorted list: the cached root does not depend on which list names a package.
    # Debian's upstream kernel passes the firmware no reboot flags (its Raspberry Pi firmware
    # driver only notifies the reboot): U-Boot tries a new slot (boot.cmd).
    trial=uboot
    tar=$(bw_root_tar arm64 "$(bw_list "$BW_IMAGES/packages.txt" "$HERE/packages.txt" "$kernel" u-boot-rpi $(bw_exporter_packages "$profile") | tr , '\n' | sort -u | paste -sd, -)")
    tar -C "$root" -xf "$tar"
    [ -f "$root/usr/lib/u-boot/rpi_arm64/u-boot.bin" ] || bw_die "u-boot-rpi has no rpi_arm64/u-boot.bin"
    own_overlays=yes
fi

# The initramfs and the kernel the firmware reads from the card at every boot, cut to what a
# kiosk's boot needs: Debian's generic initramfs (MODULES=most: every storage and file
# system driver, 36.8 MB) becomes one with the modules of initramfs-modules that this
# kernel has (MODULES=list: the SD card's controller and ext4), made again in the root
# (mkinitramfs under qemu-user); an uncompressed arm64 Image on the boot partition (Debian's:
# 37.7 MB) is gzip'd, which the firmware of the Pi 3, 4, 5 and Zero 2 W unpacks itself
# (config.txt's kernel= may name a gzip archive of an Image).
bw_rpi_boot_files() {
    local root=$1 boot=$1/boot/firmware kver m f mods old new
    mkdir -p "$root/etc/initramfs-tools/conf.d"
    printf '# Boardwalk (images/rpi/build-sdcard.sh): only the modules in ../modules.\nMODULES=list\n' \
        > "$root/etc/initramfs-tools/conf.d/boardwalk.conf"
    for kver in $(ls "$root/usr/lib/modules"); do
        [ -f "$root/boot/initrd.img-$kver" ] || continue
        mods=$(sed -e 's/#.*//' "$HERE/initramfs-modules" | while read -r m; do
            [ -z "$m" ] || ! modprobe -d "$root" -S "$kver" --show-depends "$m" >/dev/null 2>&1 || echo "$m"; done)
        { echo "# Boardwalk (images/rpi/initramfs-modules): what this kernel has of them."; echo "$mods"; } \
            > "$root/etc/initramfs-tools/modules"
        old=$(du -k "$root/boot/initrd.img-$kver" | cut -f1)
        cp "$root/boot/initrd.img-$kver" "$work/initrd-generic"
        chroot "$root" mkinitramfs -o "/boot/initrd.img-$kver" "$kver" >&2 || bw_die "mkinitramfs failed for $kver"
        new=$(du -k "$root/boot/initrd.img-$kver" | cut -f1)
        # Where the kernel hooks copied the generic one (raspi-firmware: initrd.img-VERSION).
        for f in "$boot"/*; do
            [ -f "$f" ] && cmp -s "$f" "$work/initrd-generic" && cp "$root/boot/initrd.img-$kver" "$f"
        done
        bw_log "initramfs $kver: ${old} KiB -> ${new} KiB (modules: $(echo $mods))"
    done
    for f in "$boot"/*; do
        # An arm64 Image has "ARM\x64" at byte 56.
        [ -f "$f" ] && [ "$(dd if="$f" bs=1 skip=56 count=4 status=none 2>/dev/null)" = $'ARM\x64' ] || continue
        old=$(du -k "$f" | cut -f1)
        gzip -9n < "$f" > "$f.gz" && mv "$f.gz" "$f"
        bw_log "kernel $(basename "$f"): ${old} KiB -> $(du -k "$f" | cut -f1) KiB (gzip)"
    done
}
bw_rpi_boot_files "$root"

bw_install_system "$root"
bw_enable_exporter "$root" "$profile"
bw_install_kiosk "$root" "$bin" "$profile"
bw_lib_names "$root" > "$work/libs"
bw_check_libs "$bin" "$work/libs"
bw_os_release "$root" "$version"

# A/B updates: RAUC with the tryboot backend; slot A = boot partition 2 + root 5, slot B =
# boot 3 + root 6 (each boot partition a child of its root slot: they are written together).
install -D -m 0755 "$HERE/rauc-tryboot-backend" "$root/usr/lib/boardwalk/rauc-tryboot-backend"
printf '%s\n' "# How rauc-tryboot-backend tries a new slot (images/rpi/build-sdcard.sh): tryboot (one" \
    "# trial boot through the firmware's tryboot flag, committed by mark-good) or uboot (the" \
    "# same, U-Boot's boot script taking the trial once), for kernels that cannot pass the" \
    "# firmware the tryboot flag (Debian's)." "TRIAL=$trial" > "$root/etc/boardwalk/tryboot.conf"
# The slots by their number on the system disk: the same in every bundle, whatever the card's id.
BW_RAUC_CUSTOM_BACKEND=/usr/lib/boardwalk/rauc-tryboot-backend BW_RAUC_DATA_DIR=/boot/firmware/boardwalk \
    bw_rauc_install "$root" custom "$compatible" /dev/disk/boardwalk/part5 /dev/disk/boardwalk/part6
printf '\n[slot.boot.0]\ndevice=/dev/disk/boardwalk/part2\ntype=vfat\nparent=rootfs.0\n\n[slot.boot.1]\ndevice=/dev/disk/boardwalk/part3\ntype=vfat\nparent=rootfs.1\n' \
    >> "$root/etc/rauc/system.conf"

uid=$(awk -F: '$1=="boardwalk"{print $3":"$4}' "$root/etc/passwd")
# A read-only root: the state partition is the only place the kiosk writes; logs stay in
# RAM. A missing or broken state partition (nofail) boots the kiosk anyway, with its state
# in memory and a warning in the journal. The root is not in fstab: it is slot A's or B's
# (one image for both), mounted read-only by the initramfs from cmdline.txt (root=, ro).
# Partition 1 is written only by RAUC, its backend and the slot check (rarely; `flush`).
cat > "$root/etc/fstab" <<EOF
# Boardwalk: read-only root (slot A or B: cmdline.txt), scores and settings on their own
# partition, the boot selection (autoboot.txt, the slots' states) on partition 1.
/dev/disk/boardwalk/part1  /boot/firmware      vfat   rw,noatime,flush,nodev,nosuid,noexec,umask=0077,nofail  0 2
/dev/disk/boardwalk/part7  /var/lib/boardwalk  ext4   rw,noatime,nodev,nosuid,noexec,commit=5,nofail  0 2
tmpfs                 /tmp                tmpfs  mode=1777,nosuid,nodev,size=32M            0 0
tmpfs                 /var/tmp            tmpfs  mode=1777,nosuid,nodev,size=8M             0 0
EOF
: > "$root/etc/machine-id"   # systemd puts a transient one over it on a read-only root
# No clock: a Pi starts in 1970 (systemd lifts it to its build date), behind the state
# partition's last write; e2fsck must not take that for damage at boot.
printf '# Boardwalk: a Raspberry Pi has no clock.\n[options]\nbroken_system_clock = true\n' > "$root/etc/e2fsck.conf"

# Boot partitions: what raspi-firmware's hooks put in /boot/firmware (firmware, kernel,
# initramfs, DTBs, a config.txt naming them), the profile's config.txt lines after the
# generated ones, and a cmdline.txt per slot pointing at its read-only root.
boot=$root/boot/firmware
ls "$boot"/start*.elf >/dev/null 2>&1 || bw_die "no start*.elf in /boot/firmware: raspi-firmware did not install"
compgen -G "$boot/vmlinuz-*" >/dev/null || compgen -G "$boot/kernel*.img" >/dev/null ||
    bw_die "no kernel in /boot/firmware: the kernel hooks did not run"
# This project's display overlays (boards/overlays), written for Debian's DTBs, which carry
# __symbols__: the firmware applies those the profile's config.txt names (dtoverlay=boardwalk-*)
# from overlays/ on the boot partition, as it does raspi-firmware's own. A panel-mipi-dbi
# panel's init file goes to /usr/lib/firmware, named after the panel's first compatible.
if [ "$own_overlays" = yes ]; then
    for name in $(sed -n 's/^dtoverlay=\(boardwalk-[^,[:space:]]*\).*/\1/p' "$config_txt"); do
        dts=$BW_REPO/boards/overlays/$name.dts
        [ -f "$dts" ] || bw_die "$(basename "$config_txt") names $name, which is not in boards/overlays"
        mkdir -p "$boot/overlays"
        dtc -@ -q -I dts -O dtb -o "$boot/overlays/$name.dtbo" "$dts"
        for panel in $(sed -n 's/.*compatible = "\([^"]*\)", "panel-mipi-dbi-spi".*/\1/p' "$dts"); do
            install -d "$root/usr/lib/firmware"
            python3 "$BW_REPO/boards/overlays/mipi-dbi-cmds.py" "$BW_REPO/boards/overlays/$panel.txt" "$root/usr/lib/firmware/$panel.bin"
        done
        bw_log "overlay $name (boards/overlays) on the boot partitions"
    done
fi
# The hooks rewrite config.txt on every kernel update and append
# /etc/default/raspi-firmware-custom: the profile's lines go there too, so they stay.
{ echo "# boards/$(basename "$config_txt")"; cat "$config_txt"; } > "$root/etc/default/raspi-firmware-custom"
{
    [ -f "$boot/config.txt" ] && cat "$boot/config.txt"
    printf '\n# Inserted by /etc/default/raspi-firmware-custom\n'
    cat "$root/etc/default/raspi-firmware-custom"
} > "$work/config.txt"
mv "$work/config.txt" "$boot/config.txt"
cmdline_of() { echo "$(bw_cmdline "$profile") root=PARTUUID=$disk_id-$2 rootfstype=ext4 ro rauc.slot=$1"; }
# U-Boot mode: the firmware starts U-Boot; the kernel and initramfs the hooks named in
# config.txt go to each slot's slot.env, which boot.scr reads.
if [ "$trial" = uboot ]; then
    uboot_kernel=$(sed -n 's/^kernel=//p' "$boot/config.txt" | tail -n 1)
    uboot_initramfs=$(sed -n 's/^initramfs \([^ ]*\).*/\1/p' "$boot/config.txt" | tail -n 1)
    [ -f "$boot/$uboot_kernel" ] && [ -f "$boot/$uboot_initramfs" ] ||
        bw_die "config.txt names kernel '$uboot_kernel' and initramfs '$uboot_initramfs', not both on the boot partition"
    cp "$root/usr/lib/u-boot/rpi_arm64/u-boot.bin" "$boot/u-boot.bin"
    sed -i -e 's/^kernel=.*/kernel=u-boot.bin/' -e '/^initramfs /d' "$boot/config.txt"
    bw_log "U-Boot (u-boot-rpi $(sed -n '/^Package: u-boot-rpi$/,/^$/s/^Version: //p' "$root/var/lib/dpkg/status")) starts $uboot_kernel and $uboot_initramfs"
fi

# Partition 1: autoboot.txt (slot A committed, B to try), the slots' states (B has no
# system yet), and bootcode.bin, which the Pi 3 and Zero 2 W boot ROM loads from here.
mkdir -p "$work/bootsel/boardwalk"
printf '[all]\ntryboot_a_b=1\nboot_partition=2\n[tryboot]\nboot_partition=3\n' > "$work/bootsel/autoboot.txt"
printf '# Boardwalk'"'"'s A/B slots (rauc-tryboot-backend): good/bad, and a slot on trial.\nA=good\nB=bad\ntrial=none\n' \
    > "$work/bootsel/boardwalk/slots"
[ -f "$boot/bootcode.bin" ] && cp "$boot/bootcode.bin" "$work/bootsel/"
if [ "$trial" = uboot ]; then
    # U-Boot scans the bootable partition (this one) for boot.scr, and reads its environment
    # from uboot.env here (its default one with the kiosk's changes, rpi/uboot-env.py: no
    # delay, no keyboard, no USB scan; 16 KiB, rpi_arm64's CONFIG_ENV_SIZE).
    mkimage -A arm64 -T script -C none -n "Boardwalk A/B" -d "$HERE/boot.cmd" "$work/bootsel/boot.scr" >&2
    python3 "$HERE/uboot-env.py" "$boot/u-boot.bin" > "$work/uboot-env.txt"
    mkenvimage -s 0x4000 -o "$work/bootsel/uboot.env" "$work/uboot-env.txt"
    printf 'bw_committed=A\n' > "$work/bootsel/boardwalk/boot.env"
fi

sel_mb=32 boot_mb=256 state_mb=64
root_fs_mb=$(( $(du -sm --exclude=./boot/firmware "$root" | cut -f1) * 5 / 4 + 64 ))
root_fs_mb=$(( (root_fs_mb + 3) / 4 * 4 ))
# A slot holds the next versions' roots too: half as much again, unless told.
slot_mb=${BOARDWALK_RPI_SLOT_MB:-$(( (root_fs_mb * 3 / 2 + 3) / 4 * 4 ))}
(( slot_mb % 4 == 0 && slot_mb >= root_fs_mb )) || bw_die "BOARDWALK_RPI_SLOT_MB=$slot_mb: a multiple of 4, at least the root's $root_fs_mb MiB"
bw_log "partitions: autoboot ${sel_mb} MiB, boot 2 x ${boot_mb} MiB, root 2 x ${slot_mb} MiB (file system ${root_fs_mb} MiB), state ${state_mb} MiB"

export MTOOLS_SKIP_CHECK=1
mkfs.vfat -F 16 -n BW-AUTOBOOT -C "$work/bootsel.img" $((sel_mb * 1024)) >&2
mcopy -s -i "$work/bootsel.img" "$work/bootsel"/* ::/
for slot in A B; do
    part=05; [ "$slot" = B ] && part=06
    if [ "$trial" = uboot ]; then
        rm -f "$boot/cmdline.txt"
        printf 'bw_kernel=%s\nbw_initramfs=%s\nbootargs=%s\n' "$uboot_kernel" "$uboot_initramfs" \
            "$(cmdline_of "$slot" "$part")" > "$boot/slot.env"
    else
        cmdline_of "$slot" "$part" > "$boot/cmdline.txt"
    fi
    mkfs.vfat -F 32 -n BW-BOOT -C "$work/boot-$slot.img" $((boot_mb * 1024)) >&2
    mcopy -s -i "$work/boot-$slot.img" "$boot"/* ::/
done
mv "$boot" "$work/boot-files" && mkdir "$boot"   # an empty mount point in the root
mkfs.ext4 -q -L bw-root -d "$root" "$work/root.img" "${root_fs_mb}M"
mkdir -p "$work/state"
# The operator PIN: PIN=NNNNNN, or a random one printed once; stored only as a salted hash,
# on the state partition (the bundle's root carries none, and an update keeps the PIN).
bw_set_pin "$work/state" "${PIN:-}"
mkfs.ext4 -q -L bw-state -E root_owner="$uid" -d "$work/state" "$work/state.img" "${state_mb}M"

# The card: 4 MiB for the MBR and alignment, partitions 1-3, then the extended partition
# with an EBR and 4 MiB of alignment before each logical one.
off=4
p1=$off p2=$((off + sel_mb)) p3=$((off + sel_mb + boot_mb)) ext=$((off + sel_mb + 2 * boot_mb))
p5=$((ext + 4)) p6=$((ext + 4 + slot_mb + 4)) p7=$((ext + 4 + 2 * (slot_mb + 4)))
total=$((p7 + state_mb + 4))
mkdir -p "$(dirname "$img")"
rm -f "$img"; truncate -s "${total}M" "$img"
sfdisk --quiet "$img" <<EOF
label: dos
label-id: 0x$disk_id
start=${p1}MiB, size=${sel_mb}MiB, type=e, bootable
start=${p2}MiB, size=${boot_mb}MiB, type=c
start=${p3}MiB, size=${boot_mb}MiB, type=c
start=${ext}MiB, type=5
start=${p5}MiB, size=${slot_mb}MiB, type=83
start=${p6}MiB, size=${slot_mb}MiB, type=83
start=${p7}MiB, size=${state_mb}MiB, type=83
EOF
put() { dd if="$1" of="$img" bs=1M seek="$2" conv=notrunc,sparse status=none; }
put "$work/bootsel.img" "$p1"
put "$work/boot-A.img" "$p2"
put "$work/boot-B.img" "$p3"
put "$work/root.img" "$p5"
put "$work/state.img" "$p7"
bw_log "built $img (${total} MiB, version $version): write it with dd or rpi-imager, then boot"

# The bundle: slot A's boot and root file systems (set-primary points the boot partition's
# cmdline.txt or slot.env at the slot it lands in), signed.
keys=$(bw_rauc_keys)
mkdir "$work/bundle"
mv "$work/boot-A.img" "$work/bundle/boot.vfat"
mv "$work/root.img" "$work/bundle/rootfs.ext4"
cat > "$work/bundle/manifest.raucm" <<EOF
[update]
compatible=$compatible
version=$version
description=Boardwalk $version for $board

[bundle]
format=verity

[image.boot]
filename=boot.vfat

[image.rootfs]
filename=rootfs.ext4
EOF
part=${bundle%.raucb}.part.raucb
rm -f "$bundle" "$part"
rauc bundle --cert="$keys/cert.pem" --key="$keys/key.pem" --keyring="$keys/keyring.pem" \
    --mksquashfs-args="$BW_RAUC_MKSQUASHFS_ARGS" "$work/bundle" "$part" >&2 || bw_die "rauc bundle failed"
mv "$part" "$bundle"
# The card's own RAUC (trixie's, under qemu-user) reads its system.conf and checks the bundle
# against the card's keyring: what `rauc install` on the board does first.
ln "$bundle" "$root/tmp/check.raucb" 2>/dev/null || cp "$bundle" "$root/tmp/check.raucb"
chroot "$root" /usr/bin/rauc --conf=/etc/rauc/system.conf info /tmp/check.raucb > "$work/info" 2>&1 ||
    { cat "$work/info" >&2; bw_die "the card's rauc does not accept its system.conf or the bundle"; }
bw_log "the card's $(chroot "$root" /usr/bin/rauc --version) accepts the bundle: $(grep -m1 -i 'verified' "$work/info" | sed 's/.*: //')"
bw_log "built $bundle ($compatible, $version, $(du -m "$bundle" | cut -f1) MB): rauc install it on a card of this board"
