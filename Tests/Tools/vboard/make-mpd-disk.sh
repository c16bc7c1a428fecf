#!/usr/bin/env bash
# MPD beside jukeboxd on the virtual board (docs/VIRTUAL-BOARD.md): Debian's mpd and every
# library ldd lists for it, on a read-only ext4 disk image that the benchmark attaches as a
# second virtio-blk disk and mounts at /opt/mpd. A disk and not the initramfs: its ~290
# libraries are ~200 MB, which every test boot would unpack into RAM; from a disk the guest
# pages in only what mpd touches.
#   Tests/Tools/vboard/make-mpd-disk.sh [OUT_DIR]      (default: .build/vboard)
# Prints the image's path. Redone only when mpd or this script is newer than the image.
# In the guest: mount -o ro /dev/vdb /opt/mpd; LD_LIBRARY_PATH=/opt/mpd/lib /opt/mpd/mpd ...
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${1:-$PWD/.build/vboard}
mkdir -p "$out"
mpd=$(command -v mpd) || { echo "make-mpd-disk: mpd is not installed (apt-get install -y mpd)" >&2; exit 1; }
image=$out/mpd.img
if [ ! -f "$image" ] || [ "$mpd" -nt "$image" ] || [ "$0" -nt "$image" ]; then
    root=$out/mpd-root
    rm -rf "$root"
    mkdir -p "$root/lib"
    cp "$mpd" "$root/mpd"
    # Each library under its real name and every name that links to it there (libopenal asks
    # for libsndio.so.7.0, ldd lists libsndio.so.7).
    ldd "$mpd" | awk '/=> \// {print $3}' | while read -r lib; do
        real=$(readlink -f "$lib")
        cp "$real" "$root/lib/"
        find "${real%/*}" -maxdepth 1 -lname "${real##*/}" -printf '%f\n' | while read -r alias; do
            ln -sf "${real##*/}" "$root/lib/$alias"
        done
    done
    megabytes=$(($(du -sm "$root" | cut -f1) * 11 / 10 + 16))
    rm -f "$image.partial"
    mkfs.ext4 -q -F -d "$root" -L mpd "$image.partial" "${megabytes}M" >&2
    rm -rf "$root"
    mv "$image.partial" "$image"
    echo "make-mpd-disk: $(du -h "$image" | cut -f1) for mpd and $(ldd "$mpd" | grep -c '=> /') libraries" >&2
fi
echo "$image"
