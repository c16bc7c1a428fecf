import Foundation
import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

/// The daemon and the real MPD 0.23 on the same generated library (make-tag-library.sh: tags
/// in ID3v2.2/2.3/2.4 and ID3v1, Latin-1, UTF-16, UTF-16BE and UTF-8), asked the same tag
/// commands over raw sockets; the answers compared by status, files, keys and values.
///
/// Documented differences, normalised here and nowhere else:
/// - `tagtypes`: the jukebox lists the tags it keeps, an ordered subset of MPD's.
/// - MPD answers unsorted results in its database order: without `sort` the songs are
///   compared as a set.
/// - MPD 0.23 leaves `Format:` out of sorted (`sort`) results; its order among equal sort
///   keys is its database order, so the sorts asked have distinct keys.
/// - `listallinfo`/`lsinfo` of a folder with subfolders: MPD gives each `directory:` its
///   `Last-Modified:`, the library keeps no folder times; not asked.
/// - Queue `Id:` values differ.
@Suite(.serialized) struct MPDTagDifferentialTests {
    static var hasMPD: Bool { ReferenceMPD.isInstalled }

    static let commands = [
        "find Artist \"Ärtist One\" Album \"Album A\" Date \"\"",
        "find Artist \"Bee\" Album \"Album B\" Date \"\"",
        "find Artist \"Bee\" Album \"Album B\" Date \"2011\"",
        "find Date \"\"", "find Date \"2001-05-03\"", "find Genre \"Rock\"", "find genre \"Jazz\"",
        "find Genre \"Pop\"", "find AlbumArtist \"Ärtist One\"", "find AlbumArtist \"Various\"",
        "find albumartist \"\"",
        "find Disc \"1\"", "find Disc \"2\"", "find Disc \"\"", "find Composer \"Compo\"", "find Composer \"\"",
        "find Conductor \"Conductor X\"", "find Conductor \"Pé Former\"", "find Performer \"\"",
        "find OriginalDate \"1999\"", "find OriginalDate \"\"", "find Track \"2\"", "find Title \"日本語のうた\"",
        "find Title \"\"", "search title \"t\"", "list title",
        "find MUSICBRAINZ_ARTISTID \"11111111-1111-1111-1111-111111111111\"",
        "find MUSICBRAINZ_ALBUMID \"22222222-2222-2222-2222-222222222222\"",
        "find MUSICBRAINZ_ALBUMARTISTID \"33333333-3333-3333-3333-333333333333\"",
        "find MUSICBRAINZ_TRACKID \"55555555-5555-5555-5555-555555555555\"",
        "find MUSICBRAINZ_RELEASETRACKID \"44444444-4444-4444-4444-444444444444\"", "find MUSICBRAINZ_TRACKID \"\"",
        "find \"(Date == '')\"", "find \"(Date != '')\"", "find \"(Date != '2011')\"", "find \"(Genre == 'Rock')\"",
        "find \"(!(Genre == 'Rock'))\"", "find \"((Artist == 'Bee') AND (Date == '2011'))\"",
        "find \"(AlbumArtist == 'Bee')\"", "find \"(Genre contains 'o')\"", "find Artist \"Bee\" sort Track",
        "find Artist \"Bee\" sort -Title", "find Genre Jazz sort -Date", "find Genre Jazz sort Date",
        "find Genre Rock sort Track window 0:1",
        "search genre \"ROC\"", "search date \"20\"", "search any \"jazz\"", "search any \"été\"",
        "search composer \"\"", "search \"(Date == '')\"", "search albumartist \"bee\"",
        "list genre", "list date", "list originaldate", "list albumartist", "list composer", "list disc",
        "list conductor", "list MUSICBRAINZ_ALBUMID", "list album group date", "list album group albumartist",
        "list date group artist", "list artist group genre", "list title Genre Rock",
        "list album Artist Bee group date",
        "list Album \"(Artist == 'Bee')\" group Date", "list Date \"(Artist == 'Bee')\"", "list album \"Bee\"",
        "count group artist", "count group genre", "count group date", "count genre Rock", "count Date \"\"",
        "count Date \"\" group album", "count \"(Genre == 'Jazz')\" group date", "count group albumartist",
        "find \"(modified-since '2000-01-01T00:00:00Z')\"", "find \"(modified-since '2099-01-01')\"",
        "find \"(modified-since '946684800')\"", "find modified-since 2000-01-01T00:00:00Z",
        "find \"((Artist == 'Bee') AND (modified-since '2000-01-01'))\"", "find \"(modified-since 'soon')\"",
        "find \"(AudioFormat =~ '44100:*:*')\"", "find \"(AudioFormat =~ '*:*:1')\"",
        "find \"(AudioFormat == '44100:24:2')\"", "find \"(AudioFormat == '48000:16:2')\"",
        "count \"(AudioFormat =~ '*:*:2')\"",
        "list Foo", "find Foo bar", "count group Foo", "lsinfo One", "lsinfo Bee", "lsinfo Misc",
        "lsinfo \"One/01 First.mp3\"",
        "clear", "add \"One/01 First.mp3\"", "add \"Bee/02 Two.mp3\"", "playlistinfo", "play 1", "currentsong", "stop",
        "clear",
    ]

    /// jukeboxd and MPD 0.23 (with a sticker database when `mpdStickers`) on one generated tag
    /// library (make-tag-library.sh), both done scanning, with a client connected to each.
    final class TagLibraryServers {
        let harness: DaemonHarness
        let daemon: DaemonProcess
        let server: ReferenceMPD
        let jukeboxPort: Int
        let jukebox: MPDTestClient
        let reference: MPDTestClient

        /// `withPictures`: also Flac/pictures.flac, MP4/ and Ogg/ (make-pictures.sh).
        init(mpdStickers: Bool = false, withPictures: Bool = false) throws {
            harness = try DaemonHarness(tracks: [], configExtra: "", onStart: "off", mode: "in-order")
            try Fixtures.makeTagLibrary(in: harness.musicDir, withPictures: withPictures)
            let songs = withPictures ? "15" : "9"
            jukeboxPort = freeLoopbackPort()
            try "\n[network]\nport = \(jukeboxPort)\n".appendLine(to: harness.configPath)
            daemon = try harness.start()
            #expect(daemon.waitForLine(matching: "library scan of", on: .stderr) != nil, "\(harness.log)")
            // The mad decoder would read ID3 tags its own way; MPD's mpg123 plugin is the peer.
            let directory = harness.directory.file("mpd")
            let stickers = mpdStickers ? "sticker_file \"\(directory)/sticker.sql\"\n" : ""
            server = try ReferenceMPD(
                musicDir: harness.musicDir, directory: directory,
                extra: stickers + "decoder {\n  plugin \"mad\"\n  enabled \"no\"\n}")
            reference = try MPDTestClient(port: server.port)
            jukebox = try MPDTestClient(port: jukeboxPort)
            #expect(reference.greeting.hasPrefix("OK MPD 0.23"))
            _ = reference.command("update")
            let updated = waitUntil(timeout: .seconds(30), pollingEvery: .milliseconds(10)) { [reference] in
                reference.fields("status")["updating_db"] == nil && reference.fields("stats")["songs"] == songs
            }
            try #require(updated, "MPD did not finish its update")
            #expect(jukebox.fields("stats")["songs"] == songs)
        }

        deinit {
            server.stop()
            daemon.closeStdin()
            _ = daemon.kill(SIGTERM)
            _ = daemon.waitForExit(timeout: .seconds(5))
        }
    }

    @Test(.enabled(if: hasMPD), .timeLimit(.minutes(10)))
    func tagCommandsAnswerAsMPD() throws {
        let servers = try TagLibraryServers()
        let (jukebox, reference) = (servers.jukebox, servers.reference)

        var same = 0
        var differ: [String] = []
        for command in Self.commands {
            let expected = Reply(reference.command(command), sorted: command.contains(" sort "))
            let answered = Reply(jukebox.command(command), sorted: command.contains(" sort "))
            if command.hasPrefix("play ") {
                // Both play; wait until MPD reports it, so currentsong has a song.
                waitUntil(timeout: .seconds(5), pollingEvery: .milliseconds(10)) {
                    reference.fields("status")["state"] == "play"
                }
            }
            if expected == answered {
                same += 1
            } else {
                differ.append("\(command)\n  MPD:     \(expected)\n  jukebox: \(answered)")
            }
        }
        let mpdTypes = reference.command("tagtypes").filter { $0 != "OK" }
        let ourTypes = jukebox.command("tagtypes").filter { $0 != "OK" }
        #expect(ourTypes.count >= 17 && mpdTypes.filter(ourTypes.contains) == ourTypes, "\(ourTypes)")
        print("MPD differential (tags): \(same) same, \(differ.count) differ of \(Self.commands.count)")
        #expect(differ.isEmpty, "\(differ.joined(separator: "\n"))")
        #expect(same == Self.commands.count)
    }

    /// A reply as compared: the status line, each song's lines by file (files as a set unless
    /// the command sorted), and the other lines in order.
    struct Reply: Equatable, CustomStringConvertible {
        var status: String
        var songs: [String: [String]] = [:]
        var files: [String] = []
        var other: [String] = []

        init(_ lines: [String], sorted: Bool) {
            status = lines.last ?? "(no answer)"
            var current: String?
            for line in lines.dropLast() {
                if line.hasPrefix("file: ") {
                    let file = String(line.dropFirst(6))
                    current = file
                    files.append(file)
                    songs[file] = []
                } else if line.hasPrefix("directory: ") || current == nil {
                    current = nil
                    other.append(line)
                } else if let file = current {
                    if line.hasPrefix("Id: ") || (sorted && line.hasPrefix("Format: ")) { continue }
                    songs[file]!.append(line)
                }
            }
            if !sorted { files.sort() }
        }

        var description: String {
            "\(status) \(files.map { "\($0): \(songs[$0]!.joined(separator: "|"))" }) \(other)"
        }
    }
}

extension String {
    /// Appends this text to the file at `path`.
    fileprivate func appendLine(to path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(utf8))
    }
}
