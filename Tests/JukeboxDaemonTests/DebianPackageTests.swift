import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// Board/make-deb.sh's package, installed with dpkg into a temporary root (`--root`, the
/// maintainer scripts run without chroot under DPKG_ROOT: this machine's own users, units
/// and /usr stay untouched, also when the test runs on a developer's machine), started from
/// there, playing to an ALSA `file` PCM, then purged.
@Suite(.serialized) struct DebianPackageTests {
    static let canInstall =
        getuid() == 0
        && ["/usr/bin/dpkg", "/usr/bin/dpkg-deb", "/usr/sbin/useradd"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: $0)
        }

    @Test(.enabled(if: canInstall)) func installsStartsPlaysAndPurges() throws {
        let directory = try TemporaryDirectory(prefix: "jukebox-deb")
        defer { directory.remove() }
        // The test build (a release build in .build-static may be older than the config):
        // its Swift runtime comes from the toolchain, which no Debian package has.
        let made = try run([
            "\(Fixtures.repoRoot)/Board/make-deb.sh", "--binary", Jukeboxd.binary, "--allow-unpackaged-libraries",
            "--output", directory.file("dist"),
        ])
        #expect(made.status == 0, "\(made.stderrText)")
        let deb = made.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        let fields = try run(["/usr/bin/dpkg-deb", "--field", deb, "Package", "Architecture", "Depends"]).stdoutText
        let architecture = try run(["/usr/bin/dpkg", "--print-architecture"]).stdoutText.trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(fields.contains("Package: jukebox") && fields.contains("Architecture: \(architecture)"), "\(fields)")
        // Every dependency is a real package, installed here (where jukeboxd was built and runs).
        let depends =
            fields.split(separator: "\n").first { $0.hasPrefix("Depends: ") }.map {
                $0.dropFirst("Depends: ".count).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            } ?? []
        #expect(
            ["libasound2", "libmpg123-0", "libsqlite3-0", "libflac12", "libsoxr0"].allSatisfy(depends.contains),
            "\(depends)")
        for package in depends {
            #expect(try run(["/usr/bin/dpkg-query", "-W", package]).status == 0, "\(package) is not a package here")
        }
        // The minimal FFmpeg comes in the package; Debian's (and its 126 libraries) is not needed.
        #expect(!depends.contains { $0.hasPrefix("libavcodec") || $0.hasPrefix("libavformat") }, "\(depends)")

        // A root with an empty dpkg database and a minimal user database.
        let root = directory.file("root")
        // On an ext4 image of its own where loop devices work, as a card's root file system, so
        // checkpoint-file.sh can map its file's block (a loop over the build machine's own disk
        // may be refused); unmounted (and detached) after the purge.
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let image = directory.file("root.img")
        let onImage =
            try run(["truncate", "-s", "128M", image]).status == 0
            && run(["mkfs.ext4", "-q", "-F", "-b", "4096", image]).status == 0
            && run(["mount", "-o", "loop,noatime,lazytime", image, root]).status == 0
        defer { if onImage { _ = try? run(["umount", root]) } }
        for folder in ["var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers", "etc"] {
            try FileManager.default.createDirectory(atPath: "\(root)/\(folder)", withIntermediateDirectories: true)
        }
        for (file, text) in [
            ("var/lib/dpkg/status", ""), ("var/lib/dpkg/available", ""),
            ("etc/passwd", "root:x:0:0:root:/root:/bin/bash\n"),
            ("etc/group", "root:x:0:\naudio:x:29:\ninput:x:101:\n"),
            ("etc/shadow", "root:*:19000:0:99999:7:::\n"), ("etc/gshadow", "root:*::\naudio:*::\ninput:*::\n"),
        ] {
            try text.write(toFile: "\(root)/\(file)", atomically: true, encoding: .utf8)
        }
        let dpkg = ["/usr/bin/dpkg", "--root=\(root)", "--force-script-chrootless", "--force-depends"]
        let installed = try run(dpkg + ["-i", deb])
        #expect(installed.status == 0, "\(installed.stdoutText)\(installed.stderrText)")

        // What Board/install.sh does: the user in its groups, the state folder, the unit enabled.
        let passwd = try String(contentsOfFile: "\(root)/etc/passwd", encoding: .utf8)
        let user = try #require(passwd.split(separator: "\n").first { $0.hasPrefix("jukebox:") }, "\(passwd)")
        #expect(user.hasSuffix(":/var/lib/jukebox:/usr/sbin/nologin"))
        let group = try String(contentsOfFile: "\(root)/etc/group", encoding: .utf8)
        #expect(group.contains("audio:x:29:jukebox") && group.contains("input:x:101:jukebox"), "\(group)")
        var info = stat()
        #expect(stat("\(root)/var/lib/jukebox", &info) == 0 && String(info.st_uid) == user.split(separator: ":")[2])
        #expect(info.st_mode & 0o777 == 0o750)
        let wants = "\(root)/etc/systemd/system/multi-user.target.wants/jukeboxd.service"
        #expect(
            (try? FileManager.default.destinationOfSymbolicLink(atPath: wants))
                == "/lib/systemd/system/jukeboxd.service")
        let unit = try String(contentsOfFile: "\(root)/lib/systemd/system/jukeboxd.service", encoding: .utf8)
        #expect(
            unit.contains("ExecStart=/usr/bin/jukeboxd --config /etc/jukebox/jukebox.toml")
                && unit.contains("Type=notify"))

        // The unit's ExecStartPre=+- before the daemon: the installed script maps the block of a
        // file in the state folder for the installed config's checkpoint_device where it can (root,
        // ext4, loop devices); where it cannot, it says why and the daemon checkpoints beside the
        // database.
        let link = "\(root)/run/jukebox-checkpoint"
        try FileManager.default.createDirectory(atPath: "\(root)/run", withIntermediateDirectories: true)
        let prepared = try run(
            ["\(root)/usr/share/jukebox/checkpoint-file.sh", "\(root)/var/lib/jukebox/checkpoint-area", link],
            environment: ["JUKEBOX_USER": "root"])
        let loop =
            prepared.status == 0 ? try run(["readlink", link]).stdoutText.trimmingCharacters(in: .newlines) : nil
        #expect(
            onImage ? loop?.hasPrefix("/dev/loop") == true : prepared.stderrText.contains("checkpoint-file.sh: "),
            "\(prepared.stderrText)")
        defer {  // when the purge below was not reached
            _ = try? run(["chattr", "-i", "\(root)/var/lib/jukebox/checkpoint-area"])
            if let loop { _ = try? run(["losetup", "-d", loop]) }
        }

        // Start it as the unit does (with the config pointed at this root), playing to a file.
        let config = "\(root)/etc/jukebox/jukebox.toml"
        let music = directory.file("music")
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        for track in DaemonTests.demoTracks {
            try FileManager.default.copyItem(atPath: track, toPath: "\(music)/\((track as NSString).lastPathComponent)")
        }
        // An ALAC file, whose scan loads the package's minimal FFmpeg (../lib/jukebox beside the binary).
        let media = EncodedMedia(directory: directory.path)
        try EncodedMedia.tool([
            "ffmpeg", "-nostdin", "-v", "error", "-y", "-i", try media.wav("tone.wav", seconds: 1), "-c:a", "alac",
            "\(music)/04 Tone.m4a",
        ])
        let port = freeLoopbackPort()
        let text = try String(contentsOfFile: config, encoding: .utf8)
            .replacingOccurrences(of: "music_dir = \"/home/pi/Music\"", with: "music_dir = \"\(music)\"")
            .replacingOccurrences(of: "\"/var/lib/jukebox/", with: "\"\(root)/var/lib/jukebox/")
            .replacingOccurrences(of: "port = 6600", with: "port = \(port)")
            .replacingOccurrences(of: "\"/run/jukebox-checkpoint\"", with: "\"\(link)\"")
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        let binary = "\(root)/usr/bin/jukeboxd"
        #expect(try run([binary, "--config", config, "--check-config"]).status == 0)
        let output = directory.file("out.raw")
        let daemon = try DaemonProcess(
            executable: binary, arguments: ["--config", config, "--audio-device", "file:'\(output)',raw"])
        #expect(
            daemon.waitForLine(matching: "playing", on: .stderr, timeout: .seconds(20)) != nil,
            "\(daemon.text(of: .stderr))")
        #expect(
            waitUntil(timeout: .seconds(10)) {
                var out = stat()
                return stat(output, &out) == 0 && out.st_size > 176_400
            }, "\(daemon.text(of: .stderr))")
        #expect(
            waitUntil(timeout: .seconds(10)) {
                MP4DaemonTests.ffmpegFolders(daemon.pid) == ["\(root)/usr/lib/jukebox"]
            }, "\(MP4DaemonTests.ffmpegFolders(daemon.pid))")
        daemon.kill(SIGTERM)
        #expect(daemon.waitForExit(timeout: .seconds(10)) == 0, "\(daemon.text(of: .stderr))")
        #expect(FileManager.default.fileExists(atPath: "\(root)/var/lib/jukebox/jukebox.sqlite"))
        #expect(
            daemon.text(of: .stderr).contains(
                loop != nil ? "power-cut checkpoints go to \(link)" : "checkpoint_device not used"),
            "\(prepared.stderrText)\(daemon.text(of: .stderr))")

        // Purge: files, unit link, state (with the immutable checkpoint file), loop device and user gone.
        let purged = try run(dpkg + ["--purge", "jukebox"])
        #expect(purged.status == 0, "\(purged.stdoutText)\(purged.stderrText)")
        if let loop { #expect(try run(["losetup", loop]).status != 0, "\(loop) is still attached") }
        for gone in [
            binary, config, wants, link, "\(root)/var/lib/jukebox", "\(root)/lib/systemd/system/jukeboxd.service",
        ] {
            #expect(
                !FileManager.default.fileExists(atPath: gone)
                    && (try? FileManager.default.destinationOfSymbolicLink(atPath: gone)) == nil, "\(gone) is left")
        }
        #expect(!(try String(contentsOfFile: "\(root)/etc/passwd", encoding: .utf8)).contains("jukebox:"))
    }
}
