#!/usr/bin/env bash
# Makes the virtual board: Debian's own kernel and an initramfs with busybox, the release
# jukeboxd and what it needs (docs/VIRTUAL-BOARD.md).
#   Tests/Tools/vboard/make-image.sh [OUT_DIR]      (default: .build/vboard)
# Writes OUT_DIR/vmlinux and OUT_DIR/initramfs.cpio, and prints OUT_DIR. Only what changed is
# redone: the kernel package is downloaded once per version (`apt-get download`, into
# OUT_DIR/debs), the initramfs is rebuilt when one of its inputs is newer than it.
#   JUKEBOXD=path   use this daemon instead of building it with Board/build-jukeboxd.sh
#   VBOARD_EXTRA="path ..."  more host programs to put in the image (with their libraries)
#   VBOARD_SUITE=bookworm-backports  the kernel of that suite of the same archive (6.12 there),
#                   through an apt list of its own in OUT_DIR/apt (default OUT_DIR:
#                   .build/vboard-SUITE); gpio-sim is then not built
set -euo pipefail
cd "$(dirname "$0")/../../.."
repo=$PWD
here=$repo/Tests/Tools/vboard
suite=${VBOARD_SUITE:-}
out=${1:-$repo/.build/vboard${suite:+-$suite}}
mkdir -p "$out/debs"
out=$(cd "$out" && pwd)

# The kernel: the version linux-image-amd64 depends on now, from Debian's archive.
apt=()
if [ -n "$suite" ]; then
    # The archive that serves the release the suite belongs to (bookworm for bookworm-backports).
    site=$(apt-get indextargets --format '$(SITE) $(RELEASE)' | awk -v r="${suite%%-*}" '$2 == r {print $1; exit}')
    [ -n "$site" ] || { echo "make-image: no apt source serves ${suite%%-*}" >&2; exit 1; }
    mkdir -p "$out/apt/lists/partial" "$out/apt/cache"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $site $suite main" > "$out/apt/sources.list"
    # As root, apt's _apt sandbox user may be unable to run gpgv (it fails on this build box).
    apt=(-o "Dir::Etc::SourceList=$out/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
        -o "Dir::State::Lists=$out/apt/lists" -o "Dir::Cache=$out/apt/cache" -o APT::Sandbox::User=root)
    ls "$out/apt/lists/"*Packages* > /dev/null 2>&1 || apt-get "${apt[@]}" update >&2
fi
kpkg=$(apt-cache "${apt[@]}" depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
[ -n "$kpkg" ] || { echo "make-image: apt knows no linux-image-amd64 (apt-get update?)" >&2; exit 1; }
kver=${kpkg#linux-image-}
kdir=$out/kernel-$kver
if [ ! -f "$kdir/boot/vmlinuz-$kver" ]; then
    (cd "$out/debs" && ls "$kpkg"_*.deb >/dev/null 2>&1 || apt-get "${apt[@]}" download "$kpkg" >&2)
    rm -rf "$kdir.partial" && mkdir -p "$kdir.partial"
    dpkg-deb -x "$out/debs/$kpkg"_*.deb "$kdir.partial"
    # The package ships no modules.dep (its postinst runs depmod): make it for the staging tree.
    depmod -b "$kdir.partial" "$kver"
    # The kernel uncompressed: qemu starts an ELF vmlinux at its PVH entry (CONFIG_PVH), with
    # no firmware loading the bzImage and no xz decompression, which take ~20 s under TCG.
    vmlinuz=$kdir.partial/boot/vmlinuz-$kver
    # xz in Debian 12's 6.1, zstd in 6.12.
    offset=$(grep -abo $'\xfd7zXZ\x00' "$vmlinuz" | head -1 | cut -d: -f1 || true)
    unpack=(xz -dcq)
    if [ -z "$offset" ]; then
        offset=$(LC_ALL=C grep -abo $'\x28\xb5\x2f\xfd' "$vmlinuz" | head -1 | cut -d: -f1)
        unpack=(zstd -dcq)
    fi
    tail -c +$((${offset:-0} + 1)) "$vmlinuz" | "${unpack[@]}" > "$kdir.partial/boot/vmlinux-$kver" 2> /dev/null || true
    readelf -n "$kdir.partial/boot/vmlinux-$kver" | grep -q Xen || {
        echo "make-image: no PVH kernel in $vmlinuz" >&2
        exit 1
    }
    rm -rf "$kdir" && mv "$kdir.partial" "$kdir"
fi
ln -sfn "kernel-$kver/boot/vmlinux-$kver" "$out/vmlinux"
# gpio-sim, built out of tree (Debian's kernel lacks it), or the reason it is not there.
if [ -z "$suite" ]; then
    "$here/gpio-sim.sh" "$out" "$kver"
else
    mkdir -p "$out/gpio-sim-$kver"
    echo "gpio-sim is built for the default suite's kernel only" > "$out/gpio-sim-$kver/unavailable"
fi
ln -sfn "gpio-sim-$kver" "$out/gpio-sim"

if [ -z "${JUKEBOXD:-}" ]; then
    Board/build-jukeboxd.sh >&2
    JUKEBOXD=$repo/.build-static/release/jukeboxd
fi

# The modules the board loads, in /init's order; each with what it needs first (modules.dep).
modules=(virtio_pci virtio_blk virtio_console ext4 9p 9pnet_virtio snd-aloop uinput evdev i2c-dev)
# Copied, and loaded by the tests with their parameters: vboard-load NAME PARAMETER=VALUE...
later=(i2c-stub vfb)
programs=("$JUKEBOXD" /bin/busybox /usr/bin/arecord /usr/bin/aplay /usr/bin/amixer /usr/bin/sqlite3 ${VBOARD_EXTRA:-})
# Opened with dlopen on first use (Sources/CLazyLibraries), so ldd does not list them.
dlopened=(libFLAC.so.12 libogg.so.0 libvorbisfile.so.3 libopusfile.so.0 libsoxr.so.0)

image=$out/initramfs.cpio
stale=0
[ -f "$image" ] || stale=1
for input in "$0" "$here"/* "${programs[@]}" "$out/gpio-sim/gpio-sim.ko"; do
    [ "$stale" = 1 ] || [ "$input" -nt "$image" ] && stale=1
done
if [ "$stale" = 0 ]; then
    echo "$out"
    exit 0
fi

root=$out/root
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,run,state,host,usr/lib/modules,usr/lib64,usr/share,var}
# Merged /usr as on Debian 12, so the paths ldd prints (/lib/..., /lib64/...) land in usr/.
ln -s usr/lib "$root/lib"
ln -s usr/lib64 "$root/lib64"
cp "$here/init" "$root/init"
cp "$here/agent" "$root/bin/vboard-agent"
cp "$here/asound.conf" "$root/etc/asound.conf"
cp -r /usr/share/alsa "$root/usr/share/alsa"
rm -rf "$root/usr/share/alsa/ucm" "$root/usr/share/alsa/ucm2" "$root/usr/share/alsa/topology"
strip -o "$root/bin/jukeboxd" "$JUKEBOXD"
cp /bin/busybox "$root/bin/busybox"
# The applets' links, as /init's `busybox --install` makes them: a read-only copy of this tree
# (vboard.root) cannot make them at boot.
for applet in $(/bin/busybox --list); do
    [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
# uinput devices (buttons, knob, a USB card reader): busybox has no tool for them.
cc -static -Os -s -o "$root/bin/vboard-uinput" "$here/uinput.c"
# gpio-sim's lines driven on a schedule (bounce, encoder flicks): a shell is too slow.
cc -static -O2 -s -o "$root/bin/vboard-gpio" "$here/gpio.c"
for p in /usr/bin/arecord /usr/bin/aplay /usr/bin/amixer /usr/bin/sqlite3 ${VBOARD_EXTRA:-}; do
    # In place of busybox's applet of that name (cp would follow its link onto busybox).
    rm -f "$root/bin/$(basename "$p")"
    cp "$p" "$root/bin/"
done

# Libraries: what ldd lists for every program and dlopen'd library, at the same paths.
libs=()
for d in "${dlopened[@]}"; do libs+=("/usr/lib/x86_64-linux-gnu/$d"); done
for f in "${programs[@]}" "${libs[@]}"; do
    { ldd "$f" 2>/dev/null || true; } | awk '/=> \// {print $3} /^\t\// {print $1}'
done | sort -u > "$out/libs.txt"
printf '%s\n' "${libs[@]}" >> "$out/libs.txt"
while read -r lib; do
    [ -e "$lib" ] || continue
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
done < <(sort -u "$out/libs.txt")

# Kernel modules with their dependencies, listed in load order for /init (etc/modules), and
# for vboard-load, the later ones as "NAME PATH" lines (what NAME needs, then NAME).
module_paths() {
    modprobe -d "$kdir" -S "$kver" --show-depends "$1" | awk '$1 == "insmod" {print $2}' | while read -r ko; do
        rel=${ko#"$kdir"/lib/modules/"$kver"/}
        mkdir -p "$root/usr/lib/modules/$(dirname "$rel")"
        cp "$ko" "$root/usr/lib/modules/$rel"
        echo "/lib/modules/$rel"
    done
}
for m in "${modules[@]}"; do module_paths "$m"; done | awk '!seen[$0]++' > "$root/etc/modules"
for m in "${later[@]}"; do module_paths "$m" | sed "s|^|$m |"; done > "$root/etc/modules.later"
if [ -f "$out/gpio-sim/gpio-sim.ko" ]; then
    mkdir -p "$root/usr/lib/modules/extra"
    cp "$out/gpio-sim/gpio-sim.ko" "$root/usr/lib/modules/extra/"
    { module_paths configfs && echo /lib/modules/extra/gpio-sim.ko; } | sed "s|^|gpio-sim |" >> "$root/etc/modules.later"
fi
cp "$here/load" "$root/bin/vboard-load"

echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
echo "root:x:0:" > "$root/etc/group"
(cd "$root" && find . -print0 | sort -z | cpio --null -o -H newc --quiet > "$image.partial")
mv "$image.partial" "$image"
echo "make-image: $(du -h "$image" | cut -f1) initramfs, kernel $kver" >&2
echo "$out"
