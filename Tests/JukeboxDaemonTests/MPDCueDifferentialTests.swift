import Foundation
import Glibc
import JukeboxTestSupport
import Testing

/// Single-file albums with CUE sheets (a WAV, an MP3, a tagged FLAC), listed by jukeboxd and
/// by the real MPD 0.23 on the same folder, asked the same commands over raw sockets.
///
/// Documented differences, normalised here and nowhere else:
/// - MPD also lists each sheet as `playlist:` (with its `Last-Modified:`); the jukebox lists
///   no playlist files of the music folder.
/// - Song lines are compared as sets: MPD writes a CUE track's tags in the sheet's order, the
///   jukebox in its fixed order.
/// - `Track:` MPD gives the sheet's text (`01`), the jukebox the number (`1`).
/// - Queue `Id:` values differ.
@Suite(.serialized) struct MPDCueDifferentialTests {
    static let commands = [
        "clear", "lsinfo Album", "lsinfo \"Album/whole.cue\"",
        "lsinfo \"Album/mp3.cue\"",
        "lsinfo \"Album/flac.cue\"", "find album \"The Album\"", "find title \"Two\"", "find artist \"File Artist\"",
        "list album", "list artist", "list composer", "count album \"The Album\"", "search any \"singer\"",
        "add \"Album/whole.cue/track0002\"", "add \"Album/flac.cue/track0003\"", "playlistinfo", "clear",
    ]

    static var tools: Bool {
        ReferenceMPD.isInstalled
            && (["/usr/bin/sox", "/usr/bin/lame", "/usr/bin/flac", "/usr/bin/metaflac"] as [String]).allSatisfy {
                (tool: String) in access(tool, X_OK) == 0
            }
    }

    static func makeAlbum(in music: String) throws {
        let album = music + "/Album"
        try FileManager.default.createDirectory(atPath: album, withIntermediateDirectories: true)
        let wav = album + "/whole.wav"
        #expect(
            try run([
                "/usr/bin/sox", "-R", "-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "10", "sine", "440",
            ]).status == 0)
        #expect(
            try run([
                "/usr/bin/sox", "-R", "-n", "-r", "44100", "-c", "2", "-b", "16", album + "/other.wav", "synth", "2",
                "sine", "220",
            ]).status == 0)
        #expect(try run(["/usr/bin/lame", "--quiet", wav, album + "/whole.mp3"]).status == 0)
        #expect(try run(["/usr/bin/flac", "-s", "-f", "-o", album + "/whole.flac", wav]).status == 0)
        #expect(
            try run([
                "/usr/bin/metaflac", "--set-tag=ARTIST=File Artist", "--set-tag=COMPOSER=Comp",
                "--set-tag=TITLE=File Title",
                album + "/whole.flac",
            ]).status == 0)
        let sheet = try String(contentsOfFile: Fixtures.path("Tests/Fixtures/cue/album.cue"), encoding: .utf8)
        for (name, file) in [("whole.cue", "whole.wav"), ("mp3.cue", "whole.mp3"), ("flac.cue", "whole.flac")] {
            try sheet.replacingOccurrences(of: "whole.wav", with: file).write(
                toFile: album + "/" + name, atomically: true, encoding: .utf8)
        }
    }

    /// jukeboxd (null PCM, or `device` unpaced) on a music folder with the albums of
    /// `makeAlbum` and what `prepare` adds, with an MPD client once it lists `songs` songs;
    /// stopped when released.
    final class Jukebox {
        let harness: DaemonHarness
        let daemon: DaemonProcess
        let client: MPDTestClient

        init(songs: String, device: String? = nil, prepare: (String) throws -> Void = { _ in }) throws {
            harness = try DaemonHarness(tracks: [], onStart: "off", mode: "in-order")
            try MPDCueDifferentialTests.makeAlbum(in: harness.musicDir)
            try prepare(harness.musicDir)
            let port = freeLoopbackPort()
            try DaemonConfig(
                musicDir: "music", device: device ?? "null", pacing: device == nil ? "clock" : "device",
                mode: "in-order", onStart: "off", extra: "\n[network]\nport = \(port)"
            ).write(to: harness.configPath)
            daemon = try harness.start()
            client = try MPDTestClient(port: port)
            let listed = waitUntil(timeout: .seconds(10), pollingEvery: .milliseconds(10)) { [client] in
                client.fields("stats")["songs"] == songs
            }
            #expect(listed, "\(client.command("stats")) \(harness.log)")
        }

        deinit {
            daemon.closeStdin()
            _ = daemon.kill(SIGTERM)
            _ = daemon.waitForExit(timeout: .seconds(5))
        }
    }

    @Test(.enabled(if: tools), .timeLimit(.minutes(10)))
    func cueAlbumsAreListedAsMPDListsThem() throws {
        let jukebox = try Jukebox(songs: "10")
        let server = try ReferenceMPD(
            musicDir: jukebox.harness.musicDir, directory: jukebox.harness.directory.file("mpd"),
            extra: "decoder {\n  plugin \"mad\"\n  enabled \"no\"\n}")
        defer { server.stop() }
        let reference = try MPDTestClient(port: server.port)
        _ = reference.command("update")
        let updated = waitUntil(timeout: .seconds(30), pollingEvery: .milliseconds(10)) {
            reference.fields("status")["updating_db"] == nil && Int(reference.fields("stats")["songs"] ?? "") ?? 0 >= 10
        }
        try #require(updated, "MPD did not finish its update: \(reference.fields("stats"))")

        var differ: [String] = []
        for command in Self.commands {
            let expected = MPDTagDifferentialTests.Reply(Self.normalized(reference.command(command)), sorted: false)
            let answered = MPDTagDifferentialTests.Reply(
                Self.normalized(jukebox.client.command(command)), sorted: false)
            if expected != answered { differ.append("\(command)\n  MPD:     \(expected)\n  jukebox: \(answered)") }
        }
        print("MPD differential (CUE sheets): \(Self.commands.count - differ.count) same, \(differ.count) differ")
        #expect(differ.isEmpty, "\(differ.joined(separator: "\n"))")
    }

    /// jukeboxd on the same albums (and a FLAC whose sheet is its CUESHEET block) with ALSA's
    /// `file` PCM as the device, unpaced: the tracks of the three albums and the embedded one,
    /// queued and played in order, give the decoded files back bit-exact (the WAV's samples,
    /// mpg123's gapless decode, `flac -d`), each split at the sheet's INDEX 01.
    @Test(.enabled(if: tools), .timeLimit(.minutes(10)))
    func cueTracksPlayThroughTheDaemonAsTheirFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let out = directory.file("out.raw")
        let jukebox = try Jukebox(songs: "13", device: "file:'\(out)',raw") { music in
            let embedded = music + "/Embedded"
            try FileManager.default.createDirectory(atPath: embedded, withIntermediateDirectories: true)
            #expect(try run(["/usr/bin/cp", music + "/Album/whole.flac", embedded + "/emb.flac"]).status == 0)
            #expect(
                try run([
                    "/usr/bin/metaflac", "--remove-all-tags", "--import-cuesheet-from=" + music + "/Album/flac.cue",
                    embedded + "/emb.flac",
                ]).status == 0)
        }
        let client = jukebox.client
        let album = jukebox.harness.musicDir + "/Album"
        #expect(
            client.command("lsinfo \"Embedded/emb.flac\"").filter { $0.hasPrefix("Range: ") } == [
                "Range: 0.000-3.493", "Range: 3.493-7.133", "Range: 7.133-",
            ])
        #expect(client.command("clear").last == "OK")
        for sheet in ["Album/whole.cue", "Album/mp3.cue", "Album/flac.cue", "Embedded/emb.flac"] {
            for track in 1...3 { #expect(client.command("add \"\(sheet)/track000\(track)\"").last == "OK") }
        }
        #expect(client.command("play 0").last == "OK")
        let ended = waitUntil(timeout: .seconds(30), pollingEvery: .milliseconds(20)) {
            client.fields("status")["state"] == "stop"
        }
        #expect(ended, "\(client.command("status"))")
        func raw(_ command: [String]) throws -> [Int16] {
            let result = try run(command)
            return result.stdout.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        }
        let wav = try raw(["/usr/bin/sox", album + "/whole.wav", "-t", "raw", "-"])
        let mp3 = try raw(["/usr/bin/mpg123", "-q", "--gapless", "-s", album + "/whole.mp3"])
        let flac = try raw([
            "/usr/bin/flac", "-s", "-d", "-c", "--force-raw-format", "--endian=little", "--sign=signed",
            album + "/whole.flac",
        ])
        let expected = wav + mp3 + flac + flac
        #expect(wav.count == 441_000 * 2 && flac == wav)
        let got = try raw(["/usr/bin/cat", out])
        let first = (0..<min(got.count, expected.count)).first { got[$0] != expected[$0] }
        #expect(
            got.count == expected.count && first == nil,
            "\(got.count) samples, \(expected.count) expected, first difference at \(first ?? -1)")
    }

    /// A CUE track as an MPD client sees it while it plays (in real time, on the clock-paced
    /// null PCM): currentsong names the track, status gives its duration and a track-relative
    /// elapsed time, a seek is track-relative, and it stops at the track's end, not the file's.
    @Test(.enabled(if: tools), .timeLimit(.minutes(10)))
    func aPlayingCueTrackIsSeenAndSoughtAsItself() throws {
        let jukebox = try Jukebox(songs: "10")
        let client = jukebox.client
        #expect(client.command("clear").last == "OK")
        #expect(client.command("add \"Album/whole.cue/track0002\"").last == "OK")
        #expect(client.command("play 0").last == "OK")
        #expect(waitUntil(timeout: .seconds(5)) { client.fields("status")["state"] == "play" })
        let song = client.fields("currentsong")
        #expect(song["file"] == "Album/whole.cue/track0002" && song["Range"] == "3.493-7.133" && song["Title"] == "Two")
        #expect(client.command("seekcur 2").last == "OK")
        let status = client.fields("status")
        let elapsed = Double(status["elapsed"] ?? "") ?? -1
        #expect(status["duration"] == "3.640" && elapsed >= 2 && elapsed < 2.5, "\(status)")
        #expect(status["time"]?.hasSuffix(":4") == true, "\(status)")
        // 1.64 s of the track are left; the file goes on for 4.5 s more.
        #expect(
            waitUntil(timeout: .seconds(3.5), pollingEvery: .milliseconds(20)) {
                client.fields("status")["state"] == "stop"
            })
    }

    /// A reply with the documented differences taken out: MPD's `playlist:` entries and every
    /// `Last-Modified:` of a playlist or directory go, each song's lines are sorted, `Track:`
    /// is a number.
    static func normalized(_ lines: [String]) -> [String] {
        var result: [String] = []
        var song: [String] = []
        var inSong = false
        for line in lines {
            let key = line.prefix { $0 != ":" }
            if ["file", "directory", "playlist"].contains(key) || line.hasPrefix("OK") || line.hasPrefix("ACK") {
                result += song.sorted()
                song = []
                inSong = key == "file"
                if key != "playlist" { result.append(line) }
            } else if inSong {
                if key == "Track", let number = Int(line.dropFirst(7)) {
                    song.append("Track: \(number)")
                } else {
                    song.append(line)
                }
            } else if key != "Last-Modified" {
                result.append(line)
            }
        }
        return result + song.sorted()
    }
}
