#!/usr/bin/env bash
# The virtual board on a disk, with A/B updates: booted through UEFI (OVMF on x86, AAVMF on
# arm64) and GRUB, two root slots managed by RAUC's grub backend. Beside build.sh's kernel +
# initrd board (which stays as it was); the state partition stays the virtual board's
# separate state disk (images/boardtest).
#
#   images/virtual-board/build-disk.sh [--bundle-only] [--arch amd64|arm64] BINARY OUTDIR [TESTDATA_DIR]
#
# --arch: the board's CPU (default amd64), as build.sh's; the kiosk binary must be for it
# (a shell script stands in for a broken kiosk on either).
#
# Writes OUTDIR/rootfs.ext4 (this version's root), OUTDIR/update.raucb (its signed bundle),
# OUTDIR/version and, unless --bundle-only, OUTDIR/disk.img: a GPT disk (sparse file)
#   1  esp    64 MiB FAT   EFI/BOOT/BOOTX64.EFI or BOOTAA64.EFI (GRUB), grub.cfg, grubenv
#   2  rootA   1 GiB ext4  this version (kernel and initramfs in /boot), read-only
#   3  rootB   1 GiB ext4  empty until the first update
# The version is $BOARDWALK_IMAGE_VERSION, else `git describe`. Built without loop devices
# (mkfs.ext4 -d, mtools, sfdisk on a file, dd at offsets). The Debian root with the system
# files, kernel and initramfs is cached under $BW_CACHE keyed by its inputs, as is the ESP;
# each build unpacks it, adds the kiosk and makes the ext4 image (~20-40 s).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
bundle_only=no
if [ "${1:-}" = --bundle-only ]; then bundle_only=yes; shift; fi
arch=amd64
if [ "${1:-}" = --arch ]; then arch=$2; shift 2; fi
# What differs between the two boards. The sound card's module: AC97 on x86; USB audio on
# arm64 (Debian's arm64 kernel has no AC97; build.sh). GRUB's EFI platform and the file
# name the firmware starts from a disk without boot entries.
case "$arch" in
    amd64) profile_name=qemu-x86_64 sound=snd_intel8x0 grub_platform=x86_64-efi efi_image=BOOTX64.EFI ;;
    arm64) profile_name=qemu-arm64 sound=snd_usb_audio grub_platform=arm64-efi efi_image=BOOTAA64.EFI ;;
    *) echo "build-disk.sh: --arch amd64|arm64" >&2; exit 2 ;;
esac
# Debian 13, as the Pi cards: its GLib runs the fleet updater (images/fleet/fleet.sh).
BOARDWALK_SUITE=${BOARDWALK_SUITE:-trixie}
# A test board: its bundles are signed with the development key (images/rauc.sh).
export BOARDWALK_RAUC_DEV_KEYS=1
source "$HERE/../lib.sh"
bw_one_build_at_a_time "$0" $([ $bundle_only = no ] || echo --bundle-only) --arch "$arch" "$@"
source "$HERE/test-image.sh"
source "$HERE/../rauc.sh"
source "$HERE/../fleet/fleet.sh"

bin=${1:?usage: build-disk.sh [--bundle-only] [--arch ARCH] BINARY OUTDIR [TESTDATA_DIR]}
out=${2:?usage: build-disk.sh [--bundle-only] [--arch ARCH] BINARY OUTDIR [TESTDATA_DIR]}
testdata=${3:-}
profile=$BW_REPO/boards/$profile_name.conf
compatible=boardwalk-$profile_name
[ -f "$profile" ] || bw_die "no board profile $profile"
[ "$(id -u)" = 0 ] || bw_die "needs root (file owners in the root); run with sudo"
for tool in mkfs.ext4 mkfs.vfat mcopy sfdisk grub-mkimage grub-editenv busybox rauc mksquashfs depmod; do
    command -v "$tool" >/dev/null || bw_die "$tool is missing (scripts/install-deps.sh test)"
done
# A kiosk for another CPU would fail only at the board's boot.
case "$(od -An -tx1 -j18 -N2 "$bin" 2>/dev/null | tr -d ' '):$(head -c4 "$bin" | od -An -c | tr -d ' ')" in
    3e00:177ELF) [ "$arch" = amd64 ] || bw_die "$bin is an x86_64 program; the board is $arch" ;;
    b700:177ELF) [ "$arch" = arm64 ] || bw_die "$bin is an arm64 program; the board is $arch" ;;
    *:177ELF) bw_die "$bin is a program for neither amd64 nor arm64" ;;
esac
[ "$arch" = amd64 ] || bw_foreign_arch "$arch"

# bw_board_deb PACKAGE SUITE [VERSION]: one of Debian's packages for the board's CPU, unpacked
# under the cache (the arm64 board's static busybox and GRUB modules, which this machine's
# own packages are not). Prints the directory.
bw_board_deb() {
    local pkg=$1 suite=$2 ver=${3:-} d
    d=$BW_CACHE/deb-$pkg-$arch-$suite${ver:+-$ver}
    if [ ! -f "$d/.complete" ]; then
        bw_log "$pkg: Debian $suite $arch${ver:+ $ver}"
        rm -rf "$d.part"; mkdir -p "$d.part/deb"
        (cd "$d.part/deb" && bw_apt "$suite" "$arch" apt-get download "$pkg${ver:+=$ver}" >&2) ||
            bw_die "cannot fetch $pkg${ver:+ $ver} for $arch from Debian $suite"
        dpkg-deb -x "$d.part"/deb/*.deb "$d.part"
        rm -rf "$d.part/deb"; touch "$d.part/.complete"
        rm -rf "$d"; mv "$d.part" "$d"
    fi
    echo "$d"
}
# The initramfs's busybox (static) and GRUB's EFI modules, for the board's CPU. On arm64 the
# modules are the release of this machine's grub-mkimage, which builds the image from them.
if [ "$arch" = amd64 ]; then
    busybox=$(command -v busybox)
    grub_ver=$(dpkg-query -W -f='${Version}' grub-efi-amd64-bin 2>/dev/null || echo unknown)
    grub_dir=/usr/lib/grub/x86_64-efi
    [ -d "$grub_dir" ] || bw_die "GRUB's EFI modules are missing (grub-efi-amd64-bin)"
else
    busybox=$(bw_board_deb busybox-static "$BW_SUITE")/usr/bin/busybox
    [ -x "$busybox" ] || busybox=${busybox%/usr/bin/busybox}/bin/busybox
    grub_ver=$(dpkg-query -W -f='${Version}' grub-common)
    grub_dir=$(bw_board_deb grub-efi-arm64-bin "$(. /etc/os-release && echo "$VERSION_CODENAME")" "$grub_ver")/usr/lib/grub/arm64-efi
fi
[ -x "$busybox" ] || bw_die "no static busybox for $arch"
mkdir -p "$out"
version=$(bw_image_version)

# The board's modules (build.sh's list) and what updates need: loop, squashfs and
# dm-verity (mounting a bundle), vfat and its code pages (the ESP, a USB stick), and a USB
# stick itself (xHCI, mass storage, SCSI disks; on arm64 the sound card's bus too); the
# board's hardware watchdog (QEMU's i6300esb on PCI, on both boards, which systemd feeds:
# RuntimeWatchdogSec); virtio_net: the exporter and the fleet.
modules="virtio_gpu virtio_input $sound uinput virtio_console evdev virtio_pci virtio_blk ext4
         loop squashfs dm_verity vfat nls_cp437 nls_ascii nls_utf8 xhci_pci usb_storage sd_mod i6300esb virtio_net"
kdir=$(bw_kernel "$BW_SUITE" "$arch" $modules)
kver=$(cat "$kdir/version")
# The fleet updater (images/fleet/) where the suite's libraries run Debian's package.
fleet_pkgs=""
bw_fleet_supported "$BW_SUITE" && fleet_pkgs=$BW_FLEET_DIR/packages.txt
tar=$(bw_root_tar "$arch" "$BW_IMAGES/packages.txt" "$BW_IMAGES/packages-test.txt" "$BW_IMAGES/packages-rauc.txt" grub-common \
    $fleet_pkgs $(bw_exporter_packages "$profile"))
keys=$(bw_rauc_keys)
cmdline=$(bw_cmdline "$profile")

# --- the initramfs: busybox, the disk's modules, and an init that mounts the slot the
# command line names (root=PARTUUID=..., on a disk that is not USB) read-only and hands over to systemd.
make_initramfs() {
    local dest=$1 ir m f
    ir=$(mktemp -d "$BW_CACHE/initramfs.XXXXXX")
    mkdir -p "$ir/bin" "$ir/dev" "$ir/proc" "$ir/sys" "$ir/root" "$ir/modules"
    cp "$busybox" "$ir/bin/busybox"
    for f in sh mount umount insmod switch_root sleep cat grep sed echo mkdir reboot ls readlink od tr basename; do ln -s busybox "$ir/bin/$f"; done
    # The modules to mount a virtio disk's ext4, in dependency order.
    for m in virtio_pci virtio_blk ext4; do
        modprobe -d "$kdir/mods" -S "$kver" --show-depends "$m" | awk '$1=="insmod"{print $2}'
    done | awk '!seen[$0]++' | while read -r f; do
        case "$f" in
            *.xz) xz -dc "$f" > "$ir/modules/$(basename "${f%.xz}")" ;;
            *.zst) zstd -qdc "$f" > "$ir/modules/$(basename "${f%.zst}")" ;;
            *) cp "$f" "$ir/modules/" ;;
        esac
        m=$(basename "$f"); m=${m%.xz}; m=${m%.zst}
        echo "$m" >> "$ir/modules/order"
    done
    cat > "$ir/init" <<'EOF'
#!/bin/sh
# Boardwalk's A/B initramfs (images/virtual-board/build-disk.sh): loads the disk's modules,
# mounts the partition named by root=PARTUUID=... read-only and starts systemd on it. Only
# disks that are not on USB are searched: a stick holding a copy of this disk has the same
# partition UUIDs. A slot that cannot be mounted reboots the board: GRUB then tries the other.
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /modules/order); do insmod "/modules/$m" 2>/dev/null; done
want=$(sed -n 's/.*root=PARTUUID=\([^ ]*\).*/\1/p' /proc/cmdline | tr A-F a-f)
fail() { echo "boardwalk initramfs: $*; rebooting" > /dev/console; sleep 5; reboot -f; }
[ -n "$want" ] || fail "no root=PARTUUID= on the command line"
# The GPT's unique partition GUIDs (entries from LBA 2, 128 bytes each, the GUID at 16 in
# mixed byte order): the partition number whose GUID is $want on disk $1, if any.
part_of() {
    n=1
    while [ "$n" -le 16 ]; do
        set -- $(od -An -tx1 -v -j $((1024 + (n - 1) * 128 + 16)) -N16 "/dev/$1" 2>/dev/null) "$1"
        [ "$#" -eq 17 ] || return 1
        g="$4$3$2$1-$6$5-$8$7-$9${10}-${11}${12}${13}${14}${15}${16}"
        shift 16
        [ "$g" = "$want" ] && { echo "$n"; return 0; }
        n=$((n + 1))
    done
    return 1
}
dev=""
i=0
while [ -z "$dev" ] && [ "$i" -lt 300 ]; do
    for d in /sys/block/*; do
        k=$(basename "$d")
        case "$(readlink -f "$d")" in */usb*) continue ;; esac
        [ -b "/dev/$k" ] || continue
        if n=$(part_of "$k"); then
            case "$k" in *[0-9]) dev=/dev/${k}p$n ;; *) dev=/dev/$k$n ;; esac
            [ -b "$dev" ] && break
            dev=""
        fi
    done
    [ -n "$dev" ] || { sleep 0.1; i=$((i + 1)); }
done
[ -n "$dev" ] || fail "no partition $want on a disk that is not USB"
mount -t ext4 -o ro "$dev" /root || fail "cannot mount $dev ($want)"
[ -x /root/lib/systemd/systemd ] || fail "$dev holds no system"
mount --move /dev /root/dev
umount /proc /sys
exec switch_root /root /lib/systemd/systemd
EOF
    chmod 0755 "$ir/init"
    (cd "$ir" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet) > "$dest"
    rm -rf "$ir"
}

# --- the cached root: Debian + modules + system files + RAUC + test helpers + kernel.
key=$(bw_key "$tar" "$kver" "$kdir/vmlinuz" "$keys/keyring.pem" "$BW_IMAGES/lib.sh" "$BW_IMAGES/rauc.sh" "$0" \
      "$BW_REPO"/systemd/* "$HERE"/guest/* "$HERE/test-image.sh" "$busybox" "$cmdline" \
      ${fleet_pkgs:+"$BW_FLEET_DIR"/*})
base=$BW_CACHE/diskroot-$arch-$key.tar
if [ ! -s "$base" ]; then
    bw_log "disk root: packing $(basename "$base")"
    tmp=$(mktemp -d "$BW_CACHE/diskroot.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    tar -C "$tmp" -xf "$tar"
    cp -a "$kdir/mods/lib/modules" "$tmp/usr/lib/"
    bw_install_system "$tmp"
    # Under emulation a trial boot may take minutes to the first frame: 15 min.
    # The slots by their place on the system disk (61-boardwalk-system-disk.rules): the
    # disk's own partition UUIDs differ on every disk built, and one bundle serves them all.
    BW_SLOT_CHECK_LIMIT=900 bw_rauc_install "$tmp" grub "$compatible" \
        /dev/disk/boardwalk/part2 /dev/disk/boardwalk/part3
    mkdir -p "$tmp/boot/efi"
    install -m 0644 "$kdir/vmlinuz" "$tmp/boot/vmlinuz"
    make_initramfs "$tmp/boot/initrd.img"
    vb_test_image "$tmp" "$HERE/guest"
    # The profile's node exporter and its network (DHCP): the fleet's server is reached there too.
    bw_enable_exporter "$tmp" "$profile"
    [ -z "$fleet_pkgs" ] || bw_fleet_install "$tmp" "$arch"
    # The fleet's server is reached over the network, which the exporter brings up; a
    # profile without one (qemu-arm64) gets DHCP for the fleet alone.
    [ -z "$fleet_pkgs" ] || [ -n "$(bw_exporter_port "$profile")" ] || bw_enable_dhcp "$tmp"
    # The root is the slot, mounted read-only by the initramfs (no line here). The ESP holds
    # GRUB's environment (RAUC writes it) and the slot check's record; the state disk is
    # found by its label (make_state_disk's bw-state): a copy of it on a stick ranks below
    # it (61-boardwalk-system-disk.rules).
    cat > "$tmp/etc/fstab" <<EOF
/dev/disk/boardwalk/part1  /boot/efi           vfat    rw,noatime,nodev,nosuid,noexec,umask=0077,nofail,x-systemd.device-timeout=90s  0 0
LABEL=bw-state  /var/lib/boardwalk  ext4    rw,noatime,nodev,nosuid,noexec,commit=5,nofail,x-systemd.device-timeout=90s  0 0
tmpfs   /tmp                tmpfs   mode=1777,size=32M,nosuid,nodev  0 0
tmpfs   /var/tmp            tmpfs   mode=1777,size=8M,nosuid,nodev   0 0
EOF
    bw_lib_names "$tmp" > "$base.libs"
    tar -C "$tmp" --numeric-owner -cf "$base.part" .
    mv "$base.part" "$base"
    rm -rf "$tmp"; trap - EXIT
    find "$BW_CACHE" -maxdepth 1 -name "diskroot-$arch-*" ! -name "$(basename "$base")*" -delete 2>/dev/null || true
else
    bw_log "disk root: cached $(basename "$base")"
fi

# --- this version's root: the cached one, the kiosk, its version, made an ext4 image.
bw_check_libs "$bin" "$base.libs"
tmp=$(mktemp -d "$BW_CACHE/diskver.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -C "$tmp" -xf "$base"
bw_install_kiosk "$tmp" "$bin" "$profile"
# No PIN in the root (nor so in the bundle): the board's state disk holds it (test_system.py).
if [ -n "$testdata" ]; then
    mkdir -p "$tmp/usr/share/boardwalk-test"
    cp -a "$testdata/." "$tmp/usr/share/boardwalk-test/"
fi
bw_os_release "$tmp" "$version"
# Sized to the files plus a fifth (and 32 MiB) for ext4's own tables; no journal (never
# written: the root is read-only). A fresh UUID each build: the slot check tells a new
# root from a confirmed one by it.
mb=$(( $(du -sm "$tmp" | cut -f1) * 6 / 5 + 32 ))
[ "$mb" -le 1024 ] || bw_die "the root needs $mb MiB, more than a 1 GiB slot"
rm -f "$out/rootfs.ext4"
mkfs.ext4 -q -F -L bw-root -O ^has_journal -d "$tmp" "$out/rootfs.ext4" "${mb}M"
rm -rf "$tmp"; trap - EXIT
echo "$version" > "$out/version"
bw_rauc_bundle "$out/rootfs.ext4" "$version" "$compatible" "$out/update.raucb"
[ "$bundle_only" = no ] || { bw_log "built $out/update.raucb ($version)"; exit 0; }

# --- the ESP: GRUB (an EFI image with the modules it needs built in), its config and
# environment. Cached: it changes only with GRUB, this recipe and the command line.
esp=$BW_CACHE/esp-$arch-$(bw_key "$grub_ver" "$0" "$cmdline").img
if [ ! -s "$esp" ]; then
    bw_log "esp: GRUB $grub_ver"
    e=$(mktemp -d "$BW_CACHE/esp.XXXXXX")
    grub-mkimage -O "$grub_platform" -d "$grub_dir" -p /EFI/BOOT -o "$e/$efi_image" \
        part_gpt fat ext2 normal linux loadenv test regexp echo sleep reboot efi_gop probe
    cat > "$e/grub.cfg" <<EOF
# Boardwalk's A/B boot (images/virtual-board/build-disk.sh). RAUC's grub backend keeps
# grubenv: ORDER (the slots, preferred first), X_OK=1 (slot X may boot) and X_TRY=1 (a boot
# of X began and was not confirmed yet: \`rauc status mark-good\` clears it, mark-bad sets
# X_OK=0). Each boot takes the first slot in ORDER that may boot and is not mid-try, and
# marks the try; a slot whose boot never got confirmed is passed over next time.
set timeout=0
set ORDER="A B"
set A_OK=0
set A_TRY=0
set B_OK=0
set B_TRY=0
load_env --file \${prefix}/grubenv ORDER A_OK A_TRY B_OK B_TRY
regexp --set 1:bwdisk '^([^,]+),' "\$root"
set bwslot=""
for s in \$ORDER; do
    if [ -z "\$bwslot" ]; then
        if [ "\$s" = A ]; then
            if [ "\$A_OK" = 1 ]; then if [ "\$A_TRY" = 0 ]; then set bwslot=A; set A_TRY=1; fi; fi
        fi
        if [ "\$s" = B ]; then
            if [ "\$B_OK" = 1 ]; then if [ "\$B_TRY" = 0 ]; then set bwslot=B; set B_TRY=1; fi; fi
        fi
    fi
done
if [ -z "\$bwslot" ]; then
    # Every good slot is mid-try (each failed its last boot): keep trying the first good
    # one rather than stop; with none good, slot A.
    for s in \$ORDER; do
        if [ -z "\$bwslot" ]; then
            if [ "\$s" = A ]; then if [ "\$A_OK" = 1 ]; then set bwslot=A; fi; fi
            if [ "\$s" = B ]; then if [ "\$B_OK" = 1 ]; then set bwslot=B; fi; fi
        fi
    done
    if [ -z "\$bwslot" ]; then set bwslot=A; fi
fi
save_env --file \${prefix}/grubenv A_TRY B_TRY
if [ "\$bwslot" = A ]; then set bwpart=gpt2; else set bwpart=gpt3; fi
# The root by its partition UUID on this disk (the one the firmware started GRUB from): each
# disk gets its own at build time, so a stick holding a copy of another board's is not it.
probe --set=bwuuid --part-uuid (\$bwdisk,\$bwpart)
echo "Boardwalk: slot \$bwslot (ORDER=\$ORDER A_OK=\$A_OK A_TRY=\$A_TRY B_OK=\$B_OK B_TRY=\$B_TRY)"
if linux (\$bwdisk,\$bwpart)/boot/vmlinuz root=PARTUUID=\$bwuuid ro rauc.slot=\$bwslot $cmdline; then
    if initrd (\$bwdisk,\$bwpart)/boot/initrd.img; then
        boot
    fi
fi
echo "Boardwalk: slot \$bwslot does not boot; restarting (the next boot takes the other slot)"
sleep 5
reboot
EOF
    # A fresh disk: slot A is good and preferred, B holds nothing yet.
    grub-editenv "$e/grubenv" create
    grub-editenv "$e/grubenv" set ORDER="A B" A_OK=1 A_TRY=0 B_OK=0 B_TRY=0
    rm -f "$esp.part"
    mkfs.vfat -F 32 -n ESP -C "$esp.part" $((64 * 1024)) >/dev/null
    mmd -i "$esp.part" ::/EFI ::/EFI/BOOT ::/boardwalk ::/boardwalk/rauc
    mcopy -i "$esp.part" "$e/$efi_image" "$e/grub.cfg" "$e/grubenv" ::/EFI/BOOT/
    rm -rf "$e"
    mv "$esp.part" "$esp"
    find "$BW_CACHE" -maxdepth 1 -name "esp-$arch-*.img" ! -name "$(basename "$esp")" -delete 2>/dev/null || true
fi

# --- the disk: GPT, the ESP and slot A written at their offsets. Its own disk GUID and
# partition UUIDs, random for each disk built (GRUB names the root by its UUID; fstab and
# RAUC find the partitions by their place on the system disk).
disk=$out/disk.img
rm -f "$disk"
truncate -s $(( (1 + 64 + 1024 + 1024 + 1) * 1024 * 1024 )) "$disk"
uuid() { cat /proc/sys/kernel/random/uuid; }
sfdisk -q --no-reread --no-tell-kernel "$disk" <<EOF
label: gpt
label-id: $(uuid)
unit: sectors
start=2048, size=$((64 * 2048)), type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name=esp, uuid=$(uuid)
start=$(( (1 + 64) * 2048 )), size=$((1024 * 2048)), type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name=rootA, uuid=$(uuid)
start=$(( (1 + 64 + 1024) * 2048 )), size=$((1024 * 2048)), type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name=rootB, uuid=$(uuid)
EOF
dd if="$esp" of="$disk" bs=1M seek=1 conv=notrunc,sparse status=none
dd if="$out/rootfs.ext4" of="$disk" bs=1M seek=65 conv=notrunc,sparse status=none
bw_log "built $disk ($version in slot A; $(du -m "$disk" | cut -f1) MB used of $(( $(stat -c %s "$disk") >> 20 )) MB)"
