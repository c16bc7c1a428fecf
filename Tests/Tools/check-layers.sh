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

exit $failed
