#!/usr/bin/env bash
# Builds the minimal FFmpeg that jukeboxd opens for AAC and ALAC in MP4 (docs/ARCHITECTURE.md,
# "AAC and ALAC in MP4"): libavutil, libavcodec and libavformat from Debian's own source
# package of the installed libavcodec-dev (same version and Debian patches, so
# the shim compiled against Debian's headers gets the structs it was compiled for), configured
# with only what the shim uses: the MP4 and ADTS demuxers, the AAC parser, the AAC and ALAC
# decoders, the assembly kept (nasm on x86), linked into one library (below). Debian's build
# links 126 more libraries, which cost 25 MB resident when loaded; this one libc and libm only.
#   Board/build-ffmpeg.sh              prints the folder of libjukebox-ffmpeg.so (building it once)
#   Board/build-ffmpeg.sh --install DIR  then copies it into DIR (a package's /usr/lib/jukebox:
#                                        ../lib/jukebox beside the jukeboxd binary)
#   Board/build-ffmpeg.sh --cross aarch64-linux-gnu --version V [--install DIR]
#       the same for another machine, with Debian's cross compiler (gcc-aarch64-linux-gnu) from
#       the source of version V (that of the target's libavcodec-dev; Board/cross-aarch64.sh)
# Cached in .build/ffmpeg-minimal/VERSION (the static libraries and the linked one; not
# committed; .build/ffmpeg-minimal/lib names the current one, where the shim looks in development); the source package is downloaded once
# per version with apt, through a private list of this machine's sources as deb-src lines
# (the system's apt state is not touched).
set -euo pipefail
cd "$(dirname "$0")/.."
install_dir=""
cross=""
version=""
while [ $# -gt 0 ]; do
    case "$1" in
    --install) install_dir=$2; shift 2 ;;
    --cross) cross=$2; shift 2 ;;
    --version) version=$2; shift 2 ;;
    *) echo "build-ffmpeg: unknown argument $1" >&2; exit 2 ;;
    esac
done
cache=$PWD/.build/ffmpeg-minimal
source=ffmpeg
if [ -z "$cross" ]; then
    source=$(dpkg-query -W -f='${source:Package}' libavcodec-dev 2>/dev/null || true)
    version=$(dpkg-query -W -f='${source:Version}' libavcodec-dev 2>/dev/null || true)
    [ -n "$version" ] || { echo "build-ffmpeg: libavcodec-dev is not installed (./dev setup)" >&2; exit 1; }
    out=$cache/${version//:/_}
    cc=gcc
    configure_cross=()
else
    [ -n "$version" ] || { echo "build-ffmpeg: --cross needs --version" >&2; exit 2; }
    cc=$cross-gcc
    command -v "$cc" >/dev/null || { echo "build-ffmpeg: no $cc (apt-get install gcc-$cross)" >&2; exit 1; }
    out=$cache/${version//:/_}-$cross
    configure_cross=(--enable-cross-compile --cross-prefix="$cross-" --arch="${cross%%-*}" --target-os=linux)
fi
# One shared library, libjukebox-ffmpeg.so, exporting only the functions mp4_audio.c calls
# (the AVFORMAT/AVCODEC/AVUTIL_FUNCTIONS lists of lazy_libraries.c, which defines them) and
# linked with --gc-sections from the static libraries, so that it holds only the code they
# reach: 0.9 MB where the three shared libraries are 1.8 MB, 0.6 MB less resident while
# decoding. Linked again whenever that list changes.
link() {
    local exports=$out/exports.map
    {
        echo "{ global:"
        grep -oE '^ *X\((AF|AC|AU), [^,]+, [a-z_0-9]+,' Sources/CLazyLibraries/lazy_libraries.c |
            sed -E 's/.*, ([a-z_0-9]+),$/    \1;/'
        echo "local: *; };"
    } > "$exports.new"
    # Untouched when nothing changed: tests may be loading it meanwhile (make-deb runs this).
    if cmp -s "$exports.new" "$exports" && [ -f "$out/lib/libjukebox-ffmpeg.so" ]; then
        rm "$exports.new"
        return
    fi
    mkdir -p "$out/lib"
    "$cc" -shared -o "$out/lib/libjukebox-ffmpeg.so.new" -Wl,-soname,libjukebox-ffmpeg.so -Wl,--version-script="$exports.new" \
        -Wl,--gc-sections -Wl,-Bsymbolic -Wl,-z,relro -Wl,-z,now -Wl,-z,noexecstack -s \
        -Wl,--whole-archive "$out"/static/libavformat.a "$out"/static/libavcodec.a "$out"/static/libavutil.a \
        -Wl,--no-whole-archive -lm
    mv "$out/lib/libjukebox-ffmpeg.so.new" "$out/lib/libjukebox-ffmpeg.so"
    mv "$exports.new" "$exports"
}
# $cache/lib, where the shim looks in development, names this machine's build only.
finish() {
    link
    local lib=$out/lib
    if [ -z "$cross" ]; then
        [ "$(readlink "$cache/lib")" = "$(basename "$out")/lib" ] || ln -sfn "$(basename "$out")/lib" "$cache/lib"
        lib=$cache/lib
    fi
    [ -z "$install_dir" ] || install -D -m 0644 "$lib/libjukebox-ffmpeg.so" "$install_dir/libjukebox-ffmpeg.so"
    echo "$lib"
    exit 0
}
[ -f "$out/complete" ] && [ -d "$out/static" ] && finish
started=$(date +%s)

# The source package: this machine's apt sources (one-line and deb822) as deb-src only.
apt=$cache/apt
rm -rf "$apt/sources.list.d" && mkdir -p "$apt/sources.list.d" "$apt/lists/partial" "$apt/cache/archives/partial"
sed -nE 's/^[[:space:]]*deb([[:space:]])/deb-src\1/p' /etc/apt/sources.list > "$apt/sources.list" 2>/dev/null || true
for list in /etc/apt/sources.list.d/*.list; do
    [ -f "$list" ] && sed -nE 's/^[[:space:]]*deb([[:space:]])/deb-src\1/p' "$list" > "$apt/sources.list.d/$(basename "$list")"
done
for list in /etc/apt/sources.list.d/*.sources; do
    [ -f "$list" ] && sed -E 's/^Types:.*/Types: deb-src/' "$list" > "$apt/sources.list.d/$(basename "$list")"
done
# The download methods run as this user: the lists are this user's files, not the system's.
apt_private=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=$apt/sources.list.d"
    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o "APT::Sandbox::User=$(id -un)")
mkdir -p "$cache/debian"
if ! ls "$cache/debian/${source}_${version#*:}.dsc" >/dev/null 2>&1; then
    # A source without deb-src indexes (a third-party repository) fails alone; apt-get source says
    # whether the one needed was found.
    apt-get "${apt_private[@]}" update -qq >&2 || echo "build-ffmpeg: some deb-src indexes failed (above)" >&2
    (cd "$cache/debian" && apt-get "${apt_private[@]}" source --download-only "$source=$version" >&2)
fi

work=$out.partial
rm -rf "$out"
rm -rf "$work" && mkdir -p "$work"
dpkg-source -x "$cache/debian/${source}_${version#*:}.dsc" "$work/src" >&2
mkdir -p "$work/build"
# Only what mp4_audio.c reaches: the MP4 demuxer (files: tags, chapters, the sample index)
# and the ADTS one (radio streams, which need the AAC parser), AAC and ALAC. Custom I/O, so
# no protocol; no external library at all (--disable-autodetect); the programs, documentation
# and the other five libraries not built. Debian's toolchain flags (--toolchain=hardened).
(cd "$work/build" && "$work/src/configure" "${configure_cross[@]}" --disable-shared --enable-static --enable-pic \
    --extra-cflags="-ffunction-sections -fdata-sections" \
    --extra-version="${version#*-}-jukebox" --toolchain=hardened \
    --disable-everything --disable-autodetect --disable-programs --disable-doc --disable-network \
    --disable-iconv --disable-avdevice --disable-avfilter --disable-swscale --disable-swresample \
    --disable-postproc --enable-demuxer=mov,aac --enable-parser=aac --enable-decoder=aac,alac >&2)
make -C "$work/build" -j"$(nproc)" >&2
mkdir -p "$out/static"
for lib in avutil avcodec avformat; do cp "$work/build/lib$lib/lib$lib.a" "$out/static/"; done

rm -rf "$work"
echo "$source $version: built in $(($(date +%s) - started)) s" > "$out/complete"
cat "$out/complete" >&2
finish
