import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// A read-only root: the program, its config and the music on a read-only mount, the state
/// (database, journal, playlists, lyric offsets) in one writable folder. strace records every
/// call that could change a file; none may touch anything but that folder, the RAM journal in
/// /dev/shm and devices.
@Suite(.serialized) struct ReadOnlyRootTests {
    static let hasStrace = FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")

    @Test(.enabled(if: hasStrace)) func writesNothingOutsideTheStateFolder() throws {
        let directory = try TemporaryDirectory(prefix: "jukebox-readonly")
        defer { directory.remove() }
        let root = directory.file("root")
        let state = directory.file("state")
        for folder in ["\(root)/music", "\(root)/bin", state] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        for track in DaemonTests.demoTracks {
            try FileManager.default.copyItem(
                atPath: track, toPath: "\(root)/music/\((track as NSString).lastPathComponent)")
        }
        // The program is bind-mounted there, not copied: a copy's write descriptor, inherited
        // by a process another test spawns meanwhile, makes exec fail (ETXTBSY).
        #expect(FileManager.default.createFile(atPath: "\(root)/bin/jukeboxd", contents: nil))
        let port = freeLoopbackPort()
        let config = try DaemonConfig(
            musicDir: "music", database: "\(state)/jukebox.sqlite", mode: "repeat-all", onStart: "play",
            extra: "[network]\nport = \(port)"
        ).write(to: "\(root)/jukebox.toml")

        // A read-only bind mount where the sandbox allows it (root); else strace alone says it.
        let readOnly = try run(["/bin/mount", "--bind", root, root]).status == 0
        if readOnly {
            #expect(try run(["/bin/mount", "-o", "remount,bind,ro", root]).status == 0)
        } else {
            print("ReadOnlyRootTests: no read-only bind mount here (needs root); checking with strace only")
        }
        let program = readOnly ? "\(root)/bin/jukeboxd" : Jukeboxd.binary
        if readOnly {
            #expect(try run(["/bin/mount", "--bind", "-o", "ro", Jukeboxd.binary, program]).status == 0)
        }
        defer {
            if readOnly {
                _ = try? run(["/bin/umount", program])
                _ = try? run(["/bin/umount", root])
            }
        }
        if readOnly { #expect(access("\(root)/jukebox.toml", W_OK) != 0 && errno == EROFS) }

        let trace = directory.file("trace")
        let strace = try DaemonProcess(
            executable: "/usr/bin/strace",
            arguments: [
                "-f", "-qq", "-o", trace, "-e",
                "trace=open,openat,creat,mkdir,mkdirat,rename,renameat,renameat2,unlink,unlinkat,rmdir,link,linkat,"
                    + "symlink,symlinkat,truncate,chmod,fchmodat,chown,fchownat,utimensat,mknod,mknodat",
                program, "--config", config, "--console", "stdin", "--log-level", "debug",
            ])
        defer {
            if strace.isRunning {
                strace.kill(SIGKILL)
                _ = strace.waitForExit()
            }
        }
        #expect(
            strace.waitForLine(matching: "MPD protocol on", on: .stderr, timeout: .seconds(20)) != nil,
            "\(strace.text(of: .stderr))")
        #expect(strace.waitForLine(matching: "playing", on: .stderr) != nil)
        // Everything that saves something: volume, skips, pause (a checkpoint at once), a
        // favourite, a stored playlist, a lyrics offset.
        let client = try MPDTestClient(port: port)
        for command in ["setvol 40", "next", "save mix", "pause 1"] {
            #expect(client.command(command) == ["OK"], "\(command)")
        }
        try strace.send("favourite")
        try strace.send("lyrics offset +200")
        #expect(
            waitUntil(timeout: .seconds(10)) {
                FileManager.default.fileExists(atPath: "\(state)/jukebox.sqlite-position")
                    && FileManager.default.fileExists(atPath: "\(state)/playlists/Favourites.m3u")
                    && FileManager.default.fileExists(atPath: "\(state)/playlists/mix.m3u")
            }, "\((try? FileManager.default.subpathsOfDirectory(atPath: state)) ?? [])\n\(strace.text(of: .stderr))")
        // SIGTERM to the daemon (strace's child) saves and stops; strace ends with it.
        let daemon = try #require(childPIDs(of: strace.pid).first)
        kill(daemon, SIGTERM)
        #expect(strace.waitForExit(timeout: .seconds(10)) == 0, "\(strace.text(of: .stderr))")

        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map(String.init)
        let changes = calls.filter(changesAFile)
        #expect(
            changes.contains { $0.contains("\"\(state)/jukebox.sqlite") },
            "no write seen in the state folder: strace saw nothing?")
        let allowed = [state + "/", "/dev/shm/jukebox-", "/dev/null", "/dev/snd/"]
        let outside = changes.filter { call in
            guard let path = firstPath(in: call) else { return true }
            return !allowed.contains { path.hasPrefix($0) }
        }
        #expect(outside.isEmpty, "changes outside \(state): \(outside.joined(separator: "\n"))")
    }

    /// Whether an strace line is a call that creates, changes or removes a file (or tried:
    /// EROFS counts): an open for writing or creating, or any of the path-changing calls
    /// traced. A mkdir of a folder that exists (the state folder's parents) changes nothing.
    private func changesAFile(_ line: String) -> Bool {
        // A call another thread interrupted is split: its "<... resumed>" half has no path;
        // the "<unfinished ...>" half has the path and the flags and is judged.
        guard let paren = line.firstIndex(of: "("), !line.hasSuffix("EEXIST (File exists)"), !line.contains("<... ")
        else { return false }
        let name = line[..<paren].split(separator: " ").last.map(String.init) ?? ""
        if ["open", "openat"].contains(name) {
            return ["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC"].contains { line.contains($0) }
        }
        return !name.isEmpty && !name.hasPrefix("+++") && !name.hasPrefix("---")
    }

    private func firstPath(in line: String) -> String? {
        guard let open = line.firstIndex(of: "\"") else { return nil }
        let rest = line[line.index(after: open)...]
        guard let close = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<close])
    }

    private func childPIDs(of pid: pid_t) -> [pid_t] {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").compactMap { pid_t($0) }
    }
}
