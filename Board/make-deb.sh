#!/usr/bin/env bash
# Builds the Debian package of Jukebox from debian/ with debhelper (docs/BOARD.md, "Debian
# package"): dpkg-buildpackage -b on a copy of the tree in a temporary folder (its results go
# beside the tree, and two builds at once must not share debian/jukebox/). The package does
# what Board/install.sh does (binary, systemd unit, config, the `jukebox` user and its groups,
# the state folder, the power-off rule), with the minimal FFmpeg in /usr/lib/jukebox.
#   Board/make-deb.sh                          release build (Board/build-jukeboxd.sh), then package
#   Board/make-deb.sh --binary PATH [--allow-unpackaged-libraries] [--output DIR]
#   Board/make-deb.sh --binary PATH --arch arm64 --sysroot DIR --owners FILE [--output DIR]
#       for another architecture (Board/cross-aarch64.sh): `Depends` from the libraries' packages
#       in the sysroot DIR (Debian's packages of that architecture unpacked), FILE naming them
#       ("PATH PACKAGE SOURCE-VERSION" lines), since dpkg-shlibdeps reads this machine's dpkg
#       database only; the minimal FFmpeg cross-built from the source of its libavcodec-dev.
# Writes DIR/jukebox_VERSION_ARCH.deb (DIR: dist/), jukebox-dbgsym_VERSION_ARCH.deb (the
# binary's debug symbols), the .buildinfo and .changes, and prints the first one's path.
# A library no package owns (the Swift runtime of a build without --static-swift-stdlib) is
# an error unless --allow-unpackaged-libraries (the tests' debug build).
# Install: sudo apt install ./dist/jukebox_*.deb; then set music_dir in /etc/jukebox/jukebox.toml.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=""
output=dist
allow_unpackaged=0
arch=$(dpkg --print-architecture)
sysroot=""
owners=""
while [ $# -gt 0 ]; do
    case "$1" in
    --binary) binary=$2; shift 2 ;;
    --output) output=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    --sysroot) sysroot=$(realpath "$2"); shift 2 ;;
    --owners) owners=$(realpath "$2"); shift 2 ;;
    --allow-unpackaged-libraries) allow_unpackaged=1; shift ;;
    *) echo "make-deb: unknown argument $1" >&2; exit 2 ;;
    esac
done
if [ -z "$binary" ]; then
    Board/build-jukeboxd.sh >&2
    binary=.build-static/release/jukeboxd
fi
binary=$(realpath "$binary")
version=$(dpkg-parsechangelog -l debian/changelog -SVersion)

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
tree=$stage/jukebox
mkdir -p "$tree" .build
cp -a debian Board config docs Sources README.md CHANGELOG.md "$tree/"
# The minimal FFmpeg's cache (Board/build-ffmpeg.sh) is this tree's.
ln -s "$PWD/.build" "$tree/.build"

export JUKEBOXD_BINARY=$binary
[ "$allow_unpackaged" = 1 ] && export JUKEBOX_UNPACKAGED_LIBRARIES=allow
buildpackage=(dpkg-buildpackage -b -us -uc)
if [ "$arch" != "$(dpkg --print-architecture)" ]; then
    [ -n "$sysroot" ] && [ -f "$owners" ] || { echo "make-deb: --arch $arch needs --sysroot and --owners" >&2; exit 2; }
    host=$(dpkg-architecture -a "$arch" -qDEB_HOST_MULTIARCH 2>/dev/null)
    # The source of the version whose headers the shim was compiled against.
    JUKEBOX_FFMPEG_VERSION=$(awk '$2 == "libavcodec-dev" {print $3; exit}' "$owners")
    export JUKEBOX_FFMPEG_VERSION
    ffmpeg=$(Board/build-ffmpeg.sh --cross "$host" --version "$JUKEBOX_FFMPEG_VERSION")
    export JUKEBOXD_EMULATOR="qemu-${host%%-*}-static -L $sysroot"
    # Each NEEDED entry as its dynamic loader finds it in the sysroot, and the libraries jukeboxd
    # opens on first use (debian/rules' OPENED_SONAMES), mapped to their packages.
    in_sysroot() {
        local dir
        for dir in lib/$host usr/lib/$host lib usr/lib; do
            [ -e "$sysroot/$dir/$1" ] && { echo "/$dir/$1"; return; }
        done
    }
    opened=$(sed -n 's/^OPENED_SONAMES := //p' debian/rules)
    packages=()
    for soname in $(readelf -d "$binary" "$ffmpeg/libjukebox-ffmpeg.so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u) $opened; do
        path=$(in_sysroot "$soname")
        [ -n "$path" ] || { echo "make-deb: $soname is not in $sysroot" >&2; exit 1; }
        owner=$(awk -v path="$path" '$1 == path {print $2; exit}' "$owners")
        [ -n "$owner" ] || { echo "make-deb: $path belongs to no package in $owners" >&2; exit 1; }
        packages+=("${owner%%:*}")
    done
    JUKEBOX_DEPENDS=$(printf '%s\n' "${packages[@]}" | sort -u | paste -sd, - | sed 's/,/, /g')
    export JUKEBOX_DEPENDS
    # Build-Depends are this machine's, the libraries' headers the sysroot's.
    buildpackage+=(-a "$arch" -d)
fi
(cd "$tree" && "${buildpackage[@]}" >&2)

mkdir -p "$output"
mv "$stage"/*.deb "$stage"/*.buildinfo "$stage"/*.changes "$output/"
echo "$output/jukebox_${version}_${arch}.deb"
