#!/usr/bin/env bash
# Builds the minimal FFmpeg that jukeboxd opens for AAC and ALAC in MP4 (docs/ARCHITECTURE.md,
# "AAC and ALAC in MP4"): libavutil, libavcodec and libavformat from Debian's own source
# package of the installed libavcodec-dev (same version, same Debian patches, same sonames, so
# the shim compiled against Debian's headers gets the structs it was compiled for), configured
# with only what the shim uses: the MP4 and ADTS demuxers, the AAC parser, the AAC and ALAC
# decoders, the assembly kept (nasm on x86). Debian's build links 126 more libraries, which
# cost 25 MB resident when loaded; this one links libc and libm only.
#   Board/build-ffmpeg.sh              prints the folder of the three libraries (building them once)
#   Board/build-ffmpeg.sh --install DIR  then copies them into DIR under their sonames (a package's
#                                        /usr/lib/jukebox: ../lib/jukebox beside the jukeboxd binary)
# Cached in .build/ffmpeg-minimal/VERSION (not committed; .build/ffmpeg-minimal/lib names the
# current one, where the shim looks in development); the source package is downloaded once
# per version with apt, through a private list of this machine's sources as deb-src lines
# (the system's apt state is not touched).
set -euo pipefail
cd "$(dirname "$0")/.."
install_dir=""
case "${1:-}" in
--install) install_dir=$2 ;;
"") ;;
*) echo "build-ffmpeg: unknown argument $1" >&2; exit 2 ;;
esac
cache=$PWD/.build/ffmpeg-minimal
source=$(dpkg-query -W -f='${source:Package}' libavcodec-dev 2>/dev/null || true)
version=$(dpkg-query -W -f='${source:Version}' libavcodec-dev 2>/dev/null || true)
[ -n "$version" ] || { echo "build-ffmpeg: libavcodec-dev is not installed (./dev setup)" >&2; exit 1; }
out=$cache/${version//:/_}
# The headers' sonames (the shim dlopens by them).
sonames=()
for lib in avutil avcodec avformat; do
    sonames+=("lib$lib.so.$(pkg-config --modversion "lib$lib" | cut -d. -f1)")
done
finish() {
    ln -sfn "$(basename "$out")/lib" "$cache/lib"
    for soname in "${sonames[@]}"; do
        [ -f "$cache/lib/$soname" ] || { echo "build-ffmpeg: built no $soname (the headers' soname)" >&2; exit 1; }
        [ -z "$install_dir" ] || install -D -m 0644 "$cache/lib/$soname" "$install_dir/$soname"
    done
    echo "$cache/lib"
    exit 0
}
[ -f "$out/complete" ] && finish
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
(cd "$work/build" && "$work/src/configure" --prefix="$out" --enable-shared --disable-static \
    --extra-version="${version#*-}-jukebox" --toolchain=hardened \
    --disable-everything --disable-autodetect --disable-programs --disable-doc --disable-network \
    --disable-iconv --disable-avdevice --disable-avfilter --disable-swscale --disable-swresample \
    --disable-postproc --enable-demuxer=mov,aac --enable-parser=aac --enable-decoder=aac,alac >&2)
# Each library finds the other two beside it ($ORIGIN), never Debian's of the same soname
# (the flags pass through make twice, hence four $).
printf '%s\n' 'LDSOFLAGS += -Wl,-rpath,\$$$$ORIGIN' >> "$work/build/ffbuild/config.mak"
make -C "$work/build" -j"$(nproc)" >&2
make -C "$work/build" install-libs >&2

rm -rf "$work"
echo "$source $version: built in $(($(date +%s) - started)) s" > "$out/complete"
cat "$out/complete" >&2
finish
