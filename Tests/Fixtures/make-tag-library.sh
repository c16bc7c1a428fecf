#!/bin/sh
# Writes a small music library with tags in every ID3 version and text encoding into DEST
# (for the tag tests and the differential test against MPD). Audio: the committed fixtures.
# usage: make-tag-library.sh DEST
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dest=$1
mp3="$here/media/mp3/cbr128.mp3"
id3() { python3 "$here/write_id3.py" frames "$@"; }
mkdir -p "$dest/One" "$dest/Bee" "$dest/Misc"
# Pictures (write_pictures.py). Cover files: One/ has cover.jpg, Bee/ cover.png and
# cover.jpg (MPD takes the PNG first), Misc/ only folder.jpg (the jukebox's extra name).
pictures=$(mktemp -d)
trap 'rm -rf "$pictures"' EXIT
python3 "$here/write_pictures.py" "$pictures" front.jpg:100000:1 small.png:3000:2 unsync.jpg:20000:3 \
    cover-one.jpg:300000:4 cover-bee.png:40000:5 cover-bee.jpg:1000:6 folder-misc.jpg:5000:7
cp "$pictures/cover-one.jpg" "$dest/One/cover.jpg"
cp "$pictures/cover-bee.png" "$dest/Bee/cover.png"
cp "$pictures/cover-bee.jpg" "$dest/Bee/cover.jpg"
cp "$pictures/folder-misc.jpg" "$dest/Misc/folder.jpg"
# ID3v2.4, UTF-8: every tag, two genres, MusicBrainz ids in TXXX and UFID.
id3 4 3 "$mp3" "$dest/One/01 First.mp3" TIT2=First "TPE1=Ärtist One" TPE2=Various "TALB=Album A" TRCK=1/3 \
    TPOS=1/2 TDRC=2001-05-03 TDOR=1999 "TCON=Rock|Pop" TCOM=Compo "TPE3=Conductor X" "COMM=A comment" \
    "TXXX:MusicBrainz Artist Id=11111111-1111-1111-1111-111111111111" \
    "TXXX:MusicBrainz Album Id=22222222-2222-2222-2222-222222222222" \
    "TXXX:MusicBrainz Album Artist Id=33333333-3333-3333-3333-333333333333" \
    "TXXX:MusicBrainz Release Track Id=44444444-4444-4444-4444-444444444444" \
    "UFID:http://musicbrainz.org=55555555-5555-5555-5555-555555555555" \
    "TXXX:CATALOGNUMBER=JB-0001" "TXXX:Not a name=skipped" "APIC:image/jpeg:Front=@$pictures/front.jpg"
# ID3v2.3, UTF-16 with BOM: TYER + TDAT, a genre number in parentheses, TORY.
id3 3 1 "$mp3" "$dest/One/02 Second.mp3" TIT2=Second "TPE1=Ärtist One" "TALB=Album A" TRCK=2 TYER=2001 \
    TDAT=0305 "TCON=(17)" TORY=1999 TCOM=Compo "TXXX:MOOD=Calm" "APIC:image/png:Vorderseite=@$pictures/small.png"
# ID3v2.3, Latin-1: a bare genre number, no date.
id3 3 0 "$mp3" "$dest/One/03 Third.mp3" TIT2=Third "TPE1=Ärtist One" "TALB=Album A" TRCK=3 TCON=17
# ID3v2.4, UTF-16BE without BOM: CJK text.
id3 4 2 "$mp3" "$dest/Bee/01 日本語.mp3" "TIT2=日本語のうた" TPE1=Bee "TALB=Album B" TRCK=1 TDRC=2010 TCON=Jazz \
    "COMM=コメント"
# ID3v2.2, Latin-1: three-letter frames.
id3 2 0 "$mp3" "$dest/Bee/02 Two.mp3" TT2=Two TP1=Bee "TAL=Album B" TRK=2 TYE=2011 "TCO=(8)" "TP2=Bee & Co" \
    TCM=Zed TPA=2
# ID3v2.4, Latin-1: a performer, another date in the same album.
id3 4 0 "$mp3" "$dest/Bee/03 Three.mp3" TIT2=Three TPE1=Bee "TALB=Album B" TRCK=3 TDRC=2011 "TPE3=Pé Former" \
    "APIC~:image/jpeg:=@$pictures/unsync.jpg"
cp "$here/media/tags/id3v1_latin1.mp3" "$dest/Misc/v1.mp3"
cp "$here/media/tags/untagged.mp3" "$dest/Misc/untagged.mp3"
cp "$here/media/wav/pcm16_stereo.wav" "$dest/Misc/tone.wav"
