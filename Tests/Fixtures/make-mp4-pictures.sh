#!/bin/sh
# Writes DEST/MP4/: covers.m4a (AAC with iTunes tags, a 5,000,000-byte JPEG cover then a PNG
# one in 'covr': readpicture takes the first), png.m4b (a PNG cover alone) and plain.m4a (no
# cover; a freeform atom and lyrics over two lines, which readcomments leaves out).
# usage: make-mp4-pictures.sh DEST
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dest=$1
pictures=$(mktemp -d)
trap 'rm -rf "$pictures"' EXIT
python3 "$here/write_pictures.py" "$pictures" front.jpg:5000000:21 back.png:3000:22
mkdir -p "$dest/MP4"
aac() {
    ffmpeg -nostdin -loglevel error -y -i "$here/media/wav/pcm16_stereo.wav" -c:a aac -b:a 96k "$@"
}
aac -metadata title=Bilder -metadata artist="MP4 Artist" -metadata album_artist="Album Artist" \
    -metadata "comment=Zwei Bilder " -metadata genre=Jazz "$dest/MP4/covers.m4a"
/usr/bin/python3 "$here/../Tools/mp4-freeform.py" "$dest/MP4/covers.m4a" --cover "$pictures/front.jpg" \
    --cover "$pictures/back.png"
aac -metadata title=Hörbuch -metadata composer="Kapitel Eins" "$dest/MP4/png.m4b"
/usr/bin/python3 "$here/../Tools/mp4-freeform.py" "$dest/MP4/png.m4b" --cover "$pictures/back.png"
aac -metadata title=Ohne -metadata "lyrics=eins
zwei" "$dest/MP4/plain.m4a"
/usr/bin/python3 "$here/../Tools/mp4-freeform.py" "$dest/MP4/plain.m4a" "MusicBrainz Track Id=abc"
