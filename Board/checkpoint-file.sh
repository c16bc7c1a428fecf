#!/usr/bin/env bash
# Gives [resume] checkpoint_device a 4 KiB block of the state's own ext4 file system, without
# a partition of its own (docs/design/RESUME.md, "Resume and SD-card writes"): on Linux 6.6 and later every
# write to a file dirties its inode (ext4's i_version), so the 4 s checkpoint in a file costs
# a journal commit every 5 s, about 5.9 MB/h, whatever lazytime says. Here the checkpoint is a
# file whose one block a loop device maps straight from the file system's device (FIEMAP), so
# the checkpoint reaches that block with no inode change: 0.46 MB/h, as on a raw partition.
#   sudo Board/checkpoint-file.sh /var/lib/jukebox/checkpoint-area /run/jukebox-checkpoint
# Run it at every boot before jukeboxd (loop devices do not outlive a boot), e.g. a unit's
# ExecStartPre=+. First it makes FILE (4 KiB of zeros, synced, then immutable: no one deletes
# it, and ext4 never moves the block of an immutable file), then checks that FILE is one
# plain written extent on ext4 (not unwritten, inline, encoded or shared), maps that extent
# with a loop device limited to those 4 KiB (direct I/O), lets the jukebox user write it and
# points LINK at it. It prints the config line. Only the loop device is written, never the file
# system; nothing else reaches FILE (the page cache's copy of it is stale until a reboot).
# Environment (for tests): JUKEBOX_USER (jukebox).
set -euo pipefail
fail() { echo "checkpoint-file.sh: $*" >&2; exit 1; }

[ $# -eq 2 ] || fail "usage: sudo Board/checkpoint-file.sh FILE LINK"
file=$1
link=$2
owner=${JUKEBOX_USER:-jukebox}
[ "$(id -u)" -eq 0 ] || fail "run me with sudo"
for tool in filefrag losetup findmnt chattr lsattr; do
    command -v "$tool" > /dev/null || fail "$tool is missing (e2fsprogs, util-linux)"
done
[ "$(findmnt -n -o FSTYPE -T "$(dirname "$file")")" = ext4 ] || fail "$(dirname "$file") is not on ext4"
if [ ! -e "$file" ]; then
    dd if=/dev/zero of="$file.new" bs=4096 count=1 conv=fsync status=none
    # Owned like the rest of the state folder, so systemd's recursive chown of a StateDirectory
    # whose owner changed skips it (an immutable file refuses chown: the unit would not start).
    chown "$owner:" "$file.new"
    mv "$file.new" "$file"
    sync -f "$file"
fi
[ -f "$file" ] && [ "$(stat -c %s "$file")" = 4096 ] || fail "$file is not a 4096-byte file"
lsattr -d "$file" | cut -d' ' -f1 | grep -q i || chattr +i "$file"

# One extent of 8 sectors, written ("last,eof" and nothing else), 4 KiB aligned.
extents=$(filefrag -s -v -b512 "$file")
[ "$(echo "$extents" | grep -c '^ *[0-9]*:')" = 1 ] || fail "$file is not one extent: $extents"
read -r physical length flags <<< "$(echo "$extents" | awk '$1 == "0:" {sub(/\.\./, "", $4); print $4, $6, $NF}')"
[ "${length%:}" = 8 ] && [ "$flags" = last,eof ] && [ $((physical % 8)) = 0 ] \
    || fail "$file is not one plain 4 KiB extent: $extents"
offset=$((physical * 512))
devname=$(sed -n 's/^DEVNAME=//p' "/sys/dev/block/$(findmnt -n -o MAJ:MIN -T "$file" | tr -d " ")/uevent" 2> /dev/null || true)
source=/dev/${devname:-?}
[ -n "$devname" ] && [ -b "$source" ] || fail "no block device for $file's file system ($source)"

loop=$(losetup -n -O NAME -j "$source" -o "$offset" | head -1)
if [ -z "$loop" ]; then
    loop=$(losetup --find --show --offset "$offset" --sizelimit 4096 --direct-io=on "$source") \
        || fail "no loop device over $source (byte $offset) for $file"
fi
[ "$(blockdev --getsize64 "$loop")" = 4096 ] || fail "$loop is not the 4 KiB of $file"
chown "$owner" "$loop"
chmod 0600 "$loop"
ln -sfn "$loop" "$link"
echo "checkpoint-file.sh: $link is $file's block on $source (byte $offset) through $loop; under [resume]:" >&2
echo "checkpoint_device = \"$link\""
