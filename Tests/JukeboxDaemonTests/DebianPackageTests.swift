import Foundation
import Glibc
import JukeboxCore
import JukeboxTestSupport
import LinuxSupport
import Testing

/// The Debian package as Board/make-deb.sh builds it (dpkg-buildpackage and debhelper from
/// debian/), of the test build: checked with lintian, Debian's package checker; then installed
/// with dpkg into a temporary root (`--root`, the maintainer scripts run without chroot under
/// DPKG_ROOT: this machine's own users, units and /usr stay untouched, also when the test runs
/// on a developer's machine), started from there, playing to an ALSA `file` PCM, then purged.
@Suite(.serialized) struct DebianPackageTests {
    struct Built {
        var deb: String
        var dbgsym: String
        /// Names both packages (lintian checks what it names).
        var changes: String
    }

    struct MakeDebFailure: Error, CustomStringConvertible {
        var description: String
    }

    static func isExecutable(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }

    static let canBuild = ["/usr/bin/dpkg-buildpackage", "/usr/bin/dh", "/usr/bin/help2man"].allSatisfy(isExecutable)

    static let canInstall =
        getuid() == 0 && canBuild
        && ["/usr/bin/dpkg", "/usr/bin/systemd-sysusers", "/usr/bin/deb-systemd-helper"].allSatisfy(isExecutable)

    /// The package of the test build, made once per process (a few minutes: the build, the
    /// strip, the -dbgsym, xz) into .build/debian-package-test. The test build's Swift runtime
    /// comes from the toolchain, which no Debian package has (a release build in .build-static
    /// may be older than the config).
    static let built: Result<Built, MakeDebFailure> = {
        let output = "\(Fixtures.repoRoot)/.build/debian-package-test"
        _ = try? FileManager.default.removeItem(atPath: output)
        guard
            let made = try? run(
                [
                    "\(Fixtures.repoRoot)/Board/make-deb.sh", "--binary", Jukeboxd.binary,
                    "--allow-unpackaged-libraries", "--output", output,
                ], timeout: .seconds(1800))
        else { return .failure(MakeDebFailure(description: "Board/make-deb.sh did not start")) }
        guard made.status == 0 else {
            return .failure(MakeDebFailure(description: "Board/make-deb.sh failed:\n\(made.stderrText.suffix(4000))"))
        }
        let deb = made.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        return .success(
            Built(
                deb: deb, dbgsym: deb.replacingOccurrences(of: "/jukebox_", with: "/jukebox-dbgsym_"),
                changes: String(deb.dropLast(".deb".count)) + ".changes"))
    }()

    /// lintian on both packages: no error, and every warning overridden in
    /// debian/jukebox.lintian-overrides with its reason (the minimal FFmpeg's embedded-library).
    @Test(.enabled(if: canBuild && isExecutable("/usr/bin/lintian")))
    func lintianFindsNoErrorAndEveryWarningOverridden() throws {
        let built = try Self.built.get()
        var arguments = ["/usr/bin/lintian", "--display-info", "--show-overrides", "--tag-display-limit", "0"]
        // The test build links the toolchain's Swift runtime through a RUNPATH (an error for
        // lintian); the release build links it in and has none, so the package overrides nothing.
        let dynamic = try run(["readelf", "-d", Jukeboxd.binary]).stdoutText
        if dynamic.contains("(RUNPATH)") { arguments += ["--suppress-tags", "custom-library-search-path"] }
        let lintian = try run(arguments + [built.changes], timeout: .seconds(1800))
        let lines = lintian.stdoutText.split(separator: "\n")
        func count(_ kind: String) -> Int { lines.filter { $0.hasPrefix("\(kind): ") }.count }
        print(
            "lintian on \((built.changes as NSString).lastPathComponent): \(count("E")) errors, \(count("W")) warnings, \(count("I")) info, \(count("O")) overridden"
        )
        // Its status says nothing here: lintian 2.116 exits 2 once it shows an overridden error.
        #expect(count("E") == 0 && count("W") == 0, "\(lintian.stdoutText)\(lintian.stderrText)")
        // The override is still needed (lintian says unused-override when it is not).
        #expect(lines.contains { $0.hasPrefix("O: jukebox: embedded-library libavutil") }, "\(lintian.stdoutText)")
        #expect(!lintian.stdoutText.contains("unused-override"), "\(lintian.stdoutText)")
    }

    /// What debhelper made of debian/: the version of the code, a stripped binary whose debug
    /// symbols are in the -dbgsym package under its build ID, the manual page from `--help`,
    /// the copyright and changelog, the user from sysusers.d.
    @Test(.enabled(if: canBuild)) func packageIsBuiltFromDebianFolder() throws {
        let built = try Self.built.get()
        let directory = try TemporaryDirectory(prefix: "jukebox-deb-contents")
        defer { directory.remove() }
        // debian/changelog and JukeboxVersion agree (debian/rules refuses to build otherwise).
        let version = try run(["/usr/bin/dpkg-deb", "--field", built.deb, "Version"]).stdoutText
        #expect(version.trimmingCharacters(in: .whitespacesAndNewlines) == JukeboxVersion.string)
        let files = try run(["/usr/bin/dpkg-deb", "--contents", built.deb]).stdoutText
        for file in [
            "./usr/bin/jukeboxd", "./usr/lib/jukebox/libjukebox-ffmpeg.so", "./usr/share/man/man1/jukeboxd.1.gz",
            "./usr/share/doc/jukebox/copyright", "./usr/share/doc/jukebox/changelog.gz",
            "./usr/lib/sysusers.d/jukebox.conf", "./usr/lib/tmpfiles.d/jukebox.conf",
            "./lib/systemd/system/jukeboxd.service", "./etc/jukebox/jukebox.toml",
        ] {
            #expect(files.contains(" \(file)\n") || files.hasSuffix(" \(file)"), "\(file) is not in the package")
        }
        let root = directory.file("package")
        #expect(try run(["/usr/bin/dpkg-deb", "--extract", built.deb, root]).status == 0)
        let binary = "\(root)/usr/bin/jukeboxd"
        let sections = try run(["readelf", "--section-headers", "--wide", binary]).stdoutText
        #expect(!sections.contains(".symtab") && !sections.contains(".debug_info"), "\(sections)")
        let notes = try run(["readelf", "--notes", binary]).stdoutText
        let buildIDLine = try #require(notes.split(separator: "\n").first { $0.contains("Build ID: ") }, "\(notes)")
        let buildID = buildIDLine.split(separator: " ").last ?? ""
        let debugFiles = try run(["/usr/bin/dpkg-deb", "--contents", built.dbgsym]).stdoutText
        let debugFile = "./usr/lib/debug/.build-id/\(buildID.prefix(2))/\(buildID.dropFirst(2)).debug"
        #expect(debugFiles.contains(debugFile), "\(debugFile) not in\n\(debugFiles)")
        // The manual page documents the options `--help` lists.
        let page = try run(["zcat", "\(root)/usr/share/man/man1/jukeboxd.1.gz"]).stdoutText
        #expect(page.contains(".TH JUKEBOXD \"1\"") && page.contains("jukeboxd \(JukeboxVersion.string)"), "\(page)")
        for option in ["config", "check\\-config", "audio\\-device", "log\\-level"] {
            #expect(page.contains("\\fB\\-\\-\(option)\\fR"), "--\(option) is not in the manual page")
        }
        #expect(page.contains("seek ±s"), "\(page)")
        let copyright = try String(contentsOfFile: "\(root)/usr/share/doc/jukebox/copyright", encoding: .utf8)
        #expect(copyright.hasPrefix("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"))
        #expect(copyright.contains("License: LGPL-2.1+"))
    }

    @Test(.enabled(if: canInstall)) func installsStartsPlaysAndPurges() throws {
        let deb = try Self.built.get().deb
        let directory = try TemporaryDirectory(prefix: "jukebox-deb")
        defer { directory.remove() }
        let fields = try run(["/usr/bin/dpkg-deb", "--field", deb, "Package", "Architecture", "Depends"]).stdoutText
        let architecture = try run(["/usr/bin/dpkg", "--print-architecture"]).stdoutText.trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(fields.contains("Package: jukebox") && fields.contains("Architecture: \(architecture)"), "\(fields)")
        // Every dependency is a real package, installed here (where jukeboxd was built and runs):
        // of each, its name without the version, the first of alternatives.
        let depends =
            fields.split(separator: "\n").first { $0.hasPrefix("Depends: ") }.map {
                $0.dropFirst("Depends: ".count).split(separator: ",").map {
                    String($0.split(separator: "|")[0].split(separator: "(")[0]).trimmingCharacters(in: .whitespaces)
                }
            } ?? []
        #expect(
            ["libasound2", "libmpg123-0", "libsqlite3-0", "libflac12", "libsoxr0", "systemd"].allSatisfy(
                depends.contains),
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

        // What Board/install.sh does: the user in its groups (sysusers.d), the state folder
        // (tmpfiles.d), the unit enabled (dh_installsystemd).
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

        // Purge: files, unit link, state (with the immutable checkpoint file) and loop device gone;
        // the user stays, as Debian leaves system users (files elsewhere may still be theirs).
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
        #expect((try String(contentsOfFile: "\(root)/etc/passwd", encoding: .utf8)).contains("jukebox:"))
    }
}
