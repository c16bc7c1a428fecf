#!/usr/bin/env bash
# Cross-builds jukeboxd for aarch64 (Debian 12 arm64: Raspberry Pi OS 64-bit on a Pi 3/4/5/Zero
# 2 W) on an x86_64 Debian machine, from Debian's archive alone, and runs it under qemu-user.
#   Board/cross-aarch64.sh            every step (as root; the first run fetches ~1.3 GB, ~10 min)
#   Board/cross-aarch64.sh STEP...    toolchain | sysroot | build | run | deb
# Output: .build-aarch64/release/jukeboxd, .build-aarch64/jukeboxd-aarch64 (debug information
# removed, as the .deb installs it) and dist/jukebox_VERSION_arm64.deb. Caches, not committed:
# .cache/aarch64/.
#
# toolchain  Debian unstable's swiftlang (Swift 6.2) in an amd64 chroot made by debootstrap: the
#            compiler, with LLVM's AArch64 backend and lld. Debian 12 packages no Swift.
# sysroot    Debian 12 arm64's libc, libgcc, libstdc++ and the -dev packages of the build,
#            unpacked with dpkg -x (absolute symlinks made relative), so the binary runs on
#            Debian 12 (glibc 2.36; libgpiod 1.6, whose API Sources/GPIO uses), with the libraries
#            jukeboxd opens on first use; sysroot.owners says which package holds each file. Into it goes the
#            aarch64 Swift runtime (usr/lib/swift_static: modules, static libraries) from the
#            arm64 swiftlang of the same version, unpacked as a Swift SDK lays it out.
# build      Board/build-jukeboxd.sh in the chroot with JUKEBOXD_SYSROOT: release, the Swift
#            runtime linked in, lld with packed relocations, libstdc++ linked in; with
#            Board/cross-aarch64-glibc238.c for the glibc 2.38 symbols that runtime names.
# run        qemu-aarch64-static with the sysroot's libraries: --version, a scan of the demo
#            library, and a few seconds of play into ALSA's file PCM, checked not silent.
# deb        Board/make-deb.sh --arch arm64 (dpkg-buildpackage -a arm64 from debian/; the minimal
#            FFmpeg cross-built with Debian's gcc-aarch64-linux-gnu), then checked: every ELF in it is aarch64; apt (Debian 12
#            arm64) resolves its Depends; dpkg installs it into a root of those packages
#            (maintainer scripts chrootless); every NEEDED library is found there, in a Depends
#            package; the installed jukeboxd runs there under qemu (AAC: the packaged FFmpeg).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
cache=$repo/.cache/aarch64
chroot_dir=$cache/sid-amd64
sysroot=$cache/sysroot
mirror=http://deb.debian.org/debian
triple=aarch64-unknown-linux-gnu
binary=$repo/.build-aarch64/release/jukeboxd
# What Board/build-jukeboxd.sh links (pkg-config) or includes (headers only, opened with dlopen).
sysroot_packages=(libc6 libc6-dev linux-libc-dev libcrypt1 libcrypt-dev libgcc-12-dev libgcc-s1
    libstdc++-12-dev libstdc++6 libasound2 libasound2-dev libasound2-data libmpg123-0 libmpg123-dev
    libgpiod2 libgpiod-dev libsqlite3-0 libsqlite3-dev libflac-dev libvorbis-dev libogg-dev
    libopusfile-dev libopus-dev libavformat-dev libavcodec-dev libavutil-dev libswresample-dev
    libsoxr-dev libsonic-dev libcurl4-openssl-dev libxml2-dev libicu-dev libespeak-ng-dev
    libflac12 libvorbisfile3 libopusfile0 libsoxr0)
apt=$cache/apt-bookworm-arm64

[ "$(id -u)" -eq 0 ] || { echo "cross-aarch64: run as root (debootstrap, chroot)" >&2; exit 1; }

# A command in the chroot, with /proc and the repository mounted at the same path, in a mount
# namespace of its own so nothing stays mounted afterwards.
in_chroot() {
    unshare --mount --propagation private bash -c \
        'mkdir -p "$1$2" && mount --bind "$2" "$1$2" && mount -t proc proc "$1/proc" && shift 2 && exec chroot "$0" env PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"' \
        "$chroot_dir" "$chroot_dir" "$repo" "$@"
}

swift_version() { in_chroot dpkg-query -W -f='${Version}' swiftlang; }

step_toolchain() {
    if [ ! -x "$chroot_dir/usr/bin/swift" ]; then
        rm -rf "$chroot_dir"
        debootstrap --variant=minbase sid "$chroot_dir" "$mirror"
        # The mirror's unstable Release may be past its Valid-Until; the packages are still signed.
        echo 'Acquire::Check-Valid-Until "false";' >"$chroot_dir/etc/apt/apt.conf.d/90jukebox"
        in_chroot dpkg --add-architecture arm64
        in_chroot apt-get update -q
        in_chroot env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
            swiftlang libc6-dev git ca-certificates
    fi
    # swift build resolves the two package dependencies from this machine's SwiftPM cache
    # (no network to their hosts here).
    if [ -d "$HOME/.cache/org.swift.swiftpm/repositories" ]; then
        mkdir -p "$chroot_dir/root/.cache/org.swift.swiftpm"
        cp -a "$HOME/.cache/org.swift.swiftpm/repositories" "$chroot_dir/root/.cache/org.swift.swiftpm/"
    fi
    in_chroot swift --version
}

# Unpacks the .deb files in $1 into the root $2 (absolute symlinks made relative: the linker
# and qemu resolve them against the host's root) and writes $3: "PATH PACKAGE SOURCE-VERSION"
# for every file, the owners make-deb.sh and the package check look up.
unpack_debs() {
    local deb package
    rm -f "$3"
    for deb in "$1"/*.deb; do
        dpkg-deb -x "$deb" "$2"
        package=$(dpkg-deb --show --showformat='${Package} ${source:Version}' "$deb")
        dpkg-deb --fsys-tarfile "$deb" | tar -t | sed -n "s#^\.\(/.*[^/]\)\$#\1 $package#p" >>"$3"
    done
    find "$2" -type l -lname '/*' | while read -r link; do
        ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$2$(readlink "$link")")" "$link"
    done
}

step_sysroot() {
    local version debs=$cache/sysroot-debs
    version=$(swift_version)
    # Debian 12 arm64, fetched with a private apt configuration (the host's stays as it is).
    mkdir -p "$apt"/{etc/apt.conf.d,etc/preferences.d,etc/sources.list.d,lists/partial,archives/partial} "$debs"
    echo "deb [arch=arm64] $mirror bookworm main" >"$apt/etc/sources.list"
    echo "deb [arch=arm64] ${mirror}-security bookworm-security main" >>"$apt/etc/sources.list"
    cat >"$apt/apt.conf" <<EOF
Dir::Etc "$apt/etc";
Dir::Etc::trusted "/etc/apt/trusted.gpg";
Dir::Etc::trustedparts "/etc/apt/trusted.gpg.d";
Dir::State "$apt";
Dir::State::lists "$apt/lists";
Dir::State::status "/dev/null";
Dir::Cache "$apt";
APT::Architecture "arm64";
APT::Architectures { "arm64"; };
APT::Sandbox::User "root";
EOF
    APT_CONFIG=$apt/apt.conf apt-get update -q
    rm -f "$debs"/*.deb
    (cd "$debs" && APT_CONFIG=$apt/apt.conf apt-get download "${sysroot_packages[@]}")
    rm -rf "$sysroot"
    mkdir -p "$sysroot"
    unpack_debs "$debs" "$sysroot" "$cache/sysroot.owners"

    # The aarch64 Swift runtime of exactly the compiler's version (modules are not compatible
    # across versions); only its static half, and the compiler's own clang headers beside it.
    in_chroot bash -c "cd '$cache' && rm -f swiftlang_*_arm64.deb && apt-get download 'swiftlang:arm64=$version'"
    dpkg-deb --fsys-tarfile "$cache"/swiftlang_*_arm64.deb |
        tar -x -C "$cache" './usr/libexec/swift/lib/swift_static/'
    rm -rf "$sysroot/usr/lib/swift_static"
    mv "$cache/usr/libexec/swift/lib/swift_static" "$sysroot/usr/lib/swift_static"
    rm -rf "$cache/usr" "$cache"/swiftlang_*_arm64.deb
    ln -sfn /usr/libexec/swift/lib/clang "$sysroot/usr/lib/clang"
}

step_build() {
    local start=$SECONDS
    in_chroot /usr/libexec/swift/bin/clang --target=aarch64-linux-gnu --sysroot="$sysroot" -O2 -Wall -Werror \
        -c "$repo/Board/cross-aarch64-glibc238.c" -o "$cache/glibc238.o"
    # Package.swift's -I/usr/include/opus and /usr/include/libxml2 name the build machine's
    # headers; in the chroot they are the sysroot's.
    for dir in opus libxml2; do ln -sfn "$sysroot/usr/include/$dir" "$chroot_dir/usr/include/$dir"; done
    in_chroot env JUKEBOXD_TRIPLE=$triple JUKEBOXD_SYSROOT="$sysroot" \
        PKG_CONFIG_PATH="$sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:$sysroot/usr/share/pkgconfig" \
        PKG_CONFIG_SYSROOT_DIR="$sysroot" \
        "$repo/Board/build-jukeboxd.sh" -Xlinker "$cache/glibc238.o"
    in_chroot /usr/libexec/swift/bin/llvm-objcopy --strip-debug "$binary" "${binary%/release/jukeboxd}/jukeboxd-aarch64"
    in_chroot /usr/libexec/swift/bin/llvm-objcopy --strip-all "$binary" "$cache/jukeboxd-stripped"
    echo "cross-aarch64: built in $((SECONDS - start)) s ($(in_chroot swift --version 2>&1 | head -1))"
    size_line "as built" "$binary"
    size_line "without debug information" "${binary%/release/jukeboxd}/jukeboxd-aarch64"
    size_line "fully stripped" "$cache/jukeboxd-stripped"
    file "$binary"
}

size_line() {
    local bytes
    bytes=$(stat -c %s "$2")
    awk -v what="$1" -v b="$bytes" 'BEGIN { printf "cross-aarch64: %s: %.1f MiB (%d bytes)\n", what, b / 1048576, b }'
}

# jukeboxd $2 under qemu with the libraries of root $1: --version, a scan of the folder $3
# (every file playable), then 3 s of play (a fresh box plays its folder from the start, resume
# on_start = "play") into ALSA's file PCM, checked not silent. Its files go in the folder $4.
plays() {
    local root=$1 jukeboxd=$2 music=$3 tmp=$4 out scanned
    local qemu=(qemu-aarch64-static -L "$root")
    command -v qemu-aarch64-static >/dev/null || fail "no qemu-aarch64-static (apt-get install qemu-user-static)"
    mkdir -p "$tmp"
    "${qemu[@]}" "$jukeboxd" --version
    out=$tmp/out.raw
    cat >"$tmp/jukebox.toml" <<EOF
music_dir = "$music"
database = "$tmp/jukebox.sqlite"
[audio]
device = "file:'$out',raw"
[network]
address = "none"
[console]
device = "none"
EOF
    scanned=$("${qemu[@]}" "$jukeboxd" scan --config "$tmp/jukebox.toml" 2>&1) || fail "scan failed: $scanned"
    echo "$scanned"
    echo "$scanned" | grep -q ' 0 not playable' || fail "a file of $music is not playable"
    "${qemu[@]}" "$jukeboxd" --config "$tmp/jukebox.toml" >"$tmp/log" 2>&1 &
    local pid=$! bytes=0 want=$((44100 * 4 * 3))
    for _ in $(seq 600); do
        bytes=$(stat -c %s "$out" 2>/dev/null || echo 0)
        [ "$bytes" -ge "$want" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill "$pid" 2>/dev/null || true
    wait "$pid" || true
    if [ "$bytes" -lt "$want" ]; then
        cat "$tmp/log" >&2
        fail "played $bytes bytes, not the 3 s ($want bytes) expected"
    fi
    # Not silence: the songs are synthesized tones.
    head -c "$want" "$out" | od -An -v -tx1 | tr -d ' \n' | grep -q '[1-9a-f]' || fail "the 3 s played are all zeros"
    echo "cross-aarch64: played $bytes bytes (3 s at 44.1 kHz, 16-bit stereo) into ALSA's file PCM under qemu"
}

step_run() {
    local tmp
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"; trap - RETURN' RETURN
    plays "$sysroot" "$binary" "$repo/config/demo-music" "$tmp"
}

fail() {
    echo "cross-aarch64: $*" >&2
    exit 1
}

step_deb() {
    local deb
    command -v aarch64-linux-gnu-gcc >/dev/null || fail "no aarch64-linux-gnu-gcc (apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross)"
    # With its debug information: dh_strip moves it into jukebox-dbgsym.
    deb=$(Board/make-deb.sh --binary "$binary" --arch arm64 \
        --sysroot "$sysroot" --owners "$cache/sysroot.owners")
    check_deb "$deb"
    size_line "package $deb" "$deb"
}

# The package as a board would get it, as far as this machine can tell without an arm64 kernel.
check_deb() {
    local deb tmp root debs=$cache/runtime-debs elves=() elf soname path dir owner depends
    deb=$(realpath "$1")
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"; trap - RETURN' RETURN
    dpkg-deb --info "$deb"
    dpkg-deb --contents "$deb"
    [ "$(dpkg-deb --field "$deb" Architecture)" = arm64 ] || fail "$deb is not for arm64"

    # Every ELF file in it is an aarch64 one: jukeboxd and the minimal FFmpeg at least.
    dpkg-deb -x "$deb" "$tmp/package"
    while read -r path; do
        file -b "$path" | grep -q '^ELF' || continue
        file -b "$path" | grep -q 'ARM aarch64' && readelf -h "$path" | grep -q 'Machine: *AArch64' ||
            fail "${path#"$tmp/package"} is not aarch64: $(file -b "$path")"
        elves+=("${path#"$tmp/package"}")
    done < <(find "$tmp/package" -type f)
    [ ${#elves[@]} -ge 2 ] || fail "expected jukeboxd and libjukebox-ffmpeg.so, found ELF files: ${elves[*]}"
    echo "cross-aarch64: aarch64 ELF files: ${elves[*]}"

    # What apt fetches for it on a Debian 12 arm64 board that has nothing installed: its
    # Depends and theirs (fails if one is not a Debian 12 arm64 package).
    rm -rf "$debs" && mkdir -p "$debs/partial"
    APT_CONFIG=$apt/apt.conf apt-get install --download-only -y -q --no-install-recommends \
        -o Dir::Cache::archives="$debs" "$deb" >&2
    root=$tmp/root
    mkdir -p "$root"/var/lib/dpkg/{info,updates,triggers} "$root/etc"
    unpack_debs "$debs" "$root" "$tmp/owners"
    : >"$root/var/lib/dpkg/status"
    : >"$root/var/lib/dpkg/available"
    printf 'root:x:0:0:root:/root:/bin/bash\n' >"$root/etc/passwd"
    printf 'root:x:0:\naudio:x:29:\n' >"$root/etc/group"
    printf 'root:*:19000:0:99999:7:::\n' >"$root/etc/shadow"
    printf 'root:*::\naudio:*::\n' >"$root/etc/gshadow"
    # Its maintainer scripts run on this machine (DPKG_ROOT), so no arm64 shell is needed.
    dpkg --root="$root" --force-script-chrootless --force-depends --force-architecture -i "$deb" >&2
    grep -q '^jukebox:' "$root/etc/passwd" || fail "postinst made no jukebox user"

    # Every NEEDED library of every ELF file is in that root, in a package of Depends.
    depends=" $(dpkg-deb --field "$deb" Depends | sed 's/,/ /g') "
    for elf in "${elves[@]}"; do
        for soname in $(readelf -d "$root$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
            path=""
            for dir in lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu lib usr/lib; do
                [ -e "$root/$dir/$soname" ] && { path=/$dir/$soname; break; }
            done
            [ -n "$path" ] || fail "$elf needs $soname, which no package of its Depends (and theirs) has"
            owner=$(awk -v path="$path" '$1 == path {print $2; exit}' "$tmp/owners")
            [[ "$depends" == *" $owner "* ]] || fail "$elf needs $soname, from $owner, not in Depends:$depends"
            echo "cross-aarch64: $elf: $soname in $owner"
        done
    done

    # The installed jukeboxd scans an AAC file (through the packaged FFmpeg: the root has no
    # other) and an MP3, from that root alone, and plays the AAC first (its 5 s fill the 3 s;
    # the file PCM is not paced, so both then play in turn, repeated).
    mkdir -p "$tmp/music"
    ffmpeg -loglevel error -f lavfi -i "sine=frequency=440:duration=5" -ac 2 -c:a aac "$tmp/music/01 Tone.m4a"
    cp "$repo/config/demo-music/01 Morning Light.mp3" "$tmp/music/02 Morning Light.mp3"
    plays "$root" "$root/usr/bin/jukeboxd" "$tmp/music" "$tmp/play"
    grep -q 'playing "01 Tone"' "$tmp/play/log" || fail "the AAC file did not play: $(cat "$tmp/play/log")"
    dpkg --root="$root" --force-script-chrootless --force-depends --purge jukebox >&2
    [ ! -e "$root/usr/bin/jukeboxd" ] || fail "purge left /usr/bin/jukeboxd"
    echo "cross-aarch64: $deb: aarch64, Depends resolved in Debian 12 arm64, installed, played, purged"
}

steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(toolchain sysroot build run deb)
for step in "${steps[@]}"; do
    case "$step" in
    toolchain | sysroot | build | run | deb) "step_$step" ;;
    *)
        sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
        exit 2
        ;;
    esac
done
