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
/// - An untagged file (`Album/other.wav`): the jukebox shows its file name as `Title:`.
@Suite(.serialized) struct MPDCueDifferentialTests {
    static let commands = [
        "clear", "lsinfo Album", "lsinfo \"Album/whole.cue\"",
        "lsinfo \"Album/mp3.cue\"",
        "lsinfo \"Album/flac.cue\"", "find album \"The Album\"", "find title \"Two\"", "find artist \"File Artist\"",
        "list album", "list artist", "list composer", "count album \"The Album\"", "search any \"singer\"",
        "add \"Album/whole.cue/track0002\"", "add \"Album/flac.cue/track0003\"", "playlistinfo", "clear",
    ]

    static let sheet = """
        REM GENRE Rock
        REM DATE 1999
        PERFORMER "The Band"
        TITLE "The Album"
        FILE "FILENAME" WAVE
          TRACK 01 AUDIO
            TITLE "One"
            PERFORMER "Singer A"
            INDEX 01 00:00:00
          TRACK 02 AUDIO
            TITLE "Two"
            INDEX 00 00:03:00
            INDEX 01 00:03:37
          TRACK 03 AUDIO
            TITLE "Three"
            INDEX 01 00:07:10

        """

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
        for (name, file) in [("whole.cue", "whole.wav"), ("mp3.cue", "whole.mp3"), ("flac.cue", "whole.flac")] {
            try sheet.replacingOccurrences(of: "FILENAME", with: file).write(
                toFile: album + "/" + name, atomically: true, encoding: .utf8)
        }
    }

    @Test(.enabled(if: tools), .timeLimit(.minutes(2)))
    func cueAlbumsAreListedAsMPDListsThem() throws {
        let harness = try DaemonHarness(tracks: [], configExtra: "", onStart: "off", mode: "in-order")
        try Self.makeAlbum(in: harness.musicDir)
        let port = freeLoopbackPort()
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: harness.configPath))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\n[network]\nport = \(port)\n".utf8))
        try handle.close()
        let daemon = try harness.start()
        defer {
            daemon.closeStdin()
            _ = daemon.kill(SIGTERM)
            _ = daemon.waitForExit(timeout: .seconds(5))
        }
        #expect(daemon.waitForLine(matching: "library scan of", on: .stderr) != nil, "\(harness.log)")
        let server = try ReferenceMPD(
            musicDir: harness.musicDir, directory: harness.directory.file("mpd"),
            extra: "decoder {\n  plugin \"mad\"\n  enabled \"no\"\n}")
        defer { server.stop() }
        let reference = try MPDTestClient(port: server.port)
        let jukebox = try MPDTestClient(port: port)
        _ = reference.command("update")
        let updated = waitUntil(timeout: .seconds(30), pollingEvery: .milliseconds(10)) {
            reference.fields("status")["updating_db"] == nil && Int(reference.fields("stats")["songs"] ?? "") ?? 0 >= 10
        }
        try #require(updated, "MPD did not finish its update: \(reference.fields("stats"))")
        #expect(jukebox.fields("stats")["songs"] == "10", "\(harness.log)")

        var differ: [String] = []
        for command in Self.commands {
            let expected = Reply(reference.command(command))
            let answered = Reply(jukebox.command(command))
            if expected != answered { differ.append("\(command)\n  MPD:     \(expected)\n  jukebox: \(answered)") }
        }
        print("MPD differential (CUE sheets): \(Self.commands.count - differ.count) same, \(differ.count) differ")
        #expect(differ.isEmpty, "\(differ.joined(separator: "\n"))")
    }

    /// jukeboxd on the same albums (and a FLAC whose sheet is its CUESHEET block) with ALSA's
    /// `file` PCM as the device, unpaced: the tracks of the three albums and the embedded one,
    /// queued and played in order, give the decoded files back bit-exact (the WAV's samples,
    /// mpg123's gapless decode, `flac -d`), each split at the sheet's INDEX 01.
    @Test(.enabled(if: tools), .timeLimit(.minutes(2)))
    func cueTracksPlayThroughTheDaemonAsTheirFiles() throws {
        let harness = try DaemonHarness(tracks: [], onStart: "off", mode: "in-order")
        try Self.makeAlbum(in: harness.musicDir)
        let embedded = harness.musicDir + "/Embedded"
        try FileManager.default.createDirectory(atPath: embedded, withIntermediateDirectories: true)
        let album = harness.musicDir + "/Album"
        #expect(try run(["/usr/bin/cp", album + "/whole.flac", embedded + "/emb.flac"]).status == 0)
        #expect(
            try run([
                "/usr/bin/metaflac", "--remove-all-tags", "--import-cuesheet-from=" + album + "/flac.cue",
                embedded + "/emb.flac",
            ]).status == 0)
        let out = harness.directory.file("out.raw")
        let port = freeLoopbackPort()
        try DaemonConfig(
            musicDir: "music", device: "file:'\(out)',raw", pacing: "device", mode: "in-order", onStart: "off",
            extra: "\n[network]\nport = \(port)"
        ).write(to: harness.configPath)
        let daemon = try harness.start()
        defer {
            daemon.closeStdin()
            _ = daemon.kill(SIGTERM)
            _ = daemon.waitForExit(timeout: .seconds(5))
        }
        #expect(daemon.waitForLine(matching: "library scan of", on: .stderr) != nil, "\(harness.log)")
        let client = try MPDTestClient(port: port)
        let listed = waitUntil(timeout: .seconds(10), pollingEvery: .milliseconds(10)) {
            client.fields("stats")["songs"] == "13"
        }
        #expect(listed, "\(client.command("stats")) \(harness.log)")
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
    @Test(.enabled(if: tools), .timeLimit(.minutes(1)))
    func aPlayingCueTrackIsSeenAndSoughtAsItself() throws {
        let harness = try DaemonHarness(tracks: [], onStart: "off", mode: "in-order")
        try Self.makeAlbum(in: harness.musicDir)
        let port = freeLoopbackPort()
        try DaemonConfig(musicDir: "music", mode: "in-order", onStart: "off", extra: "\n[network]\nport = \(port)")
            .write(to: harness.configPath)
        let daemon = try harness.start()
        defer {
            daemon.closeStdin()
            _ = daemon.kill(SIGTERM)
            _ = daemon.waitForExit(timeout: .seconds(5))
        }
        let client = try MPDTestClient(port: port)
        #expect(waitUntil(timeout: .seconds(10)) { client.fields("stats")["songs"] == "10" }, "\(harness.log)")
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

    /// A reply as compared: the status line, the files, each song's lines as a set, and the
    /// other lines in order (without MPD's `playlist:` entries for the sheets).
    struct Reply: Equatable, CustomStringConvertible {
        var status: String
        var songs: [String: [String]] = [:]
        var files: [String] = []
        var other: [String] = []

        init(_ lines: [String]) {
            status = lines.last ?? "(no answer)"
            var current: String?
            var skipping = false
            for line in lines.dropLast() {
                if line.hasPrefix("playlist: ") {
                    skipping = true
                    current = nil
                    continue
                }
                if skipping && line.hasPrefix("Last-Modified: ") { continue }
                skipping = false
                if line.hasPrefix("file: ") {
                    let file = String(line.dropFirst(6))
                    current = file
                    files.append(file)
                    songs[file] = []
                } else if line.hasPrefix("directory: ") || current == nil {
                    current = nil
                    if line.hasPrefix("Last-Modified: ") { continue }  // directory times: the jukebox keeps none
                    other.append(line)
                } else if let file = current {
                    if line.hasPrefix("Id: ") || (file == "Album/other.wav" && line.hasPrefix("Title: ")) { continue }
                    if line.hasPrefix("Track: ") {
                        songs[file]!.append("Track: " + String(Int(line.dropFirst(7)) ?? -1))
                    } else {
                        songs[file]!.append(line)
                    }
                }
            }
            for file in songs.keys { songs[file]!.sort() }
        }

        var description: String {
            "\(status) \(files.map { "\($0): \(songs[$0]!.joined(separator: "|"))" }) \(other)"
        }
    }
}
