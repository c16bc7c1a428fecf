#!/usr/bin/env bash
# A root disk for the virtual board with Debian 12 and systemd, the jukebox .deb installed
# as a box installs it (docs/VIRTUAL-BOARD.md, "The package under systemd"): the board's
# initramfs loads the modules and switches to it (vboard.root=/dev/vda), systemd starts the
# unit, its ExecStartPre maps the checkpoint (Board/checkpoint-file.sh), the daemon plays.
#   Tests/Tools/vboard/make-systemd-disk.sh VBOARD_DIR
# VBOARD_DIR is make-image.sh's folder: its jukeboxd (root/bin) goes into the package
# (Board/make-deb.sh, VBOARD_DIR/jukebox_*.deb), its kernel's loop module into the image.
# Writes VBOARD_DIR/systemd.img (ext4, 4 KiB blocks) and prints it; redone when one of its
# inputs is newer. The Debian tree comes from debootstrap --variant=minbase once, cached in
# .build/vboard-systemd/rootfs (not committed). Root (debootstrap, chroot). The image, for the
# board: music_dir /host/music (9p), the output hw:Loopback,0,0, the console on ttyS1, the
# agent (agent) as a service on the control port, journald in RAM (the writes measured are
# the daemon's, not the log's).
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=$PWD/Tests/Tools/vboard
[ $# -eq 1 ] || { echo "usage: make-systemd-disk.sh VBOARD_DIR" >&2; exit 2; }
out=$(cd "$1" && pwd)
[ "$(id -u)" -eq 0 ] || { echo "make-systemd-disk: run as root (debootstrap, chroot)" >&2; exit 1; }
image=$out/systemd.img
kernel=$(readlink -f "$out/vmlinux")
kver=${kernel##*/vmlinux-}
kdir=${kernel%/boot/*}
stale=0
for input in "$0" "$here/agent" "$out/root/bin/jukeboxd" "$kernel" Board/jukeboxd.service Board/checkpoint-file.sh \
    Board/make-deb.sh Board/deb/* debian/* config/jukebox.toml; do
    [ -f "$image" ] && [ "$image" -nt "$input" ] || stale=1
done
if [ "$stale" = 0 ]; then
    echo "$image"
    exit 0
fi
rm -f "$out"/jukebox_*.deb
deb=$(Board/make-deb.sh --binary "$out/root/bin/jukeboxd" --output "$out")

# What the package needs (of each dependency the name without its version, the first of
# alternatives), and what the board's checks use (sqlite3's integrity_check).
packages="systemd-sysv,udev,kmod,e2fsprogs,sqlite3,$(dpkg-deb -f "$deb" Depends | sed -e 's/([^)]*)//g' -e 's/|[^,]*//g' -e 's/ //g')"
cache=$PWD/.build/vboard-systemd/rootfs
if [ "$(cat "$cache/.packages" 2> /dev/null)" != "$packages" ]; then
    mirror=$(apt-get indextargets --format '$(SITE) $(RELEASE)' | awk '$2 == "bookworm" {print $1; exit}')
    rm -rf "$cache"
    debootstrap --variant=minbase --include="$packages" bookworm "$cache.partial" "${mirror:-http://deb.debian.org/debian}" >&2
    rm -rf "$cache.partial"/var/cache/apt/archives/*.deb "$cache.partial"/var/lib/apt/lists/*
    echo "$packages" > "$cache.partial/.packages"
    mv "$cache.partial" "$cache"
fi

stage=$out/systemd-root
rm -rf "$stage"
cp -a "$cache" "$stage"
rm "$stage/.packages"
cp "$deb" "$stage/tmp/jukebox.deb"
chroot "$stage" dpkg -i /tmp/jukebox.deb >&2
rm "$stage/tmp/jukebox.deb"

# The loop driver for checkpoint-file.sh (the initramfs loaded the others before switching).
loop=$(modprobe -d "$kdir" -S "$kver" --show-depends loop | awk '$1 == "insmod" {print $2}')
for ko in $loop; do
    rel=${ko#"$kdir"}
    mkdir -p "$stage$(dirname "$rel")"
    cp "$ko" "$stage$rel"
done
cp "$kdir/lib/modules/$kver"/modules.{order,builtin,builtin.modinfo} "$stage/lib/modules/$kver/"
depmod -b "$stage" "$kver"
echo loop > "$stage/etc/modules-load.d/vboard.conf"

config=$stage/etc/jukebox/jukebox.toml
sed -i -e 's|^music_dir = .*|music_dir = "/host/music"|' -e 's|^device = "/dev/serial0"|device = "/dev/ttyS1"|' "$config"
awk '/^\[audio\]/ {audio = 1} audio && /^device = / {$0 = "device = \"hw:Loopback,0,0\""; audio = 0} {print}' \
    "$config" > "$config.new"
mv "$config.new" "$config"
grep -q '^device = "hw:Loopback,0,0"' "$config" && grep -q '^device = "/dev/ttyS1"' "$config" \
    || { echo "make-systemd-disk: the installed config's device lines moved" >&2; exit 1; }

cat > "$stage/etc/fstab" << 'FSTAB'
/dev/vda / ext4 noatime,lazytime 0 1
host /host 9p trans=virtio,version=9p2000.L,msize=262144,nofail 0 0
FSTAB
mkdir -p "$stage/host"
echo jukebox-vboard > "$stage/etc/hostname"
mkdir -p "$stage/etc/systemd/journald.conf.d"
printf '[Journal]\nStorage=volatile\n' > "$stage/etc/systemd/journald.conf.d/vboard.conf"
# The initramfs's switch_root runs the new root's /init.
ln -sfn /lib/systemd/systemd "$stage/init"
# No login on the kernel's console (the tests read it as a log).
ln -sfn /dev/null "$stage/etc/systemd/system/serial-getty@ttyS0.service"
install -m 0755 "$here/agent" "$stage/usr/local/bin/vboard-agent"
cat > "$stage/etc/systemd/system/vboard-agent.service" << 'UNIT'
[Unit]
Description=Virtual board agent (commands from the host on the control port)
BindsTo=dev-virtio\x2dports-org.jukebox.control.device
After=dev-virtio\x2dports-org.jukebox.control.device

[Service]
ExecStart=/usr/local/bin/vboard-agent /dev/virtio-ports/org.jukebox.control
# The host may close its end and come back (a client per command by hand).
Restart=always
RestartSec=200ms

[Install]
WantedBy=multi-user.target
UNIT
chroot "$stage" systemctl enable vboard-agent.service >&2

megabytes=$(($(du -sm "$stage" | cut -f1) + 128))
rm -f "$image.partial"
mkfs.ext4 -q -F -b 4096 -L jukebox-root -d "$stage" "$image.partial" "${megabytes}M" >&2
rm -rf "$stage"
mv "$image.partial" "$image"
echo "make-systemd-disk: $megabytes MB root with systemd and $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version), kernel $kver" >&2
echo "$image"
