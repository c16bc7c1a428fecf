import Glibc
import JukeboxCore
import JukeboxStore
import JukeboxTestSupport
import LinuxSupport
import SQLite
import Testing

/// Stickers and settings in the real database file, and music_dir's pictures read from real
/// files a chunk at a time.
@Suite struct StickerStoreTests {
    @Test func stickersAreOneDurableTransactionEachAndSurviveReopening() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("jukebox.sqlite")
        do {
            let store = try LibraryStore.open(path: path, logger: quietLogger).store
            let before = store.durableCommitCount
            try store.setSticker(type: "song", uri: "One/a.mp3", name: "rating", value: "5")
            try store.setSticker(type: "song", uri: "One/a.mp3", name: "alpha", value: "x")
            try store.setSticker(type: "song", uri: "One/a.mp3", name: "rating", value: "4")
            try store.setSticker(type: "song", uri: "Two/b.mp3", name: "rating", value: "2")
            try store.setSticker(type: "song", uri: "one/c.mp3", name: "rating", value: "1")
            #expect(store.durableCommitCount == before + 5)
            #expect(try store.deleteStickers(type: "song", uri: "One/a.mp3", name: "none") == false)
            #expect(store.durableCommitCount == before + 5, "a delete of nothing writes nothing")
            #expect(try store.deleteStickers(type: "song", uri: "One/a.mp3", name: "alpha"))
            try store.setSetting("replay_gain_mode", to: "album")
        }
        let store = try LibraryStore.open(path: path, logger: quietLogger).store
        #expect(try store.sticker(type: "song", uri: "One/a.mp3", name: "rating") == "4")
        #expect(try store.stickers(type: "song", uri: "One/a.mp3").map(\.name) == ["rating"])
        #expect(
            try store.findStickers(type: "song", prefix: "", name: "rating").map(\.uri) == [
                "One/a.mp3", "Two/b.mp3", "one/c.mp3",
            ])
        #expect(try store.findStickers(type: "song", prefix: "One/", name: "rating").map(\.uri) == ["One/a.mp3"])
        #expect(
            try store.findStickers(type: "song", prefix: "", name: "rating", comparison: (.greater, "2")).map(\.value)
                == ["4"])
        try store.setSticker(type: "song", uri: "Two/b.mp3", name: "Zed", value: "1")
        #expect(try store.stickerNames(type: nil) == ["Zed", "rating"])
        #expect(try store.stickerNames(type: "song") == ["Zed", "rating"])
        #expect(try store.stickerNames(type: "playlist") == [])
        #expect(try store.deleteStickers(type: "song", uri: "Two/b.mp3", name: nil))
        #expect(try store.sticker(type: "song", uri: "Two/b.mp3", name: "rating") == nil)
        #expect(try store.setting("replay_gain_mode") == "album")
        #expect(try store.setting("nothing") == nil)
    }

    /// The tag library's cover files and embedded pictures (ID3v2.4 in place, ID3v2.3 with a
    /// UTF-16 description, a v2.4 frame unsynchronised on its own), read in 1000-byte chunks.
    @Test func picturesAreReadInChunks() throws {
        let dir = try TemporaryDirectory()
        try Fixtures.makeTagLibrary(in: dir.path)
        let folder = MusicFolder(root: dir.path)
        func whole(_ read: (Int) throws -> MusicFolder.PictureChunk?) throws -> (MusicFolder.PictureChunk, [UInt8])? {
            guard let first = try read(0) else { return nil }
            var bytes = first.bytes
            while bytes.count < first.size {
                let next = try #require(try read(bytes.count))
                #expect(next.bytes.count == min(1000, first.size - bytes.count))
                bytes += next.bytes
            }
            return (first, bytes)
        }
        let cover = try #require(
            try whole { try folder.coverFile(in: "Bee", names: ["cover.png", "cover.jpg"], offset: $0, limit: 1000) })
        #expect(cover.1 == Array(try readWholeFile(dir.file("Bee/cover.png"))))
        #expect(try folder.coverFile(in: "Misc", names: ["cover.png", "cover.jpg"], offset: 0, limit: 10) == nil)
        for (song, type, size) in [
            ("One/01 First.mp3", "image/jpeg", 100_000), ("One/02 Second.mp3", "image/png", 3_000),
            ("Bee/03 Three.mp3", "image/jpeg", 20_000),
        ] {
            let picture = try #require(
                try whole { try folder.embeddedPicture(of: song, offset: $0, limit: 1000) }, "\(song)")
            #expect(picture.0.mimeType == type)
            #expect(picture.1.count == size)
            // The fixtures' pictures start with their format's signature.
            #expect(picture.1.prefix(2) == (type == "image/png" ? [0x89, 0x50] : [0xFF, 0xD8]), "\(song)")
        }
        #expect(try folder.embeddedPicture(of: "One/03 Third.mp3", offset: 0, limit: 10) == nil)
        #expect(try folder.embeddedPicture(of: "Misc/tone.wav", offset: 0, limit: 10) == nil)
        #expect(try folder.userTexts(of: "One/01 First.mp3").map(\.name) == ["CATALOGNUMBER"])
        let names = try folder.entries(in: "One").map(\.name).sorted()
        #expect(names == ["01 First.mp3", "02 Second.mp3", "03 Third.mp3", "cover.jpg"])
        #expect(try folder.entries(in: "One").first { $0.name == "cover.jpg" }?.size == 300_000)
        #expect(try folder.entries(in: "").allSatisfy { $0.size == nil })
    }
}
