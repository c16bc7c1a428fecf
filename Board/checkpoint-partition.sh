#!/usr/bin/env bash
# Prepares a small raw partition for [resume] checkpoint_device (docs/design/RESUME.md, "Resume and SD-card
# writes"), so that the power-cut checkpoint costs the card one sector and no file system
# journal commit:
#   sudo Board/checkpoint-partition.sh /dev/mmcblk0p3
# It checks that the partition is not mounted, not swap, at most 64 MiB and holds no file
# system or partition table (blkid), clears its first 4 KiB, lets the jukebox user write to
# it (a udev rule, applied at once) and prints the config line. It never touches anything else.
# Environment (for tests): JUKEBOX_USER (jukebox), JUKEBOX_UDEV_RULES_DIR (/etc/udev/rules.d),
# JUKEBOX_ALLOW_WHOLE_DEVICE=1 to accept a device that is not a partition (a loop device).
set -euo pipefail
fail() { echo "checkpoint-partition.sh: $*" >&2; exit 1; }

[ $# -eq 1 ] || fail "usage: sudo Board/checkpoint-partition.sh /dev/PARTITION"
device=$1
owner=${JUKEBOX_USER:-jukebox}
rules_dir=${JUKEBOX_UDEV_RULES_DIR:-/etc/udev/rules.d}
[ "$(id -u)" -eq 0 ] || fail "run me with sudo"
real=$(readlink -f "$device")
[ -b "$real" ] || fail "$device is not a block device"
if [ "${JUKEBOX_ALLOW_WHOLE_DEVICE:-}" != 1 ] && [ "$(lsblk -dno TYPE "$real")" != part ]; then
    fail "$device is not a partition (a whole card?); make a small partition for it"
fi
if findmnt -rn -S "$real" >/dev/null || grep -q "^$real " /proc/swaps; then
    fail "$device is mounted or used as swap"
fi
size=$(blockdev --getsize64 "$real")
[ "$size" -le $((64 << 20)) ] || fail "$device is $((size >> 20)) MiB; a checkpoint partition needs 1 MiB, refusing to use a big one"
found=$(blkid -p -o value -s TYPE -s PTTYPE "$real" 2>/dev/null || true)
[ -z "$found" ] || fail "$device holds data ($found); refusing to clear it"

dd if=/dev/zero of="$real" bs=4096 count=1 oflag=direct conv=fsync status=none
name=$(basename "$real")
mkdir -p "$rules_dir"
echo "KERNEL==\"$name\", OWNER=\"$owner\", MODE=\"0600\"" >"$rules_dir/90-jukebox-checkpoint.rules"
if command -v udevadm >/dev/null && [ -d /run/udev ]; then
    udevadm control --reload
    udevadm trigger --name-match="$name"
    udevadm settle
else
    chown "$owner" "$real" && chmod 0600 "$real"
fi
echo "checkpoint-partition.sh: $device is ready; in /etc/jukebox/jukebox.toml, under [resume]:" >&2
echo "checkpoint_device = \"$device\""
