#!/bin/sh
# Writes DEST/Flac/pictures.flac: 2 s of tone with Vorbis comments (readcomments lists them all)
# and two PICTURE blocks, a 100,000-byte front cover first (readpicture takes the first).
# usage: make-flac-pictures.sh DEST
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dest=$1
pictures=$(mktemp -d)
trap 'rm -rf "$pictures"' EXIT
python3 "$here/write_pictures.py" "$pictures" front.jpg:100000:11 back.png:3000:12
mkdir -p "$dest/Flac"
flac --silent --force -o "$dest/Flac/pictures.flac" "$here/media/wav/pcm16_stereo.wav"
metaflac --remove-all-tags --set-tag=TITLE=Bilder --set-tag=ARTIST=Flac --set-tag="COMMENT=Zwei Bilder" \
    --set-tag="MOOD=Ruhig" --import-picture-from="3|image/jpeg|Front|300x300x24|$pictures/front.jpg" \
    --import-picture-from="4|image/png|Back|32x32x24|$pictures/back.png" "$dest/Flac/pictures.flac"
