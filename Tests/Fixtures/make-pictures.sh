#!/bin/sh
# Writes songs with embedded pictures into DEST:
# - Flac/pictures.flac: 2 s of tone with Vorbis comments (readcomments lists them all) and two
#   PICTURE blocks, a 100,000-byte front cover first (readpicture takes the first);
# - MP4/covers.m4a: AAC with iTunes tags, a 5,000,000-byte JPEG cover then a PNG one in 'covr';
#   MP4/png.m4b: a PNG cover alone; MP4/plain.m4a: no cover, a freeform atom and lyrics over
#   two lines (which readcomments leaves out);
# - Ogg/pictures.ogg (Vorbis) and Ogg/pictures.opus: a 100,000-byte front cover then a PNG
#   in METADATA_BLOCK_PICTURE comments (the comment header spans several pages).
# usage: make-pictures.sh DEST
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dest=$1
pictures=$(mktemp -d)
trap 'rm -rf "$pictures"' EXIT
python3 "$here/write_pictures.py" "$pictures" front.jpg:100000:11 back.png:3000:12 cover.jpg:5000000:21 \
    small.png:3000:22
mkdir -p "$dest/Flac" "$dest/MP4" "$dest/Ogg"
flac --silent --force -o "$dest/Flac/pictures.flac" "$here/media/wav/pcm16_stereo.wav"
metaflac --remove-all-tags --set-tag=TITLE=Bilder --set-tag=ARTIST=Flac --set-tag="COMMENT=Zwei Bilder" \
    --set-tag="MOOD=Ruhig" --import-picture-from="3|image/jpeg|Front|300x300x24|$pictures/front.jpg" \
    --import-picture-from="4|image/png|Back|32x32x24|$pictures/back.png" "$dest/Flac/pictures.flac"

aac() {
    ffmpeg -nostdin -loglevel error -y -i "$here/media/wav/pcm16_stereo.wav" -c:a aac -b:a 96k "$@"
}
# mutagen (Debian's python3-mutagen) writes what ffmpeg's muxer cannot: covers, freeform atoms.
tag() { /usr/bin/python3 "$here/../Tools/mp4-freeform.py" "$@"; }
aac -metadata title=Bilder -metadata artist="MP4 Artist" -metadata album_artist="Album Artist" \
    -metadata "comment=Zwei Bilder " -metadata genre=Jazz "$dest/MP4/covers.m4a"
tag "$dest/MP4/covers.m4a" --cover "$pictures/cover.jpg" --cover "$pictures/small.png"
aac -metadata title=Hörbuch -metadata composer="Kapitel Eins" "$dest/MP4/png.m4b"
tag "$dest/MP4/png.m4b" --cover "$pictures/small.png"
aac -metadata title=Ohne -metadata "lyrics=eins
zwei" "$dest/MP4/plain.m4a"
tag "$dest/MP4/plain.m4a" "MusicBrainz Track Id=abc"

oggenc --quiet -t Bilder -a Ogg -o "$dest/Ogg/pictures.ogg" "$here/media/wav/pcm16_stereo.wav"
opusenc --quiet --title Bilder --artist Opus "$here/media/wav/pcm16_stereo.wav" "$dest/Ogg/pictures.opus"
for file in "$dest/Ogg/pictures.ogg" "$dest/Ogg/pictures.opus"; do
    /usr/bin/python3 "$here/../Tools/ogg-picture.py" "$file" "$pictures/front.jpg:image/jpeg" \
        "$pictures/back.png:image/png:4"
done
