#!/usr/bin/env bash
# Builds the Debian package of Jukebox for this machine's architecture, doing what
# Board/install.sh does (binary, systemd unit, config, the `jukebox` user and its groups,
# the state folder, the power-off rule) the Debian way:
#   Board/make-deb.sh                          release build (Board/build-jukeboxd.sh), then package
#   Board/make-deb.sh --binary PATH [--allow-unpackaged-libraries] [--output DIR]
#   Board/make-deb.sh --binary PATH --arch arm64 --sysroot DIR --owners FILE [--output DIR]
#       for another architecture (Board/cross-aarch64.sh): the libraries are looked up in the
#       sysroot DIR (Debian's packages of that architecture unpacked) and their packages in
#       FILE ("PATH PACKAGE SOURCE-VERSION" lines of what the sysroot holds); the minimal FFmpeg
#       is cross-built from the source of its libavcodec-dev.
# Writes DIR/jukebox_VERSION_ARCH.deb (DIR: dist/) and prints its path. `Depends` lists the
# Debian packages that own the libraries jukeboxd links and the ones it opens on first use;
# the minimal FFmpeg (Board/build-ffmpeg.sh) goes in /usr/lib/jukebox.
# A library no package owns (the Swift runtime of a build without --static-swift-stdlib) is
# an error unless --allow-unpackaged-libraries (the install test's debug build).
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

version=$(sed -n 's/.*static let string = "\(.*\)".*/\1/p' Sources/JukeboxCore/Basics.swift)
host=""
if [ "$arch" != "$(dpkg --print-architecture)" ]; then
    [ -n "$sysroot" ] && [ -f "$owners" ] || { echo "make-deb: --arch $arch needs --sysroot and --owners" >&2; exit 2; }
    host=$(dpkg-architecture -a "$arch" -qDEB_HOST_MULTIARCH 2>/dev/null)
fi
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/jukebox

install -D -m 0755 "$binary" "$root/usr/bin/jukeboxd"
# Debug information is for the build machine; the symbols stay (crash backtraces).
"${host:+$host-}objcopy" --strip-debug "$root/usr/bin/jukeboxd"
install -D -m 0644 config/jukebox.toml "$root/etc/jukebox/jukebox.toml"
sed -e "s#/usr/local/bin/jukeboxd#/usr/bin/jukeboxd#g" -e "s#/usr/local/share/jukebox/#/usr/share/jukebox/#g" Board/jukeboxd.service > "$stage/jukeboxd.service"
install -D -m 0644 "$stage/jukeboxd.service" "$root/lib/systemd/system/jukeboxd.service"
install -D -m 0644 Board/deb/50-jukebox-poweroff.rules "$root/usr/share/polkit-1/rules.d/50-jukebox-poweroff.rules"
install -D -m 0755 Board/checkpoint-partition.sh "$root/usr/share/jukebox/checkpoint-partition.sh"
install -D -m 0755 Board/checkpoint-file.sh "$root/usr/share/jukebox/checkpoint-file.sh"
for doc in README.md docs/GUIDE.md docs/COMMANDS.md docs/MPD.md docs/BOARD.md Board/WIRING.md Board/snapserver.conf; do
    install -D -m 0644 "$doc" "$root/usr/share/doc/jukebox/$(basename "$doc")"
done

# The minimal FFmpeg (AAC, ALAC, MP4; Board/build-ffmpeg.sh) in jukeboxd's private folder,
# where it looks first (../lib/jukebox beside /usr/bin/jukeboxd): Debian's FFmpeg and its 126
# libraries are then not needed at all.
if [ -z "$host" ]; then
    Board/build-ffmpeg.sh --install "$root/usr/lib/jukebox" >/dev/null
else
    # The source of the version whose headers the shim was compiled against.
    ffmpeg_version=$(awk '$2 == "libavcodec-dev" {print $3; exit}' "$owners")
    Board/build-ffmpeg.sh --cross "$host" --version "$ffmpeg_version" --install "$root/usr/lib/jukebox" >/dev/null
fi

# The packages that own the linked libraries and the lazily opened ones (CLazyLibraries, and
# what the minimal FFmpeg links): a box of MP3s never maps them, but the formats need them there.
# Another architecture's: each NEEDED entry as its dynamic loader finds it in the sysroot.
in_sysroot() {
    local dir
    for dir in lib/$host usr/lib/$host lib usr/lib; do
        [ -e "$sysroot/$dir/$1" ] && { echo "/$dir/$1"; return; }
    done
}
if [ -z "$host" ]; then
    libraries=$(ldd "$binary" "$root"/usr/lib/jukebox/* | awk '$2 == "=>" && $3 ~ /^\// && $3 !~ /\/usr\/lib\/jukebox\// {print $3}')
else
    libraries=""
    for soname in $(readelf -d "$binary" "$root"/usr/lib/jukebox/* | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u); do
        path=$(in_sysroot "$soname")
        [ -n "$path" ] || { echo "make-deb: $soname (NEEDED) is not in $sysroot" >&2; exit 1; }
        libraries="$libraries $path"
    done
fi
for soname in libFLAC.so.12 libvorbisfile.so.3 libopusfile.so.0 libsoxr.so.0; do
    if [ -z "$host" ]; then
        path=$(ldconfig -p | awk -v name="$soname" '$1 == name && !found {print $NF; found = 1}')
    else
        path=$(in_sysroot "$soname")
    fi
    [ -n "$path" ] || { echo "make-deb: $soname is not installed${host:+ in $sysroot} (./dev setup)" >&2; exit 1; }
    libraries="$libraries $path"
done
owner_of() {
    if [ -z "$host" ]; then
        dpkg -S "$1" 2>/dev/null || dpkg -S "$(readlink -f "$1")" 2>/dev/null || true
    else
        awk -v path="$1" '$1 == path {print $2; exit}' "$owners"
    fi
}
packages=()
for library in $libraries; do
    owner=$(owner_of "$library")
    if [ -z "$owner" ]; then
        if [ "$allow_unpackaged" = 1 ]; then
            echo "make-deb: $library belongs to no package; not in Depends" >&2
            continue
        fi
        echo "make-deb: $library belongs to no Debian package; build with Board/build-jukeboxd.sh" >&2
        exit 1
    fi
    packages+=("${owner%%:*}")
done
depends=$(printf '%s\n' "${packages[@]}" passwd | sort -u | paste -sd, - | sed 's/,/, /g')

mkdir -p "$root/DEBIAN"
cat > "$root/DEBIAN/control" <<CONTROL
Package: jukebox
Version: $version
Architecture: $arch
Maintainer: Jukebox developers <jukebox@localhost>
Section: sound
Priority: optional
Depends: $depends
Recommends: alsa-utils, libasound2-plugins, unifont, libespeak-ng1
Suggests: snapserver
Installed-Size: $(du -sk "$root" | cut -f1)
Description: headless music box daemon for Raspberry Pi and other boards
 jukeboxd plays a folder of MP3, FLAC, Ogg Vorbis, Opus, AAC/ALAC and WAV files through
 ALSA, gapless, resumes where it was after a power cut, takes buttons, a knob, cards and
 MPD clients, and can feed a Snapcast server for multi-room audio.
CONTROL
echo /etc/jukebox/jukebox.toml > "$root/DEBIAN/conffiles"
install -m 0755 Board/deb/postinst Board/deb/prerm Board/deb/postrm "$root/DEBIAN/"

mkdir -p "$output"
deb="$output/jukebox_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zgzip --build "$root" "$deb" >&2
echo "$deb"
