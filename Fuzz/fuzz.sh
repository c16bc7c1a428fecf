#!/usr/bin/env bash
# Builds and runs the libFuzzer targets in Fuzz/ (docs/FUZZING.md); `./dev fuzz` runs it.
#   Fuzz/fuzz.sh --list                      the targets, one a line
#   Fuzz/fuzz.sh [TARGET...] [--seconds N]   fuzz each target N seconds (default 60), one at a time
#   Fuzz/fuzz.sh --smoke                     every target over its seed corpus and a few thousand
#                                            mutations (seconds in all; part of ./dev test)
# Swift targets are Fuzz/<target>/main.swift with Fuzz/Shared/*.swift, linked with the pure
# modules (TOML, JukeboxCore, MPDProtocol; JukeboxWeb and HomeAssistant for the targets that
# import them) built once into .build-fuzz/modules with ASan and libFuzzer's coverage, and
# rebuilt only when a source is newer than its object. C targets are
# Fuzz/<target>/main.c with the C file they test, under ASan and UBSan. A crash, a hang
# (-timeout) or a memory blow-up (-rss_limit_mb) is a finding: its input is written to
# .build-fuzz/findings/<target>/ and the run fails. New inputs found go to
# .build-fuzz/corpus/<target>/; the committed seeds (Fuzz/<target>/corpus/) are only read.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=.build-fuzz
SWIFT_FLAGS=(-O -gline-tables-only -sanitize=fuzzer,address -parse-as-library -use-ld=lld)
C_FLAGS=(-O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fuse-ld=lld -Wall -Werror)
CC=$(dirname "$(command -v swiftc)")/clang
# Per input: 10 s is a hang; 2 GiB is a blow-up (the board has 1-4 GiB).
LIMITS=(-timeout=10 -rss_limit_mb=2048)

targets() { find Fuzz -mindepth 2 -maxdepth 2 -name 'main.*' | cut -d/ -f2 | sort; }

# The longest input: whole files for the binary formats, a few KiB of text otherwise.
max_len() {
    case "$1" in
    id3 | mp4-atoms | flac-blocks | ogg-headers | ogg-comments | mp4-audio) echo 65536 ;;
    # The daemon speaks at most 800 Unicode scalars (4 bytes each at most), a byte picks the voice.
    espeak-text) echo 3201 ;;
    *) echo 8192 ;;
    esac
}

newer_than() {  # newer_than FILE SOURCE...: whether FILE is missing or older than a source
    local file=$1
    shift
    [ ! -e "$file" ] && return 0
    [ -n "$(find "$@" -newer "$file" -print -quit)" ]
}

# build_module NAME [DEPENDENCY...]: Sources/NAME as one object and module (whole module).
build_module() {
    local name=$1 object=$OUT/modules/$1.o
    shift
    local inputs=(Sources/"$name")
    for dependency in "$@"; do inputs+=("$OUT/modules/$dependency.o"); done
    newer_than "$object" "${inputs[@]}" || return 0
    echo "fuzz: building $name" >&2
    mapfile -t sources < <(find Sources/"$name" -name '*.swift' | sort)
    swiftc "${SWIFT_FLAGS[@]}" -wmo -module-name "$name" -I "$OUT/modules" -emit-module \
        -emit-module-path "$OUT/modules/$name.swiftmodule" -c -o "$object" "${sources[@]}"
    # The driver leaves an object it would write byte for byte the same untouched: without
    # this it stays older than its dependency's and is rebuilt at every run.
    touch "$object"
}

build_target() {
    local target=$1 binary=$OUT/bin/$1
    mkdir -p "$OUT/bin" "$OUT/modules"
    case "$target" in
    ogg-headers)
        newer_than "$binary" Fuzz/"$target" Sources/COggHeaders Fuzz/fuzz.sh || return 0
        "$CC" "${C_FLAGS[@]}" -I Sources/COggHeaders/include Fuzz/"$target"/main.c \
            Sources/COggHeaders/ogg_headers.c $(pkg-config --cflags --libs ogg) -o "$binary"
        ;;
    mp4-audio)
        newer_than "$binary" Fuzz/"$target" Sources/CFFmpeg Sources/CLazyLibraries Fuzz/fuzz.sh || return 0
        # The harness includes mp4_audio.c to reach its walker; FFmpeg's headers only, its
        # functions defined (never called) by lazy_libraries.c.
        "$CC" "${C_FLAGS[@]}" -Wno-unused-function -I Sources/CFFmpeg/include -I Sources/CLazyLibraries/include \
            -I /usr/include/opus -I /usr/include/libxml2 $(pkg-config --cflags libavformat) \
            Fuzz/"$target"/main.c Sources/CLazyLibraries/lazy_libraries.c -ldl -lpthread -o "$binary"
        ;;
    *)
        build_module TOML
        build_module JukeboxCore TOML
        build_module MPDProtocol JukeboxCore
        local objects=("$OUT"/modules/{TOML,JukeboxCore,MPDProtocol}.o)
        # The web page's and the Home Assistant bridge's pure modules, for the targets that
        # import them only (the others are not rebuilt when they change).
        if grep -qE '^import (JukeboxWeb|HomeAssistant)$' Fuzz/"$target"/main.swift; then
            build_module JukeboxWeb MPDProtocol
            objects+=("$OUT/modules/JukeboxWeb.o")
        fi
        if grep -qx 'import HomeAssistant' Fuzz/"$target"/main.swift; then
            build_module HomeAssistant JukeboxWeb
            objects+=("$OUT/modules/HomeAssistant.o")
        fi
        # A target that drives a C library the daemon links (espeak-text): its module and library.
        local library=()
        if grep -qx 'import CESpeak' Fuzz/"$target"/main.swift; then library=(-I Sources/CESpeak -lespeak-ng); fi
        newer_than "$binary" Fuzz/"$target" Fuzz/Shared "${objects[@]}" || return 0
        echo "fuzz: building $target" >&2
        swiftc "${SWIFT_FLAGS[@]}" -module-name FuzzTarget -I "$OUT/modules" "${library[@]}" Fuzz/"$target"/main.swift \
            Fuzz/Shared/*.swift "${objects[@]}" -o "$binary"
        ;;
    esac
}

options() {  # options TARGET: the libFuzzer flags every run of TARGET gets
    local dict=()
    [ -f Fuzz/"$1"/dict ] && dict=(-dict=Fuzz/"$1"/dict)
    mkdir -p "$OUT/findings/$1"
    echo "${LIMITS[@]}" -max_len="$(max_len "$1")" -artifact_prefix="$OUT/findings/$1/" "${dict[@]}"
}

# run TARGET LOG FLAG...: runs the target; on a finding shows the report and fails.
run() {
    local target=$1 log=$2
    shift 2
    # shellcheck disable=SC2046
    # SWIFT_BACKTRACE: the Swift runtime's crash handler off, so that ASan reports the crash.
    if ! SWIFT_BACKTRACE=enable=no "$OUT/bin/$target" $(options "$target") "$@" >"$log" 2>&1; then
        grep -v '^#\|^INFO\|^\s*$' "$log" | head -60 >&2
        echo "fuzz: $target: a finding (log $log, input in $OUT/findings/$target/)" >&2
        return 1
    fi
}

seconds=60
chosen=()
mode=fuzz
while [ $# -gt 0 ]; do
    case "$1" in
    --list) targets; exit 0 ;;
    --smoke) mode=smoke ;;
    --seconds) seconds=$2; shift ;;
    -*) echo "fuzz: unknown option $1" >&2; exit 2 ;;
    *)
        targets | grep -qx "$1" || { echo "fuzz: no target $1 (--list lists them)" >&2; exit 2; }
        chosen+=("$1")
        ;;
    esac
    shift
done
[ ${#chosen[@]} -eq 0 ] && mapfile -t chosen < <(targets)
# Objects built with other flags are rebuilt.
mkdir -p "$OUT/modules"
if [ "$(cat "$OUT/modules/flags" 2>/dev/null)" != "${SWIFT_FLAGS[*]}" ]; then
    rm -f "$OUT"/modules/*.o
    echo "${SWIFT_FLAGS[*]}" >"$OUT/modules/flags"
fi
for target in "${chosen[@]}"; do build_target "$target"; done
mkdir -p "$OUT/logs"

status=0
for target in "${chosen[@]}"; do
    log=$OUT/logs/$target.log
    if [ "$mode" = smoke ]; then
        # A fixed seed and a scratch corpus folder: the same runs every time, nothing kept.
        scratch=$(mktemp -d)
        if run "$target" "$log" -seed=1 -runs=2000 "$scratch" Fuzz/"$target"/corpus; then
            echo "fuzz: $target: $(grep -o 'cov: [0-9]*' "$log" | tail -1), smoke ok" >&2
        else
            status=1
        fi
        rm -rf "$scratch"
    else
        mkdir -p "$OUT/corpus/$target"
        echo "fuzz: $target for $seconds s (log $log)" >&2
        run "$target" "$log" -max_total_time="$seconds" -print_final_stats=1 \
            "$OUT/corpus/$target" Fuzz/"$target"/corpus || { status=1; continue; }
        echo "fuzz: $target: $(grep -E '^#[0-9]+' "$log" | tail -1 | sed 's/  */ /g');" \
            "$(grep -o 'number_of_executed_units: [0-9]*' "$log")" >&2
    fi
done
exit $status
