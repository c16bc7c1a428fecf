#!/usr/bin/env bash
# The layering rules SwiftPM cannot state, checked on the import lines of Sources/:
#   - a pure target (TOML, JukeboxCore, MPDProtocol, JukeboxWeb, HomeAssistant) imports only other pure targets: no Glibc,
#     no Foundation, no C module, nothing else (the Swift standard library needs no import);
#   - only the executable jukeboxd imports JukeboxDaemon (adapters never reach up into the wiring);
#   - the daemon's targets import neither Hummingbird nor SwiftNIO (only jukebox-web's do).
# SwiftPM's --explicit-target-dependency-import-check enforces that each import is declared;
# this enforces which imports may be declared at all. Prints each offending line; exit 1 if any.
set -euo pipefail
cd "$(dirname "$0")/../.."

pure=(TOML JukeboxCore MPDProtocol JukeboxWeb HomeAssistant)
failed=0

# "path:line: module" for every import in the .swift files under the given folders, whatever
# its attributes (@testable, @preconcurrency, …) or kind (`import struct Glibc.timespec`).
imports() {
    local dirs=()
    for d in "$@"; do [ -d "$d" ] && dirs+=("$d"); done  # a target not made yet is fine
    [ ${#dirs[@]} -eq 0 ] && return 0
    grep -rnE --include='*.swift' \
        '^[[:space:]]*(@[A-Za-z_]+(\([^)]*\))?[[:space:]]+)*import[[:space:]]' "${dirs[@]}" |
        sed -E 's/^([^:]+:[0-9]+):[[:space:]]*(@[A-Za-z_]+(\([^)]*\))?[[:space:]]+)*import[[:space:]]+((typealias|struct|class|enum|protocol|let|var|func)[[:space:]]+)?([A-Za-z_][A-Za-z0-9_]*).*/\1: \6/'
}

for target in "${pure[@]}"; do
    while IFS= read -r hit; do
        module=${hit##*: }
        if [[ " ${pure[*]} " != *" $module "* ]]; then
            echo "$hit: the pure target $target imports $module (only ${pure[*]} are allowed)"
            failed=1
        fi
    done < <(imports "Sources/$target")
done

for dir in Sources/*/; do
    target=$(basename "$dir")
    [ "$target" = jukeboxd ] && continue
    while IFS= read -r hit; do
        if [ "${hit##*: }" = JukeboxDaemon ]; then
            echo "$hit: $target imports JukeboxDaemon (only the jukeboxd executable wires the daemon)"
            failed=1
        fi
    done < <(imports "$dir")
done

# jukeboxd's memory and audio path stay as they were: the web server lives in its own process.
web_only='^(Hummingbird[A-Za-z]*|NIO[A-Za-z]*|JukeboxWebServer)$'
for dir in Sources/*/; do
    target=$(basename "$dir")
    case "$target" in JukeboxWebServer | jukebox-web) continue ;; esac
    while IFS= read -r hit; do
        if [[ "${hit##*: }" =~ $web_only ]]; then
            echo "$hit: $target imports ${hit##*: } (only jukebox-web's targets may)"
            failed=1
        fi
    done < <(imports "$dir")
done

# One loader: every library opened on first use goes through CLazyLibraries (its soname table,
# its once-per-library load and error text); no other target calls dlopen.
while IFS= read -r hit; do
    echo "$hit: dlopen outside Sources/CLazyLibraries (load the library through jb_lazy_load)"
    failed=1
done < <(grep -rnE '\bdlopen[[:space:]]*\(' Sources --include='*.c' --include='*.h' --include='*.swift' |
    grep -v '^Sources/CLazyLibraries/')

# No path of the checkout in the binaries: #filePath (a source's absolute path) only in the
# test support, and no build setting that writes the checkout's place into them.
while IFS= read -r hit; do
    echo "$hit: #filePath in a shipped target writes the checkout's absolute path into the binary"
    failed=1
done < <(grep -rn '#filePath' Sources --include='*.swift' | grep -v '^Sources/JukeboxTestSupport/')
while IFS= read -r hit; do
    echo "Package.swift:$hit: a build setting with the package's own path puts the checkout's path in the binary"
    failed=1
done < <(grep -nE 'Context\.packageDirectory|#filePath|\.define\([^)]*(DIR|PATH)' Package.swift)

exit $failed
