#!/usr/bin/env bash
# Builds jukeboxd the way the board runs it: .build-static/release/jukeboxd, a release build
# with the Swift runtime linked in. Board/install.sh and `./dev bench` both call this.
#   Board/build-jukeboxd.sh [extra swift build arguments]
# Cross (Board/cross-aarch64.sh): JUKEBOXD_TRIPLE and JUKEBOXD_SYSROOT, a root of the target's
# libraries with its Swift runtime in usr/lib/swift_static as a Swift SDK lays it out; the build
# then goes to .build-ARCH (.build-aarch64).
#
# The link is set up for a small resident size (docs/design/MEMORY.md):
# - --static-swift-stdlib: the Swift runtime linked in: 3 MB less resident memory and 4 ms
#   faster start than with the shared Swift libraries, and no toolchain library path needed.
# - lld with packed relative relocations (DT_RELR, glibc 2.36+): the Swift metadata of a
#   position-independent executable needs ~40,000 R_X86_64_RELATIVE relocations; as RELA
#   entries they are 950 kB that the dynamic linker reads at every start and that stay
#   resident; as RELR they are 8 kB. The binary stays PIE (ASLR).
# - --no-export-dynamic: the runtime's link arguments export every Swift symbol of the
#   executable (for plugins that link against it); jukeboxd loads none, and the dynamic
#   symbol table (450 kB) is then not read at start.
# - libstdc++ and libgcc linked in: the Swift runtime is their only user, and the shared
#   libstdc++ costs 1 MB resident (mostly its symbol tables) for the few functions it uses.
#   The runtime's link arguments name `-lstdc++`; a directory that holds only libstdc++.a
#   and is searched before the compiler's own makes that name pick the archive.
# - The functions a box runs first in the code (Board/jukeboxd.order, written by
#   Board/order-jukeboxd.sh), each function in its own section so that lld can move it: the
#   kernel maps code 64 kB around each page fault, and with the functions in use scattered
#   over the 8 MB of code, 6 MB of it was resident; ordered, 3 MB (the standard library's
#   1.6 MB of code is one section in libswiftCore.a and cannot be reordered).
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=.build-static
toolchain=$(dirname "$(readlink -f "$(command -v swift)")")
flags=()
clang_target=()
glibc=$(getconf GNU_LIBC_VERSION | awk '{print $2}')
if [ -n "${JUKEBOXD_SYSROOT:-}" ]; then
    sysroot=$JUKEBOXD_SYSROOT
    scratch=.build-${JUKEBOXD_TRIPLE%%-*}
    clang_target=(--target="$JUKEBOXD_TRIPLE" --sysroot="$sysroot")
    # swift build passes --sdk to clang only; swiftc needs it too, to find the sysroot's glibc.
    flags+=(--triple "$JUKEBOXD_TRIPLE" --sdk "$sysroot" -Xswiftc -sdk -Xswiftc "$sysroot")
    flags+=(-Xswiftc -resource-dir -Xswiftc "$sysroot/usr/lib/swift_static")
    glibc=$(awk '$1 == "#define" && $2 == "__GLIBC__" { major = $3 }
        $1 == "#define" && $2 == "__GLIBC_MINOR__" { print major "." $3 }' "$sysroot/usr/include/features.h")
fi

if [ -x "$toolchain/ld.lld" ]; then
    flags+=(-Xswiftc -use-ld=lld)
    # An lld option (the default linker has none): names the order lists that this build
    # lacks are skipped (counted below).
    flags+=(-Xlinker "--symbol-ordering-file=$PWD/Board/jukeboxd.order" -Xlinker --no-warn-symbol-ordering)
    if [ "$(printf '%s\n' 2.36 "$glibc" | sort -V | head -1)" = 2.36 ]; then
        flags+=(-Xlinker -z -Xlinker pack-relative-relocs)
    else
        echo "build-jukeboxd: glibc $glibc has no DT_RELR (2.36+); relocations stay unpacked" >&2
    fi
else
    echo "build-jukeboxd: no ld.lld in $toolchain; linking with the default linker" >&2
fi
flags+=(-Xlinker --no-export-dynamic)
flags+=(-Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections)

libstdcxx=$("$toolchain/clang" "${clang_target[@]}" -print-file-name=libstdc++.a)
if [ -f "$libstdcxx" ]; then
    mkdir -p "$scratch/static-libstdc++"
    ln -sf "$libstdcxx" "$scratch/static-libstdc++/libstdc++.a"
    flags+=(-Xswiftc -L -Xswiftc "$PWD/$scratch/static-libstdc++" -Xswiftc -Xclang-linker -Xswiftc -static-libgcc)
else
    echo "build-jukeboxd: no libstdc++.a (libstdc++-12-dev); linking the shared libstdc++" >&2
fi

# The Swift driver does not recompile when only frontend flags change: objects compiled
# without -function-sections would stay, and lld cannot order their functions.
stamp=$scratch/function-sections
if [ ! -e "$stamp" ]; then
    find "$scratch" -path '*/release/*.build/*.swift.o' -delete 2>/dev/null || true
fi
# Nor does it link again when only the order changed.
if [ "$scratch/release/jukeboxd" -ot Board/jukeboxd.order ]; then rm -f "$scratch/release/jukeboxd"; fi
swift build -c release --product jukeboxd --static-swift-stdlib --scratch-path "$scratch" "${flags[@]}" "$@"
touch "$stamp"

# The commit it was built from, for `jukeboxd --version` (Sources/CLinuxShims/build_info.c):
# written into its fixed-size section, so the sources stay as they are. "+changes" when the
# tree had uncommitted changes.
if commit=$(git rev-parse --short=12 HEAD 2>/dev/null); then
    git diff --quiet HEAD 2>/dev/null || commit="$commit+changes"
    commit="$commit $(git show -s --format=%cs HEAD)"
    section=$scratch/jukebox-commit
    printf '%s' "$commit" | head -c 63 > "$section"
    truncate -s 64 "$section"
    objcopy=$toolchain/llvm-objcopy
    [ -x "$objcopy" ] || objcopy=objcopy
    "$objcopy" --update-section .jukebox_commit="$section" "$scratch/release/jukeboxd"
fi

# An order that has drifted from the code leaves functions in use scattered again.
missing=$(comm -23 <(sort -u Board/jukeboxd.order) \
    <("$toolchain/llvm-nm" --defined-only "$scratch/release/jukeboxd" | awk '{ print $3 }' | sort -u) | wc -l)
total=$(wc -l < Board/jukeboxd.order)
if [ $((missing * 10)) -gt "$total" ]; then
    echo "build-jukeboxd: $missing of the $total functions in Board/jukeboxd.order are gone; run Board/order-jukeboxd.sh" >&2
fi
