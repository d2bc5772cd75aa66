# Boardwalk: U-Boot's boot script on a Raspberry Pi card with Debian's kernel, which cannot
# hand the firmware the tryboot flag (images/rpi/build-sdcard.sh makes it boot.scr on
# partition 1 with mkimage). The firmware starts U-Boot from the committed slot's boot
# partition; this script picks the kernel:
#   boardwalk/boot.env   bw_committed=A|B   the committed slot (rauc-tryboot-backend)
#   boardwalk/trial.env  bw_trial=A|B|none  a slot to try once (set-primary arms it)
# A trial is taken once: bw_trial=none is written back before its kernel starts, so a trial
# that panics, hangs or never gets READY resets into the committed slot. A trial that cannot
# be written back is not taken (it could not end). (env export counts the string's NUL: the
# file written back is text without it.) U-Boot's hush: no comments inside if blocks, no
# single quotes.
#
# Memory (RAM from 0 on every Pi; 512 MiB on a Zero 2 W): the gzip'd kernel is read at
# 64 MiB, unpacked at 160 MiB, the initramfs at 224 MiB; the firmware's device tree, which
# carries config.txt's overlays, is used where it is (fdt_addr).
setenv bw_env_addr 0x01000000
setenv bw_gz_addr 0x04000000
setenv kernel_comp_addr_r 0x0a000000
setenv bw_initramfs_addr 0x0e000000

setenv bw_committed A
setenv bw_trial none
if load ${devtype} ${devnum}:1 ${bw_env_addr} boardwalk/boot.env; then
    env import -t ${bw_env_addr} ${filesize} bw_committed
fi
if test "${bw_committed}" != B; then setenv bw_committed A; fi
setenv bw_slot ${bw_committed}
if load ${devtype} ${devnum}:1 ${bw_env_addr} boardwalk/trial.env; then
    env import -t ${bw_env_addr} ${filesize} bw_trial
fi
if test "${bw_trial}" = A -o "${bw_trial}" = B; then
    if test "${bw_trial}" != "${bw_committed}"; then
        setenv bw_try ${bw_trial}
        setenv bw_trial none
        env export -t ${bw_env_addr} bw_trial
        setexpr filesize ${filesize} - 1
        if fatwrite ${devtype} ${devnum}:1 ${bw_env_addr} boardwalk/trial.env ${filesize}; then
            setenv bw_slot ${bw_try}
        else
            echo "Boardwalk: cannot write boardwalk/trial.env: slot ${bw_try} is not tried"
        fi
    fi
fi

if test "${bw_slot}" = B; then setenv bw_part 3; else setenv bw_part 2; fi
echo "Boardwalk: slot ${bw_slot} (committed ${bw_committed}), boot partition ${bw_part}"
setenv bw_kernel
setenv bw_initramfs
setenv bootargs
if load ${devtype} ${devnum}:${bw_part} ${bw_env_addr} slot.env; then
    env import -t ${bw_env_addr} ${filesize} bw_kernel bw_initramfs bootargs
fi
if load ${devtype} ${devnum}:${bw_part} ${bw_gz_addr} ${bw_kernel}; then
    setenv kernel_comp_size ${filesize}
    if load ${devtype} ${devnum}:${bw_part} ${bw_initramfs_addr} ${bw_initramfs}; then
        booti ${bw_gz_addr} ${bw_initramfs_addr}:${filesize} ${fdt_addr}
    fi
fi
# Only when the slot's boot partition lacks what slot.env names: a trial is over (a reset
# starts the committed slot); a committed slot that cannot start is tried again.
echo "Boardwalk: slot ${bw_slot} did not start (slot.env: kernel ${bw_kernel}, initramfs ${bw_initramfs}); resetting"
sleep 5
reset
