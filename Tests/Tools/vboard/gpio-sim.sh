#!/usr/bin/env bash
# Builds gpio-sim for the virtual board's kernel (docs/VIRTUAL-BOARD.md): Debian's kernel has
# neither gpio-sim nor gpio-mockup (nor CONFIG_IRQ_SIM, which both need), so the module is
# built out of tree from Debian's linux-source, drivers/gpio/gpio-sim.c with
# kernel/irq/irq_sim.c linked in, against Debian's linux-headers of the same version.
#   Tests/Tools/vboard/gpio-sim.sh OUT_DIR KERNEL_VERSION   (make-image.sh runs it)
# Makes OUT_DIR/gpio-sim-KERNEL_VERSION/gpio-sim.ko, once per kernel version (the packages go
# to OUT_DIR/debs; the sources and headers are removed after the build). When it cannot be
# built it writes the reason to OUT_DIR/gpio-sim-KERNEL_VERSION/unavailable, exits 0 (the
# board works without it; its tests skip with that reason) and tries again next time.
set -uo pipefail
out=$1
kver=$2
dir=$out/gpio-sim-$kver
[ -f "$dir/gpio-sim.ko" ] && exit 0

fail() {
    mkdir -p "$dir"
    echo "$*" > "$dir/unavailable"
    echo "gpio-sim.sh: $*" >&2
    rm -rf "$work"
    exit 0
}
work=$out/gpio-sim-$kver.partial
rm -rf "$work" "$dir"
mkdir -p "$work/tree" "$work/module"

# linux-source-6.1 for 6.1.0-56-amd64; the exact version of the kernel's own package.
series=$(echo "$kver" | cut -d. -f1,2)
flavour=${kver##*-}
version=$(apt-cache show "linux-image-$kver" 2> /dev/null | awk '/^Version:/ {print $2; exit}')
[ -n "$version" ] || fail "apt knows no linux-image-$kver"
packages=("linux-headers-$kver" "linux-headers-${kver%-"$flavour"}-common" "linux-kbuild-$series" "linux-source-$series")
for p in "${packages[@]}"; do
    ls "$out/debs/${p}_${version}"_*.deb > /dev/null 2>&1 && continue
    (cd "$out/debs" && apt-get download "$p=$version" > "$work/apt.log" 2>&1) \
        || fail "apt-get download $p=$version: $(tail -1 "$work/apt.log")"
done
for p in "${packages[@]:0:3}"; do dpkg-deb -x "$out/debs/${p}_${version}"_*.deb "$work/tree"; done
headers=$work/tree/usr/src/linux-headers-$kver
[ -f "$headers/Makefile" ] || fail "linux-headers-$kver has no Makefile"
# The flavour's Makefile includes the common tree by its installed path.
sed -i "s|/usr/src/|$work/tree/usr/src/|" "$headers/Makefile"

config=$headers/.config
grep -q '^CONFIG_GPIO_CDEV=y' "$config" || fail "the kernel has no GPIO character device (CONFIG_GPIO_CDEV)"
grep -q '^CONFIG_CONFIGFS_FS=[ym]' "$config" || fail "the kernel has no configfs (CONFIG_CONFIGFS_FS)"
grep -q '^CONFIG_GPIO_SIM=' "$config" && fail "the kernel has gpio-sim already: load it instead"

# Only the three files, streamed out of the 139 MB source archive (~10 s).
src=linux-source-$series
dpkg-deb --fsys-tarfile "$out/debs/linux-source-${series}_${version}"_*.deb \
    | tar -xO "./usr/src/$src.tar.xz" \
    | tar -xJ -C "$work" "$src/drivers/gpio/gpio-sim.c" "$src/drivers/gpio/gpiolib.h" "$src/kernel/irq/irq_sim.c" \
    || fail "$src.tar.xz has no drivers/gpio/gpio-sim.c, gpiolib.h or kernel/irq/irq_sim.c"
cp "$work/$src/drivers/gpio/gpio-sim.c" "$work/$src/drivers/gpio/gpiolib.h" "$work/$src/kernel/irq/irq_sim.c" \
    "$work/module/"
# irq_to_desc is not exported to modules; generic_handle_irq is that call and the handler
# (handle_simple_irq, set by irq_sim's domain map) in one, and exported.
sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' "$work/module/irq_sim.c"
# An edge while the interrupt is masked is kept, as a GPIO controller does (see the patch).
patch -s "$work/module/irq_sim.c" < "$(dirname "$0")/irq_sim-latch.patch" > "$work/patch.log" 2>&1 \
    || fail "irq_sim-latch.patch does not apply to $src's irq_sim.c: $(head -2 "$work/patch.log" | tr '\n' ' ')"
printf 'obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-driver.o irq_sim.o\n' > "$work/module/Kbuild"
mv "$work/module/gpio-sim.c" "$work/module/gpio-sim-driver.c"
make -C "$headers" M="$work/module" modules > "$work/make.log" 2>&1 \
    || fail "the out-of-tree build failed: $(grep -m3 -E 'error|ERROR' "$work/make.log" | tr '\n' ' ')"
mkdir -p "$dir"
strip --strip-debug -o "$dir/gpio-sim.ko" "$work/module/gpio-sim.ko"
# The 139 MB source package is needed again only for another kernel version.
rm -f "$out/debs/linux-source-${series}_${version}"_*.deb
rm -rf "$work"
echo "gpio-sim.sh: built $dir/gpio-sim.ko" >&2
