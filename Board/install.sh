#!/usr/bin/env bash
# Installs Jukebox on a Raspberry Pi (or any Debian-based ARM/x86 board) as a system service.
#   sudo Board/install.sh            build, install, enable and start jukeboxd and jukebox-web
# Afterwards: edit /etc/jukebox/jukebox.toml (music_dir, pins, display), then
#   sudo jukeboxd --config /etc/jukebox/jukebox.toml --check-config && sudo systemctl restart jukeboxd
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then echo "install.sh: run me with sudo" >&2; exit 1; fi

./dev setup
# Release, the Swift runtime linked in, linked for a small resident size (see the script).
Board/build-jukeboxd.sh
install -m 0755 .build-static/release/jukeboxd /usr/local/bin/jukeboxd
# The minimal FFmpeg for AAC and ALAC, where jukeboxd looks first (../lib/jukebox beside it).
Board/build-ffmpeg.sh --install /usr/local/lib/jukebox >/dev/null

id jukebox >/dev/null 2>&1 || useradd --system --home-dir /var/lib/jukebox --shell /usr/sbin/nologin jukebox
for group in audio gpio dialout input video i2c; do
    getent group "$group" >/dev/null && usermod -a -G "$group" jukebox
done
# The shutdown gesture runs `systemctl poweroff` ([buttons] shutdown_command) as this user.
if [ -d /etc/polkit-1/rules.d ]; then
    install -m 0644 Board/deb/50-jukebox-poweroff.rules /etc/polkit-1/rules.d/50-jukebox-poweroff.rules
fi
install -d -o jukebox -g jukebox -m 0750 /var/lib/jukebox
install -d -m 0755 /etc/jukebox
if [ ! -f /etc/jukebox/jukebox.toml ]; then
    install -m 0644 config/jukebox.toml /etc/jukebox/jukebox.toml
    echo "install.sh: wrote /etc/jukebox/jukebox.toml; set music_dir in it" >&2
elif grep -q '^checkpoint_device = ""' /etc/jukebox/jukebox.toml; then
    # A config from before the unit made the checkpoint device (docs/design/RESUME.md, "Resume and SD-card writes").
    echo "install.sh: for 0.46 MB/h of checkpoints on Linux 6.6+, set checkpoint_device = \"/run/jukebox-checkpoint\" under [resume] in /etc/jukebox/jukebox.toml" >&2
fi
install -D -m 0755 Board/checkpoint-file.sh /usr/local/share/jukebox/checkpoint-file.sh
install -m 0644 Board/jukeboxd.service /etc/systemd/system/jukeboxd.service
# The web page, a process of its own (the music does not depend on it); the Swift runtime
# linked in as for jukeboxd, its own build folder (other flags than jukeboxd's).
swift build -c release --static-swift-stdlib --scratch-path .build-web --product jukebox-web
install -m 0755 .build-web/release/jukebox-web /usr/local/bin/jukebox-web
install -m 0644 Board/jukebox-web.service /etc/systemd/system/jukebox-web.service
# Its Settings page writes the config (the previous file kept beside it) as the service's user.
chown jukebox:jukebox /etc/jukebox /etc/jukebox/jukebox.toml
systemctl daemon-reload
if jukeboxd --config /etc/jukebox/jukebox.toml --check-config; then
    systemctl enable --now jukeboxd jukebox-web
    echo "install.sh: jukeboxd is running; 'journalctl -u jukeboxd -f' shows its log" >&2
    echo "install.sh: the web page is on port 8080 ([web] port); its setup code: journalctl -u jukebox-web" >&2
else
    systemctl enable jukeboxd jukebox-web
    echo "install.sh: fix the config errors above, then 'sudo systemctl start jukeboxd'" >&2
fi
