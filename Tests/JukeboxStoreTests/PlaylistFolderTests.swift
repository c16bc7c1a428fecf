import Glibc
import JukeboxTestSupport
import LinuxSupport
import Testing

@testable import JukeboxStore

/// The playlist folder with real files: MPD's layout, atomic replacement, files from a computer.
@Suite struct PlaylistFolderTests {
    static func folder(_ dir: TemporaryDirectory) throws -> PlaylistFolder {
        let folder = PlaylistFolder(path: dir.file("playlists"), musicDir: dir.file("music"))
        try folder.create()
        try folder.create()  // a second time is fine
        return folder
    }

    static func text(_ path: String) throws -> String {
        String(decoding: try readWholeFile(path), as: UTF8.self)
    }

    @Test func writeReadListRenameRemove() throws {
        let dir = try TemporaryDirectory()
        let folder = try Self.folder(dir)
        #expect(try folder.list().isEmpty)
        #expect(try folder.entries(of: "mix") == nil)
        try folder.write("mix", entries: ["Ann/01 Alpha.mp3", "Café.mp3"])
        #expect(try Self.text(dir.file("playlists/mix.m3u")) == "Ann/01 Alpha.mp3\nCafé.mp3\n")
        #expect(try folder.entries(of: "mix") == ["Ann/01 Alpha.mp3", "Café.mp3"])
        setModificationTime(dir.file("playlists/mix.m3u"), seconds: 1_700_000_000)
        // Not playlists: other files, a nameless one, folders named like one, a write in progress.
        writeFile(dir.file("playlists/notes.txt"), "x")
        writeFile(dir.file("playlists/.m3u"), "x")
        makeDirectories(dir.file("playlists/folder.m3u"))
        _ = try folder.writeTemporary("mix", entries: [])
        let listed = try folder.list()
        #expect(listed.map(\.name) == ["mix"] && listed.map(\.modified) == [1_700_000_000])
        #expect(try folder.rename("mix", to: "Road trip"))
        #expect(try !folder.rename("mix", to: "other"))
        #expect(try folder.entries(of: "Road trip")?.count == 2)
        #expect(try folder.remove("Road trip"))
        #expect(try !folder.remove("Road trip"))
        #expect(try folder.list().isEmpty)
    }

    @Test func aPlaylistFromAComputer() throws {
        let dir = try TemporaryDirectory()
        let folder = try Self.folder(dir)
        let desktop: [UInt8] =
            [0xEF, 0xBB, 0xBF]
            + Array("#EXTM3U\r\n#EXTINF:12,Ann - Alpha\r\n\(dir.file("music"))/Ann/01 Alpha.mp3\r\n".utf8)
        writeFile(dir.file("playlists/Desk.m3u"), desktop)
        #expect(try folder.entries(of: "Desk") == ["Ann/01 Alpha.mp3"])
        // An old Windows playlist: Latin-1 text and backslashes.
        writeFile(dir.file("playlists/Old.m3u"), Array("Ann\\Caf".utf8) + [0xE9] + Array(".mp3\r\n".utf8))
        #expect(try folder.entries(of: "Old") == ["Ann/Café.mp3"])
    }

    /// A power cut between writing the new list and the rename leaves the old list whole, and
    /// the next write is not disturbed by the temporary file left behind.
    @Test func anInterruptedWriteLeavesTheOldList() throws {
        let dir = try TemporaryDirectory()
        let folder = try Self.folder(dir)
        try folder.write("mix", entries: ["old.mp3"])
        let temporary = try folder.writeTemporary("mix", entries: ["new.mp3", "newer.mp3"])
        #expect(try folder.entries(of: "mix") == ["old.mp3"])
        #expect(try folder.list().map(\.name) == ["mix"])
        #expect(try Self.text(temporary) == "new.mp3\nnewer.mp3\n")
        try folder.write("mix", entries: ["third.mp3"])
        #expect(try folder.entries(of: "mix") == ["third.mp3"])
        #expect(!fileExists(temporary))
    }

    @Test func aMissingFolderIsAnError() throws {
        let dir = try TemporaryDirectory()
        let folder = PlaylistFolder(path: dir.file("nowhere/playlists"), musicDir: dir.file("music"))
        #expect(throws: Errno.self) { try folder.create() }
        #expect(throws: Errno.self) { try folder.list() }
        #expect(throws: Errno.self) { try folder.write("mix", entries: []) }
    }
}
