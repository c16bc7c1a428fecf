#!/usr/bin/env bash
# Boots the virtual board with a shell on this terminal (`./dev vboard`; docs/VIRTUAL-BOARD.md).
#   Tests/Tools/vboard/boot.sh [more qemu arguments]
# The repository is at /host (9p, read-only), the state disk .build/vboard/state.img (ext4,
# made on first use, kept) at /state, and /host/.build/vboard/demo.toml plays the demo
# library to snd-aloop: `jukeboxd --config /host/.build/vboard/demo.toml`. Ctrl-A X quits
# (qemu's monitor is on Ctrl-A C). The tests boot it the same way, from
# Sources/JukeboxTestSupport/VirtualBoard.swift (which adds the control port and a UART pty).
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=$(Tests/Tools/vboard/make-image.sh)
[ -f "$out/state.img" ] || mkfs.ext4 -q -F -b 4096 -L jukebox-state "$out/state.img" 64M
cat > "$out/demo.toml" <<'TOML'
# The demo library on the virtual board (Tests/Tools/vboard/boot.sh).
music_dir = "/host/config/demo-music"
database = "/state/demo/jukebox.sqlite"

[audio]
device = "hw:Loopback,0,0"

[console]
device = "stdin"
TOML
accel=tcg
grep -qE ' (vmx|svm)' /proc/cpuinfo && [ -w /dev/kvm ] && accel=kvm
exec qemu-system-x86_64 -accel "$accel" -cpu max -m 512M -smp 1 -nodefaults -no-user-config -display none \
    -no-reboot -kernel "$out/vmlinux" -initrd "$out/initramfs.cpio" \
    -append "console=ttyS0 quiet panic=-1 vboard.shell" -serial mon:stdio \
    -drive "file=$out/state.img,format=raw,if=virtio" \
    -virtfs "local,path=$PWD,mount_tag=host,security_model=none,readonly=on,id=host" "$@"
