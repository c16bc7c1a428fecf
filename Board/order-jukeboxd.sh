#!/usr/bin/env bash
# Writes Board/jukeboxd.order: the functions of jukeboxd that a box runs, which
# Board/build-jukeboxd.sh asks lld to put first in the code (docs/design/MEMORY.md, "Resident
# memory"). The kernel maps code 64 kB around each page fault, so functions in use scattered
# over the 8 MB of code kept 6 MB of it resident; together they fill ~1 MB.
#   Board/order-jukeboxd.sh   (after Board/build-jukeboxd.sh; takes a few minutes)
# Runs the board build under callgrind, as a box runs: a first start that scans a folder and
# plays (one run per format: MP3, WAV, FLAC, Vorbis, Opus, AAC, ALAC), a restart that resumes,
# an MPD client asking for the status; lists every function executed that jukeboxd defines.
# Functions missing from the list still run, from the cold part of the code.
set -euo pipefail
cd "$(dirname "$0")/.."
binary=.build-static/release/jukeboxd
[ -x "$binary" ] || { echo "order-jukeboxd: build it first (Board/build-jukeboxd.sh)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# valgrind cannot read the DWARF of this link; the symbol table is what it needs.
strip --strip-debug -o "$work/jukeboxd" "$binary"

sox -n -r 44100 -c 2 -b 16 "$work/tone.wav" synth 4 sine 440 sine 660 gain -6
encode() { # folder, file name, command with IN and OUT
    mkdir -p "$work/music/$1"
    local cmd=${3//IN/$work/tone.wav}
    eval "${cmd//OUT/$work/music/$1/$2}" >/dev/null 2>&1
}
encode mp3 tone.mp3 "lame --quiet -V2 IN OUT"
encode wav tone.wav "cp IN OUT"
encode flac tone.flac "flac --silent -o OUT IN"
encode ogg tone.ogg "oggenc --quiet -o OUT IN"
encode opus tone.opus "opusenc --quiet IN OUT"
encode aac tone.m4a "ffmpeg -nostdin -v error -i IN -c:a aac OUT"
encode alac tone.m4a "ffmpeg -nostdin -v error -i IN -c:a alac OUT"

port=$((20000 + RANDOM % 20000))
run() { # folder, tag
    local dir=$work/run-$1
    mkdir -p "$dir"
    cat > "$dir/jukebox.toml" <<EOF
music_dir = "$work/music/$1"
database = "$dir/jukebox.sqlite"
[audio]
device = "null"
pacing = "clock"
[resume]
on_start = "play"
checkpoint_device = ""
[network]
port = $port
EOF
    valgrind --tool=callgrind --demangle=no --dump-instr=no --callgrind-out-file="$work/$1-$2.callgrind" \
        "$work/jukeboxd" --config "$dir/jukebox.toml" --console none > "$dir/log-$2" 2>&1 &
    local pid=$!
    for _ in $(seq 300); do
        grep -q 'playing "' "$dir/log-$2" && break
        kill -0 "$pid" 2>/dev/null || { cat "$dir/log-$2" >&2; exit 1; }
        sleep 0.1
    done
    sleep 2
    printf 'status\ncurrentsong\nclose\n' | timeout 10 bash -c "cat > /dev/tcp/127.0.0.1/$port" || true
    sleep 1
    kill -TERM "$pid"
    wait "$pid" || true
}
for folder in mp3 wav flac ogg opus aac alac; do run "$folder" first; done
run mp3 restart

# Every function name callgrind saw (fn= and cfn=, named on first use), kept when jukeboxd
# defines it in its code; sorted, so that a new list diffs against the old one.
sed -nE 's/^c?fn=\([0-9]+\) (.*)$/\1/p' "$work"/*.callgrind | sort -u > "$work/executed"
nm --defined-only "$binary" | awk '$2 ~ /^[tTwW]$/ { print $3 }' | sort -u > "$work/defined"
comm -12 "$work/executed" "$work/defined" > "$work/listed"
# A function in a section with others (the standard library is one 1.6 MB section in
# libswiftCore.a) moves that whole section to where its first name is listed: those go last,
# after the functions lld places one by one.
toolchain=$(dirname "$(readlink -f "$(command -v swift)")")
python3 - "$work/listed" "$toolchain/../lib/swift_static/linux"/*.a \
    "$("$toolchain/clang" -print-file-name=libstdc++.a)" > Board/jukeboxd.order <<'PY'
import re, subprocess, sys
shared = set()
for archive in sys.argv[2:]:
    text = subprocess.run(["readelf", "-SsW", archive], capture_output=True).stdout.decode("utf-8", "replace")
    for member in text.split("\nFile: ")[1:]:
        # Code sections over 64 kB: many functions in one.
        big = {m[1] for m in re.finditer(
            r"^\s*\[\s*(\d+)\]\s+\S+\s+PROGBITS\s+\S+\s+\S+\s+(\S+)\s+\S+\s+\S*X", member, re.M)
            if int(m[2], 16) > 64 * 1024}
        for m in re.finditer(r"^\s*\d+:\s+\S+\s+\d+\s+FUNC\s+\S+\s+\S+\s+(\d+)\s+(\S+)", member, re.M):
            if m[1] in big:
                shared.add(m[2])
names = open(sys.argv[1]).read().split()
print("\n".join([n for n in names if n not in shared] + [n for n in names if n in shared]))
PY
echo "order-jukeboxd: $(wc -l < Board/jukeboxd.order) functions in Board/jukeboxd.order"
