#!/usr/bin/env bash
# Regenerates Tests/Fixtures/media/ (test media for decoder, gapless, tag and scanner tests).
# Deterministic: sox -R (fixed dither/noise seed), fixed seeds for random bytes, lame.
# Needs: sox, lame, mpg123, python3 (Debian: apt-get install -y sox lame mpg123 python3).
# Run from anywhere: Tests/Fixtures/make-fixtures.sh   (then commit the media/ folder)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="$HERE/media"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

for tool in sox lame mpg123 python3; do
    command -v "$tool" >/dev/null || { echo "make-fixtures: $tool is missing" >&2; exit 1; }
done

rm -rf "$OUT"
mkdir -p "$OUT"/{gapless,mp3,wav,tags,bad}

SOX=(sox -R -V1)
LAME=(lame --quiet)

# chord RATE CHANNELS SECONDS OUT.wav [BITS]
# A chord progression (C - Am - F - G, plucked triads over a sine bass), repeated to fill
# SECONDS; stereo puts the notes at different places in the image.
chord() {
    local rate=$1 ch=$2 secs=$3 out=$4 bits=${5:-16}
    local chords=("C4 E4 G4 C3" "A3 C4 E4 A2" "F3 A3 C4 F2" "G3 B3 D4 G2")
    local parts=() i=0 n
    n=$(python3 -c "import math; print(math.ceil($secs / 0.75))")
    while [ "$i" -lt "$n" ]; do
        read -r a b c bass <<<"${chords[$((i % 4))]}"
        "${SOX[@]}" -n -r "$rate" -b 16 "$TMP/c$i.wav" \
            synth 0.75 pluck "$a" pluck "$b" pluck "$c" sine "$bass" \
            remix 1v0.5,2v0.3,3v0.2,4v0.25 2v0.5,3v0.4,1v0.2,4v0.25 \
            fade q 0.01 0.75 0.05
        parts+=("$TMP/c$i.wav")
        i=$((i + 1))
    done
    "${SOX[@]}" "${parts[@]}" -b "$bits" "$TMP/chain.wav" trim 0 "$secs" gain -n -3
    "${SOX[@]}" "$TMP/chain.wav" -r "$rate" -c "$ch" -b "$bits" "$out" \
        ${ch:+remix $( [ "$ch" = 1 ] && echo "1,2" || echo "1 2")}
    rm -f "$TMP"/c*.wav "$TMP/chain.wav"
}

frames() { # decoded PCM frames (S16 stereo or mono) of mpg123 -s output
    local bytes_per_frame=$1; shift
    echo $(( $(mpg123 -q --gapless -s "$@" | wc -c) / bytes_per_frame ))
}

# ---- gapless: one continuous 6 s signal cut sample-exactly into 3 x 88,200 frames ----
# Three sine sweeps (a rising major triad) with a slow tremolo: any gap, overlap or
# click at a cut point shows in the samples.
"${SOX[@]}" -n -r 44100 -b 16 "$TMP/gapless3.wav" \
    synth 6 sine 220-330 sine 277.18-415.3 sine 329.63-493.88 \
    remix 1v0.45,2v0.3,3v0.15 1v0.15,2v0.3,3v0.45 tremolo 1.5 30
for i in 1 2 3; do
    "${SOX[@]}" "$TMP/gapless3.wav" "$TMP/part$i.wav" trim "$(( (i - 1) * 88200 ))s" 88200s
    "${LAME[@]}" -V 2 "$TMP/part$i.wav" "$OUT/gapless/part$i.mp3"
done

# ---- mp3: MPEG versions, modes and headers ----
chord 44100 2 3 "$TMP/s44.wav"
chord 44100 1 3 "$TMP/m44.wav"
chord 22050 2 3 "$TMP/s22.wav"
chord 11025 2 3 "$TMP/s11.wav"
"${LAME[@]}" -b 128 --cbr "$TMP/s44.wav" "$OUT/mp3/cbr128.mp3"       # MPEG-1 L3, Info header
"${LAME[@]}" -V 2 "$TMP/s44.wav" "$OUT/mp3/vbr_v2.mp3"               # VBR, Xing + LAME tag
"${LAME[@]}" -b 64 --cbr "$TMP/s22.wav" "$OUT/mp3/mpeg2_22k.mp3"     # MPEG-2 (22,050 Hz)
"${LAME[@]}" -b 32 --cbr "$TMP/s11.wav" "$OUT/mp3/mpeg25_11k.mp3"    # MPEG-2.5 (11,025 Hz)
"${LAME[@]}" -m m -b 96 --cbr "$TMP/m44.wav" "$OUT/mp3/mono.mp3"     # mono 44.1 kHz
"${LAME[@]}" -t -b 128 --cbr "$TMP/s44.wav" "$OUT/mp3/cbr_noxing.mp3" # no Xing/LAME frame

# ---- wav ----
chord 44100 2 2 "$OUT/wav/pcm16_stereo.wav" 16
chord 48000 1 2 "$OUT/wav/pcm16_48k_mono.wav" 16
chord 44100 2 1 "$OUT/wav/pcm24_stereo.wav" 24

# ---- tags: one short mono clip, tagged by write_id3.py (raw ID3 bytes) ----
chord 44100 1 1 "$TMP/tagsrc.wav"
"${LAME[@]}" -m m -b 64 --cbr "$TMP/tagsrc.wav" "$TMP/tagbase.mp3"
W="$HERE/write_id3.py"
python3 "$W" v1  "$TMP/tagbase.mp3" "$OUT/tags/id3v1_latin1.mp3"    "Café Müller" "Zoë" "Ça va" 3
python3 "$W" v22 "$TMP/tagbase.mp3" "$OUT/tags/id3v22.mp3"          "Two Two" "Old Tagger" "Vintage" "2/9"
python3 "$W" v23 "$TMP/tagbase.mp3" "$OUT/tags/id3v23_utf16.mp3"    "Ünïcödé Sixteen" "Ærø" "Ελληνικά" 7
python3 "$W" v24 "$TMP/tagbase.mp3" "$OUT/tags/id3v24_utf8_cjk.mp3" "夜に駆ける" "YOASOBI" "THE BOOK" 1
cp "$TMP/tagbase.mp3" "$OUT/tags/untagged.mp3"
{
    printf 'file\ttitle\tartist\talbum\ttrack\n'
    printf 'id3v1_latin1.mp3\tCafé Müller\tZoë\tÇa va\t3\n'
    printf 'id3v22.mp3\tTwo Two\tOld Tagger\tVintage\t2/9\n'
    printf 'id3v23_utf16.mp3\tÜnïcödé Sixteen\tÆrø\tΕλληνικά\t7\n'
    printf 'id3v24_utf8_cjk.mp3\t夜に駆ける\tYOASOBI\tTHE BOOK\t1\n'
    printf 'untagged.mp3\t\t\t\t\n'
} >"$OUT/tags/expected.tsv"

# ---- bad: files a decoder/scanner must reject or survive ----
: >"$OUT/bad/empty.mp3"
printf 'This is not an MP3 file.\nIt is plain text with an .mp3 name.\n' >"$OUT/bad/text.mp3"
python3 - "$OUT/mp3/cbr128.mp3" "$OUT/bad" <<'PY'
import random, sys
src, bad = sys.argv[1], sys.argv[2]
mp3 = open(src, "rb").read()
cut = len(mp3) * 2 // 5 + 101          # ~40 %, +101 so the cut lands inside a frame
open(f"{bad}/truncated.mp3", "wb").write(mp3[:cut])
open(f"{bad}/random.mp3", "wb").write(random.Random(20261122).randbytes(16384))
open(f"{bad}/leading_junk.mp3", "wb").write(random.Random(4096).randbytes(4096) + mp3)
PY
printf 'Liner notes: not audio. A library scanner must skip this file.\n' >"$OUT/bad/notes.txt"

# ---- checks ----
fail=0
check() { # what expected actual
    if [ "$2" = "$3" ]; then echo "ok   $1 = $3"; else echo "FAIL $1: expected $2, got $3" >&2; fail=1; fi
}
cd "$OUT/gapless"
check "gapless part1+2+3 frames" 264600 "$(frames 4 part1.mp3 part2.mp3 part3.mp3)"
for i in 1 2 3; do check "gapless part$i frames" 88200 "$(frames 4 "part$i.mp3")"; done
cd "$OUT/mp3"
for f in *.mp3; do echo "     mp3/$f: $(mpg123 -t -v "$f" 2>&1 | grep -m1 -E '^MPEG [0-9.]+ L III' || true)"; done
check "mp3/mpeg2_22k.mp3 version" "MPEG 2.0" "$(mpg123 -t -v mpeg2_22k.mp3 2>&1 | grep -m1 -oE '^MPEG [0-9.]+')"
check "mp3/mpeg25_11k.mp3 version" "MPEG 2.5" "$(mpg123 -t -v mpeg25_11k.mp3 2>&1 | grep -m1 -oE '^MPEG [0-9.]+')"
check "mp3/cbr_noxing.mp3 has no Xing/Info frame" 0 "$(head -c 2048 cbr_noxing.mp3 | grep -c -a -E 'Xing|Info' || true)"
exit "$fail"
