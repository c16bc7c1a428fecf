import JukeboxCore
import Testing

@testable import MPDProtocol

/// The sticker database of these tests: in memory, keyed as MPD's table.
final class MemoryStickers: MPDStickerDatabase {
    var rows: [String: [String: String]] = [:]

    func value(type: String, uri: String, name: String) throws -> String? { rows[type + ":" + uri]?[name] }

    func values(type: String, uri: String) throws -> [(name: String, value: String)] {
        (rows[type + ":" + uri] ?? [:]).map { ($0.key, $0.value) }
    }

    func set(type: String, uri: String, name: String, value: String) throws {
        rows[type + ":" + uri, default: [:]][name] = value
    }

    func delete(type: String, uri: String, name: String?) throws -> Bool {
        let key = type + ":" + uri
        guard let name else { return rows.removeValue(forKey: key)?.isEmpty == false }
        return rows[key]?.removeValue(forKey: name) != nil
    }

    func find(type: String, prefix: String, name: String, match: MPDStickerMatch) throws -> [(
        uri: String, value: String
    )] {
        rows.compactMap { key, values -> (uri: String, value: String)? in
            let uri = String(key.dropFirst(type.count + 1))
            guard key.hasPrefix(type + ":"), uri.hasPrefix(prefix), let value = values[name] else { return nil }
            switch match {
            case .exists: return (uri, value)
            case .equals(let other): return value == other ? (uri, value) : nil
            case .lessThan(let other): return value < other ? (uri, value) : nil
            case .greaterThan(let other): return value > other ? (uri, value) : nil
            }
        }.sorted { $0.uri < $1.uri }
    }
}

extension MemoryStickers {
    func names(type: String?) throws -> [String] {
        let rows = rows.filter { type == nil || $0.key.hasPrefix(type! + ":") }
        return Set(rows.values.flatMap(\.keys)).sorted { Array($0.utf8).lexicographicallyPrecedes($1.utf8) }
    }
}

/// music_dir's files for these tests: a cover per folder and an embedded picture per song.
final class MemoryMusicFolder: MPDMusicFolder {
    var folders: [String: [MPDFileEntry]] = [:]
    var covers: [String: [UInt8]] = [:]
    var pictures: [String: (type: String, bytes: [UInt8])] = [:]
    var texts: [String: [(name: String, value: String)]] = [:]

    func entries(in uri: String) throws -> [MPDFileEntry] {
        guard let entries = folders[uri] else { throw MPDError(.system, "Failed to open \(uri)") }
        return entries
    }

    func coverArt(in folder: String, offset: Int, limit: Int) throws -> MPDBinaryChunk? {
        covers[folder].map { MPDBinaryChunk(size: $0.count, bytes: Self.chunk($0, offset, limit)) }
    }

    func embeddedPicture(of uri: String, offset: Int, limit: Int) throws -> MPDBinaryChunk? {
        pictures[uri].map {
            MPDBinaryChunk(size: $0.bytes.count, mimeType: $0.type, bytes: Self.chunk($0.bytes, offset, limit))
        }
    }

    func comments(of uri: String) throws -> [(name: String, value: String)] { texts[uri] ?? [] }

    static func chunk(_ bytes: [UInt8], _ offset: Int, _ limit: Int) -> [UInt8] {
        offset >= bytes.count ? [] : Array(bytes[offset..<min(bytes.count, offset + limit)])
    }
}

/// Stickers, cover art, embedded pictures, listfiles, readcomments, binarylimit, replay gain
/// and the small commands, against in-memory backends: MPD 0.23's answers (checked against the
/// real MPD by MPDDifferentialTests.stickersPicturesAndFilesAnswerAsMPD).
@Suite struct StickerAndFileTests {
    static func world(stickers: MemoryStickers = MemoryStickers(), files: MemoryMusicFolder = MemoryMusicFolder())
        -> MPDWorld
    {
        var world = MPDProtocolTests.world()
        world.stickers = stickers
        world.musicFolder = files
        world.playlists = MemoryPlaylists()
        return world
    }

    static func run(_ line: String, _ world: inout MPDWorld) -> String { MPDProtocolTests.run(line, world: &world) }

    @Test func stickersAsMPD() {
        let stickers = MemoryStickers()
        var world = Self.world(stickers: stickers)
        let song = "\"Ann/First/01 Alpha.mp3\""
        #expect(Self.run("sticker set song \(song) rating 5", &world) == "OK\n")
        #expect(Self.run("sticker set song \(song) alpha x", &world) == "OK\n")
        #expect(Self.run("sticker set song \(song) \"\" x", &world) == "OK\n")
        #expect(stickers.rows["song:Ann/First/01 Alpha.mp3"] == ["rating": "5", "alpha": "x"])
        #expect(Self.run("sticker get song \(song) rating", &world) == "sticker: rating=5\nOK\n")
        #expect(Self.run("sticker get song \(song) none", &world) == "ACK [50@0] {sticker} no such sticker\n")
        #expect(Self.run("sticker get song \(song) \"\"", &world) == "ACK [50@0] {sticker} no such sticker\n")
        #expect(Self.run("sticker list song \(song)", &world) == "sticker: alpha=x\nsticker: rating=5\nOK\n")
        #expect(Self.run("sticker set song \"Bob/Gamma \\\"live\\\".mp3\" rating 3", &world) == "OK\n")
        #expect(
            Self.run("sticker find song \"\" rating", &world)
                == "file: Ann/First/01 Alpha.mp3\nsticker: rating=5\nfile: Bob/Gamma \"live\".mp3\nsticker: rating=3\nOK\n"
        )
        #expect(
            Self.run("sticker find song Ann rating", &world) == "file: Ann/First/01 Alpha.mp3\nsticker: rating=5\nOK\n")
        #expect(Self.run("sticker find song An rating", &world) == "OK\n")
        #expect(
            Self.run("sticker find song \"\" rating < 4", &world)
                == "file: Bob/Gamma \"live\".mp3\nsticker: rating=3\nOK\n")
        #expect(Self.run("sticker find song \"\" rating ~ 4", &world) == "ACK [2@0] {sticker} bad operator\n")
        #expect(Self.run("sticker find song \"\" rating 4", &world) == "ACK [2@0] {sticker} bad request\n")
        #expect(Self.run("sticker delete song \(song) alpha", &world) == "OK\n")
        #expect(Self.run("sticker delete song \(song) alpha", &world) == "ACK [50@0] {sticker} no such sticker\n")
        #expect(Self.run("sticker get song Nope.mp3 rating", &world) == "ACK [50@0] {sticker} No such song\n")
        #expect(Self.run("sticker get song Ann rating", &world) == "ACK [50@0] {sticker} No such song\n")
        #expect(Self.run("sticker get album x y", &world) == "ACK [2@0] {sticker} unknown sticker domain\n")
        #expect(Self.run("sticker get song", &world) == "ACK [2@0] {sticker} too few arguments for \"sticker\"\n")
        // A song that left the library keeps its stickers, unlisted by find.
        stickers.rows["song:gone.mp3"] = ["rating": "1"]
        #expect(!Self.run("sticker find song \"\" rating", &world).contains("gone.mp3"))
        world.stickers = nil
        #expect(Self.run("sticker list song \(song)", &world) == "ACK [5@0] {sticker} sticker database is disabled\n")
    }

    /// MPD 0.24's `stickernames`, `stickertypes` and `stickernamestypes`: each name once, by
    /// bytes; songs are the one type.
    @Test func stickerNamesAndTypes() {
        let stickers = MemoryStickers()
        var world = Self.world(stickers: stickers)
        #expect(Self.run("stickernames", &world) == "OK\n")
        stickers.rows["song:a.mp3"] = ["rating": "5", "Zed": "1"]
        stickers.rows["song:b.mp3"] = ["rating": "2", "playcount": "7"]
        #expect(Self.run("stickernames", &world) == "name: Zed\nname: playcount\nname: rating\nOK\n")
        #expect(Self.run("stickertypes", &world) == "stickertype: song\nOK\n")
        let typed =
            "name: Zed\nstickertype: song\nname: playcount\nstickertype: song\nname: rating\nstickertype: song\nOK\n"
        #expect(Self.run("stickernamestypes", &world) == typed)
        #expect(Self.run("stickernamestypes song", &world) == typed)
        #expect(
            Self.run("stickernamestypes album", &world) == "ACK [2@0] {stickernamestypes} unknown sticker domain\n")
        world.stickers = nil
        #expect(Self.run("stickernames", &world) == "ACK [5@0] {stickernames} sticker database is disabled\n")
    }

    /// Every sticker change wakes `idle sticker`; reads and refusals do not.
    @Test func stickerChangesWakeIdle() {
        var world = Self.world()
        var session = MPDSession()
        let song = "\"loose.wav\""
        for (line, wakes) in [
            ("sticker set song \(song) a 1", true), ("sticker get song \(song) a", false),
            ("sticker set song \(song) \"\" 1", false), ("sticker delete song \(song) a", true),
            ("sticker delete song \(song) a", false), ("sticker set song Nope.mp3 a 1", false),
        ] {
            _ = session.handle(line: line, world: &world)
            #expect(world.observer.changes(world.machine).contains(.stickers) == wakes, "\(line)")
        }
    }

    /// albumart: `size`, then `binary: N`, the raw bytes and a newline; a phone asks chunk by
    /// chunk with the offset of what it has, and gets the exact bytes.
    @Test func albumArtInChunks() {
        let files = MemoryMusicFolder()
        let cover = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        files.covers["Ann/First"] = cover
        var world = Self.world(files: files)
        var session = MPDSession()
        #expect(session.handle(line: "binarylimit 4096", world: &world).text == "OK\n")
        var received: [UInt8] = []
        while received.count < cover.count {
            let answer = session.handle(
                line: "albumart \"Ann/First/02 Beta.mp3\" \(received.count)", world: &world
            ).bytes
            let header = Array("size: 20000\nbinary: ".utf8)
            #expect(Array(answer.prefix(header.count)) == header)
            let afterHeader = answer[header.count...]
            let newline = afterHeader.firstIndex(of: 0x0A)!
            let count = Int(String(decoding: afterHeader[..<newline], as: UTF8.self))!
            #expect(count == min(4096, cover.count - received.count))
            received += answer[(newline + 1)..<(newline + 1 + count)]
            #expect(Array(answer[(newline + 1 + count)...]) == Array("\nOK\n".utf8))
        }
        #expect(received == cover)
        #expect(
            session.handle(line: "albumart \"Ann/First/02 Beta.mp3\" 20000", world: &world).text
                == "size: 20000\nbinary: 0\n\nOK\n")
        #expect(
            session.handle(line: "albumart \"Ann/First/02 Beta.mp3\" 20001", world: &world).text
                == "ACK [2@0] {albumart} Offset too large\n")
        #expect(
            session.handle(line: "albumart loose.wav 0", world: &world).text == "ACK [50@0] {albumart} No file exists\n"
        )
        #expect(session.handle(line: "albumart ../x 0", world: &world).text == "ACK [50@0] {albumart} No file exists\n")
        // A folder with a trailing slash, as Cantata asks: that folder's cover, as MPD serves it.
        #expect(
            session.handle(line: "albumart Ann/First/ 20000", world: &world).text == "size: 20000\nbinary: 0\n\nOK\n")
        #expect(session.handle(line: "albumart Ann/ 0", world: &world).text == "ACK [50@0] {albumart} No file exists\n")
        #expect(
            session.handle(line: "binarylimit 63", world: &world).text == "ACK [2@0] {binarylimit} Value too small\n")
        #expect(
            session.handle(line: "binarylimit 99999999", world: &world).text
                == "ACK [2@0] {binarylimit} Number too large: 99999999\n")
        // The default limit is MPD's 8192, per session.
        var other = MPDSession()
        #expect(
            other.handle(line: "albumart Ann/First/x 0", world: &world).text.hasPrefix("size: 20000\nbinary: 8192\n"))
    }

    @Test func readPictureAndComments() {
        let files = MemoryMusicFolder()
        files.pictures["loose.wav"] = ("image/png", [1, 2, 3, 0x0A, 5])
        files.texts["loose.wav"] = [("CATALOGNUMBER", "JB-1")]
        var world = Self.world(files: files)
        #expect(
            Self.run("readpicture loose.wav 0", &world)
                == "size: 5\ntype: image/png\nbinary: 5\n\u{1}\u{2}\u{3}\n\u{5}\nOK\n")
        #expect(Self.run("readpicture loose.wav 3", &world) == "size: 5\ntype: image/png\nbinary: 2\n\n\u{5}\nOK\n")
        #expect(Self.run("readpicture loose.wav 6", &world) == "ACK [2@0] {readpicture} Bad file offset\n")
        #expect(Self.run("readpicture \"Ann/First/01 Alpha.mp3\" 0", &world) == "OK\n")
        #expect(Self.run("readpicture Nope.mp3 0", &world) == "ACK [50@0] {readpicture} No such song\n")
        #expect(Self.run("readcomments loose.wav", &world) == "CATALOGNUMBER: JB-1\nOK\n")
        #expect(Self.run("readcomments Nope.mp3", &world) == "ACK [50@0] {readcomments} No such song\n")
    }

    @Test func listFiles() {
        let files = MemoryMusicFolder()
        files.folders[""] = [MPDFileEntry(name: "Ann", size: nil, modified: 0)]
        files.folders["Ann"] = [
            MPDFileEntry(name: "cover.jpg", size: 300, modified: 86_400),
            MPDFileEntry(name: "a\nb", size: 1, modified: 0),
        ]
        var world = Self.world(files: files)
        #expect(Self.run("listfiles", &world) == "directory: Ann\nLast-Modified: 1970-01-01T00:00:00Z\nOK\n")
        #expect(
            Self.run("listfiles Ann", &world) == "file: cover.jpg\nsize: 300\nLast-Modified: 1970-01-02T00:00:00Z\nOK\n"
        )
        #expect(Self.run("listfiles Nope", &world) == "ACK [52@0] {listfiles} Failed to open Nope\n")
        #expect(Self.run("listfiles ../", &world).hasPrefix("ACK [50@0] {listfiles} "))
    }

    /// replay_gain_mode is kept and reported, and wakes `options` (even unchanged, as MPD).
    @Test func replayGainModeAndTheSmallCommands() {
        var world = Self.world()
        #expect(Self.run("replay_gain_status", &world) == "replay_gain_mode: off\nOK\n")
        #expect(Self.run("replay_gain_mode album", &world) == "OK\n")
        #expect(world.replayGainMode == .album)
        #expect(world.observer.changes(world.machine) == [.options])
        #expect(Self.run("replay_gain_status", &world) == "replay_gain_mode: album\nOK\n")
        #expect(
            Self.run("replay_gain_mode loud", &world)
                == "ACK [2@0] {replay_gain_mode} Unrecognized replay gain mode\n")
        #expect(world.observer.changes(world.machine).isEmpty)
        #expect(Self.run("replay_gain_mode album", &world) == "OK\n")
        #expect(world.observer.changes(world.machine) == [.options])
        #expect(Self.run("channels", &world) == "OK\n")
        #expect(Self.run("listpartitions", &world) == "partition: default\nOK\n")
        #expect(Self.run("clearerror", &world) == "OK\n")
    }

    /// crossfade is kept, reported as `xfade` after `state` when not 0, and wakes `options`.
    @Test func crossfadeIsKeptAndReported() {
        var world = Self.world()
        #expect(!Self.run("status", &world).contains("xfade"))
        #expect(Self.run("crossfade 3", &world) == "OK\n")
        #expect(world.crossfadeSeconds == 3)
        #expect(world.observer.changes(world.machine) == [.options])
        #expect(Self.run("status", &world).contains("state: stop\nlastloadedplaylist: \nxfade: 3\n"))
        #expect(Self.run("crossfade x", &world) == "ACK [2@0] {crossfade} Integer expected: x\n")
        #expect(Self.run("crossfade 0", &world) == "OK\n")
        #expect(!Self.run("status", &world).contains("xfade"))
    }

    /// findadd/searchadd take `sort`, `window` and `position` as MPD 0.23 does.
    @Test func findAddWithSortWindowAndPosition() {
        var world = Self.world()
        _ = Self.run("clear", &world)
        #expect(Self.run("findadd artist Ann sort -Title", &world) == "OK\n")
        #expect(world.machine.queue.entries == [2, 1])
        // `any` looks at tags only: the untagged loose.wav is not among Alpha, Beta, Gamma.
        #expect(Self.run("searchadd any \"\" sort Title window 2:4 position 1", &world) == "OK\n")
        #expect(world.machine.queue.entries == [2, 3, 1])
        #expect(Self.run("findadd artist Bob position x", &world) == "ACK [2@0] {findadd} Integer expected: x\n")
    }

    /// searchaddpl: the songs a case-folding search selects (with sort, window, position),
    /// appended to or inserted in the playlist, which is created only when songs match.
    @Test func searchAddToAPlaylist() {
        let folder = MemoryPlaylists()
        var world = Self.world()
        world.playlists = folder
        #expect(Self.run("searchaddpl mix artist ann", &world) == "OK\n")
        #expect(folder.lists["mix"]?.entries == ["Ann/First/01 Alpha.mp3", "Ann/First/02 Beta.mp3"])
        #expect(world.observer.changes(world.machine) == [.storedPlaylist])
        #expect(Self.run("searchaddpl mix artist bob position 1", &world) == "OK\n")
        #expect(
            folder.lists["mix"]?.entries == [
                "Ann/First/01 Alpha.mp3", "Bob/Gamma \"live\".mp3", "Ann/First/02 Beta.mp3",
            ])
        #expect(Self.run("searchaddpl mix artist ann sort -Title window 0:1", &world) == "OK\n")
        #expect(folder.lists["mix"]?.entries.last == "Ann/First/02 Beta.mp3")
        #expect(Self.run("searchaddpl mix artist ann position 99", &world) == "ACK [2@0] {searchaddpl} Bad position\n")
        #expect(Self.run("searchaddpl empty artist nobody", &world) == "OK\n")
        #expect(folder.lists["empty"] == nil)
        #expect(world.observer.changes(world.machine) == [.storedPlaylist])
        #expect(Self.run("searchaddpl \"\" artist ann", &world) == "ACK [2@0] {searchaddpl} Bad playlist name\n")
        #expect(
            Self.run("searchaddpl mix artist", &world)
                == "ACK [2@0] {searchaddpl} Incorrect number of filter arguments\n")
    }
}
